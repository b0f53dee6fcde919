import { Datagrid, FunctionField, List, SelectInput, TextField, useTranslate } from 'react-admin';
import { MoneyField, StatusField, WhenField } from '../../fields';
import {
  ESCROW_STATES,
  PAYOUT_STATES,
  StateFilter,
  StoreFilter,
  SupplierFilter,
  dayFilters,
  useChoices,
} from './filters';

const PAYOUT_FILTER = [...PAYOUT_STATES.map((s) => s.toLowerCase()), 'none'];

export default function EscrowList() {
  const translate = useTranslate();
  const choices = useChoices();
  const filters = [
    <StateFilter key="state" source="state" values={ESCROW_STATES} prefix="escrowState" alwaysOn />,
    <SupplierFilter key="supplierId" alwaysOn />,
    <StoreFilter key="storeId" />,
    <SelectInput
      key="payout"
      source="payout"
      choices={choices(PAYOUT_FILTER, 'payoutState', (v) => v.toUpperCase())}
    />,
    ...dayFilters(),
  ];
  return (
    <List filters={filters} exporter={false} sort={{ field: 'heldAt', order: 'DESC' }}>
      <Datagrid rowClick="show" bulkActionButtons={false}>
        <WhenField source="heldAt" />
        <StatusField source="state" prefix="money.escrowState" />
        <MoneyField source="amount" />
        <MoneyField source="commission" sortable={false} />
        <FunctionField
          source="order.client.lastName"
          sortable={false}
          render={(e) => `${e.order.client.firstName} ${e.order.client.lastName}`}
        />
        <TextField source="order.supplier.businessName" sortable={false} />
        <TextField source="order.store.name" sortable={false} />
        <StatusField source="order.status" prefix="money.orderStatus" sortable={false} />
        <FunctionField
          source="payout.state"
          sortable={false}
          render={(e) => (e.payout ? translate(`console.money.payoutState.${e.payout.state}`) : '—')}
        />
        <WhenField source="releaseAfter" />
      </Datagrid>
    </List>
  );
}
