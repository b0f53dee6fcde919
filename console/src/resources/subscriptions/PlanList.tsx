import { BooleanField, CreateButton, Datagrid, DeleteWithConfirmButton, EditButton, FunctionField, List, NumberField, TextField, TopToolbar, useRecordContext, useTranslate } from 'react-admin';
import { BpsField, MoneyField } from '../../fields';
import type { Plan } from './subscriptions.api';

function DeletePlan() {
  const plan = useRecordContext<Plan>();
  const translate = useTranslate();
  if (!plan) return null;
  return (
    <DeleteWithConfirmButton
      mutationMode="pessimistic"
      aria-label={translate('console.plans.delete', { name: plan.name })}
      confirmTitle={translate('console.plans.delete', { name: plan.name })}
      confirmContent={translate('console.plans.deleteContent', { name: plan.name, code: plan.code, smart_count: plan.subscriberCount })}
    />
  );
}

function EditPlan() {
  const plan = useRecordContext<Plan>();
  const translate = useTranslate();
  return plan ? <EditButton aria-label={translate('console.plans.edit', { name: plan.name })} /> : null;
}

export default function PlanList() {
  const translate = useTranslate();
  return (
    // The API answers every plan at once: no paging.
    <List pagination={false} actions={<TopToolbar><CreateButton /></TopToolbar>}>
      <Datagrid bulkActionButtons={false} rowClick={false}>
        <TextField source="code" sortable={false} />
        <TextField source="name" sortable={false} />
        <MoneyField source="priceAmount" sortable={false} />
        <FunctionField source="periodDays" sortable={false} render={(p: Plan) => (p.periodDays === null ? translate('console.plans.noEnd') : translate('console.plans.days', { smart_count: p.periodDays }))} />
        <FunctionField source="maxProducts" sortable={false} render={(p: Plan) => p.maxProducts ?? translate('console.plans.unlimited')} />
        <BpsField source="commissionDiscountBps" sortable={false} />
        <NumberField source="subscriberCount" sortable={false} />
        <BooleanField source="isPublic" sortable={false} />
        <BooleanField source="isActive" sortable={false} />
        <NumberField source="sortOrder" sortable={false} />
        <EditPlan />
        <DeletePlan />
      </Datagrid>
    </List>
  );
}
