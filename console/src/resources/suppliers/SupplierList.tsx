import {
  Datagrid,
  FunctionField,
  List,
  SearchInput,
  SelectInput,
  TextField,
  TextInput,
  useLocaleState,
  useTranslate,
  type RaRecord,
} from 'react-admin';
import type { Schema } from '../../api';
import { StatusField, WhenField, formatBps } from '../../fields';

type Supplier = Schema<'AdminSupplier'>;

export const VERIFICATION_STATUSES = ['PENDING', 'VERIFIED', 'REJECTED'] as const;
export const KYC_STATUSES = ['NOT_SUBMITTED', 'PENDING', 'APPROVED', 'REJECTED', 'RESUBMISSION_REQUESTED'] as const;
export const CATEGORIES = ['FOOD', 'DEALS'] as const;

function Suppliers({ queue }: { queue: boolean }) {
  const translate = useTranslate();
  const [locale] = useLocaleState();
  const choices = (values: readonly string[], prefix: string) =>
    values.map((id) => ({ id, name: translate(`console.${prefix}.${id}`) }));
  const filters = [
    <SearchInput key="q" source="q" alwaysOn placeholder={translate('resources.suppliers.fields.q')} />,
    ...(queue
      ? []
      : [
          <SelectInput
            key="status"
            source="status"
            label="resources.suppliers.fields.verificationStatus"
            choices={choices(VERIFICATION_STATUSES, 'verification')}
          />,
        ]),
    <SelectInput
      key="kycStatus"
      source="kycStatus"
      label="resources.suppliers.fields.kycStatus"
      choices={choices(KYC_STATUSES, 'kycStatus')}
    />,
    <SelectInput
      key="category"
      source="category"
      label="resources.suppliers.fields.category"
      choices={choices(CATEGORIES, 'supplierCategory')}
    />,
    <TextInput key="city" source="city" label="resources.suppliers.fields.city" />,
  ];
  const owner = (s: Supplier) => [s.owner.firstName, s.owner.lastName].filter(Boolean).join(' ');
  return (
    <List
      resource={queue ? 'suppliers-pending' : 'suppliers'}
      filters={filters}
      exporter={false}
      sort={{ field: 'createdAt', order: queue ? 'ASC' : 'DESC' }}
    >
      <Datagrid rowClick={(id: RaRecord['id']) => `/suppliers/${id}/show`} bulkActionButtons={false}>
        <TextField source="businessName" label="resources.suppliers.fields.businessName" />
        <FunctionField
          label="resources.suppliers.fields.owner"
          sortable={false}
          render={(s: Supplier) => `${owner(s)} · ${s.owner.phoneNumber ?? ''}`}
        />
        <TextField source="city" label="resources.suppliers.fields.city" />
        <FunctionField
          label="resources.suppliers.fields.category"
          sortable={false}
          render={(s: Supplier) => translate(`console.supplierCategory.${s.category}`)}
        />
        <StatusField
          source="verificationStatus"
          prefix="verification"
          label="resources.suppliers.fields.verificationStatus"
          sortable={!queue}
        />
        <StatusField source="kycStatus" prefix="kycStatus" label="resources.suppliers.fields.kycStatus" />
        <FunctionField
          label="resources.suppliers.fields.commission"
          sortBy="commissionRateBps"
          sortable={!queue}
          render={(s: Supplier) => formatBps(s.commissionRateBps, locale)}
        />
        <WhenField source="createdAt" label="resources.suppliers.fields.createdAt" />
      </Datagrid>
    </List>
  );
}

export default function SupplierList() {
  return <Suppliers queue={false} />;
}

/** The verification queue, oldest first. */
export function PendingSupplierList() {
  return <Suppliers queue />;
}
