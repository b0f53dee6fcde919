import { Datagrid, EmailField, FunctionField, List, SearchInput, SelectInput, TextField, useTranslate } from 'react-admin';
import { StatusField, WhenField } from '../../fields';
import { ROLES, STATUSES } from './roles';

export default function UserList() {
  const translate = useTranslate();
  const choices = (values: readonly string[], prefix: string) => values.map((id) => ({ id, name: translate(`${prefix}.${id}`) }));
  const filters = [
    <SearchInput key="q" source="q" alwaysOn placeholder={translate('resources.users.fields.q')} />,
    <SelectInput key="role" source="role" choices={choices(ROLES, 'console.roles')} />,
    <SelectInput key="status" source="status" choices={choices(STATUSES, 'console.userStatus')} />,
  ];
  return (
    <List filters={filters} exporter={false}>
      <Datagrid rowClick="show" bulkActionButtons={false}>
        <FunctionField source="profile.lastName" sortable={false} render={(u) => `${u.profile.firstName} ${u.profile.lastName}`} />
        <TextField source="phoneNumber" sortable={false} />
        <EmailField source="email" sortable={false} />
        <FunctionField source="role" sortable={false} render={(u) => translate(`console.roles.${u.role}`)} />
        <StatusField source="status" prefix="userStatus" sortable={false} />
        <WhenField source="createdAt" sortable={false} />
      </Datagrid>
    </List>
  );
}
