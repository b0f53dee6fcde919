import DeleteIcon from '@mui/icons-material/Delete';
import EditIcon from '@mui/icons-material/Edit';
import { IconButton, Stack, Tooltip } from '@mui/material';
import { Link } from 'react-router-dom';
import {
  BooleanField,
  CreateButton,
  Datagrid,
  FunctionField,
  List,
  NumberField,
  TextField,
  TopToolbar,
  useCreatePath,
  useRecordContext,
  useTranslate,
} from 'react-admin';
import { BpsField, MoneyField } from '../../fields';
import { ConfirmedAction } from './ConfirmedAction';
import { deletePlan, type Plan } from './subscriptions.api';

/** Change a plan on its page; delete it once confirmed (the API refuses while suppliers are on it). */
function RowActions() {
  const plan = useRecordContext<Plan>();
  const translate = useTranslate();
  const createPath = useCreatePath();
  if (!plan) return null;
  const edit = translate('console.plans.edit', { name: plan.name });
  const remove = translate('console.plans.delete', { name: plan.name });
  return (
    <Stack direction="row" sx={{ whiteSpace: 'nowrap' }}>
      <Tooltip title={edit}>
        <IconButton
          size="small"
          component={Link}
          to={createPath({ resource: 'plans', type: 'edit', id: plan.id })}
          aria-label={edit}
        >
          <EditIcon />
        </IconButton>
      </Tooltip>
      <ConfirmedAction
        label={remove}
        icon={<DeleteIcon />}
        color="error"
        title={remove}
        content={translate('console.plans.deleteContent', {
          name: plan.name,
          code: plan.code,
          smart_count: plan.subscriberCount,
        })}
        done={translate('console.plans.deleted', { name: plan.name })}
        run={() => deletePlan(plan.id)}
      />
    </Stack>
  );
}

export default function PlanList() {
  const translate = useTranslate();
  return (
    // The API answers every plan at once: no paging.
    <List
      pagination={false}
      actions={
        <TopToolbar>
          <CreateButton />
        </TopToolbar>
      }
    >
      <Datagrid bulkActionButtons={false} rowClick={false}>
        <TextField source="code" sortable={false} />
        <TextField source="name" sortable={false} />
        <MoneyField source="priceAmount" sortable={false} />
        <FunctionField
          source="periodDays"
          sortable={false}
          render={(p: Plan) =>
            p.periodDays === null
              ? translate('console.plans.noEnd')
              : translate('console.plans.days', { smart_count: p.periodDays })
          }
        />
        <FunctionField
          source="maxProducts"
          sortable={false}
          render={(p: Plan) => p.maxProducts ?? translate('console.plans.unlimited')}
        />
        <BpsField source="commissionDiscountBps" sortable={false} />
        <NumberField source="subscriberCount" sortable={false} />
        <BooleanField source="isPublic" sortable={false} />
        <BooleanField source="isActive" sortable={false} />
        <RowActions />
      </Datagrid>
    </List>
  );
}
