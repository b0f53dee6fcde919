import {
  AutocompleteInput,
  Datagrid,
  DateInput,
  FunctionField,
  List,
  ReferenceField,
  ReferenceInput,
  SelectInput,
  TextField,
  useLocaleState,
  useTranslate,
} from 'react-admin';
import { WhenField } from '../../fields';
import { PAYMENT_METHODS, SETTING_KEYS, SETTINGS_GROUPS, type SettingValue } from './setting-fields';
import { formatSetting, settingLabel } from './setting-format';

interface AuditRow {
  key: string;
  oldValue: SettingValue;
  newValue: SettingValue;
}

function Change({ row }: { row: AuditRow }) {
  const translate = useTranslate();
  const [locale] = useLocaleState();
  return (
    <span>
      {formatSetting(row.key, row.oldValue, translate, locale)} →{' '}
      <strong>{formatSetting(row.key, row.newValue, translate, locale)}</strong>
    </span>
  );
}

const userName = (u: { profile?: { firstName?: string; lastName?: string }; phoneNumber?: string | null }) =>
  [u.profile?.firstName, u.profile?.lastName].filter(Boolean).join(' ') || u.phoneNumber || '';

/** The history of changes (`GET /admin/settings/audit`), newest first, by key, administrator and days. */
export function SettingsAudit() {
  const translate = useTranslate();
  // What the API filters by: a group, a payment method or one key.
  const keys = [...SETTINGS_GROUPS, ...PAYMENT_METHODS.map((m) => `mobilemoney.${m}`), ...SETTING_KEYS];
  const filters = [
    <SelectInput
      key="key"
      source="key"
      alwaysOn
      choices={keys.map((id) => ({ id, name: settingLabel(id, translate) }))}
    />,
    <ReferenceInput key="actorId" source="actorId" reference="users" alwaysOn>
      <AutocompleteInput
        label={translate('resources.settings-audit.fields.actorId')}
        optionText={userName}
        filterToQuery={(q: string) => ({ q })}
        sx={{ minWidth: 260 }}
      />
    </ReferenceInput>,
    <DateInput key="from" source="from" alwaysOn />,
    <DateInput key="to" source="to" alwaysOn />,
  ];
  return (
    <List
      resource="settings-audit"
      title={false}
      disableSyncWithLocation
      storeKey={false}
      filters={filters}
      actions={false}
      perPage={10}
      empty={false}
      sort={{ field: 'createdAt', order: 'DESC' }}
    >
      <Datagrid bulkActionButtons={false} rowClick={false}>
        <WhenField source="createdAt" />
        <FunctionField source="key" render={(row: AuditRow) => settingLabel(row.key, translate)} />
        <FunctionField source="change" sortable={false} render={(row: AuditRow) => <Change row={row} />} />
        <TextField source="reason" sortable={false} emptyText="—" />
        <ReferenceField source="actorId" reference="users" link={false} sortable={false}>
          <FunctionField render={userName} />
        </ReferenceField>
      </Datagrid>
    </List>
  );
}
