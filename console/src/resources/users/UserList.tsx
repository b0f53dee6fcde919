import {
  Datagrid,
  EmailField,
  FunctionField,
  List,
  SearchInput,
  SelectInput,
  TextField,
  useTranslate,
} from 'react-admin';
import { StatusField, WhenField } from '../../fields';
import { ROLES, STATUSES } from './roles';

export default function UserList() {
  const translate = useTranslate();
  const choices = (values: readonly string[], prefix: string) =>
    values.map((id) => ({ id, name: translate(`${prefix}.${id}`) }));
  const filters = [
    <SearchInput key="q" source="q" alwaysOn placeholder={translate('resources.users.fields.q')} />,
    <SelectInput key="role" source="role" choices={choices(ROLES, 'console.roles')} />,
    <SelectInput key="status" source="status" choices={choices(STATUSES, 'console.userStatus')} />,
  ];
  return (
    <List filters={filters} exporter={false} sort={{ field: 'createdAt', order: 'DESC' }}>
      <Datagrid rowClick="show" bulkActionButtons={false}>
        <FunctionField
          source="profile.lastName"
          sortBy="lastName"
          render={(u: { profile: { firstName: string; lastName: string } }) =>
            `${u.profile.firstName} ${u.profile.lastName}`
          }
        />
        <TextField source="phoneNumber" />
        <EmailField source="email" />
        <FunctionField source="role" render={(u) => translate(`console.roles.${u.role}`)} />
        <StatusField source="status" prefix="userStatus" />
        <WhenField source="createdAt" />
      </Datagrid>
    </List>
  );
}
