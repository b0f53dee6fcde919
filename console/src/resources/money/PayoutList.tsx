import {
  BooleanInput,
  Datagrid,
  FunctionField,
  List,
  NumberField,
  SelectInput,
  TextField,
  useTranslate,
  type RaRecord,
} from 'react-admin';
import { MoneyField, StatusField, WhenField } from '../../fields';
import { PAYOUT_STATES, StateFilter, SupplierFilter, dayFilters, useChoices } from './filters';

/** A supplier's payout opens its order's escrow; an association's (a donation) has no page here. */
const rowClick = (_id: unknown, _resource: string, p: RaRecord) => (p.orderId ? `/escrows/${p.orderId}/show` : false);

export default function PayoutList() {
  const translate = useTranslate();
  const choices = useChoices();
  const filters = [
    <StateFilter key="state" source="state" values={PAYOUT_STATES} prefix="payoutState" alwaysOn />,
    <SelectInput key="payee" source="payee" choices={choices(['supplier', 'association'], 'payeeType')} alwaysOn />,
    <SupplierFilter key="supplierId" />,
    <BooleanInput key="waiting" source="waiting" />,
    ...dayFilters(),
  ];
  return (
    <List filters={filters} exporter={false}>
      <Datagrid rowClick={rowClick} bulkActionButtons={false}>
        <WhenField source="createdAt" sortable={false} />
        <StatusField source="state" prefix="money.payoutState" sortable={false} />
        <MoneyField source="amount" sortable={false} />
        <TextField source="payee.name" sortable={false} />
        <FunctionField
          source="payee.type"
          sortable={false}
          render={(p) => translate(`console.money.payeeType.${p.payee.type}`)}
        />
        <FunctionField
          source="mobile"
          sortable={false}
          render={(p) => p.mobile ?? (p.waitingReason ? translate('console.money.escrow.waitingNumber') : '—')}
        />
        <NumberField source="attempts" sortable={false} />
        <TextField source="lastError" sortable={false} emptyText="" />
        <WhenField source="succeededAt" sortable={false} />
      </Datagrid>
    </List>
  );
}
