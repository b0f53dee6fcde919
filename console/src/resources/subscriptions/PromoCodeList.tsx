import BlockIcon from '@mui/icons-material/Block';
import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import DeleteIcon from '@mui/icons-material/Delete';
import LibraryAddIcon from '@mui/icons-material/LibraryAdd';
import { Button, Chip, Stack } from '@mui/material';
import { Link } from 'react-router-dom';
import {
  BooleanField,
  CreateButton,
  Datagrid,
  FunctionField,
  List,
  SearchInput,
  SelectInput,
  TextField,
  TextInput,
  TopToolbar,
  useLocaleState,
  useRecordContext,
  useTranslate,
} from 'react-admin';
import { formatBps, formatMoney, WhenField } from '../../fields';
import { EditPromoCode } from './PromoCodeEdit';
import { batchPath } from './PromoFields';
import { ConfirmedAction } from './ConfirmedAction';
import { deletePromoCode, disablePromoCode, enablePromoCode, type PromoCode } from './subscriptions.api';

/** Disable (or enable again) a code, then delete it if never used: each once confirmed. */
function RowActions() {
  const promo = useRecordContext<PromoCode>();
  const translate = useTranslate();
  if (!promo) return null;
  const code = { code: promo.code };
  const action = promo.disabled ? 'enable' : 'disable';
  return (
    <Stack direction="row" sx={{ whiteSpace: 'nowrap' }}>
      <EditPromoCode />
      <ConfirmedAction
        label={translate(`console.promoCodes.${action}Title`, code)}
        icon={promo.disabled ? <CheckCircleIcon /> : <BlockIcon />}
        title={translate(`console.promoCodes.${action}Title`, code)}
        content={translate(`console.promoCodes.${action}Content`, code)}
        done={translate(`console.promoCodes.${action}d`, code)}
        run={() => (promo.disabled ? enablePromoCode(promo.id) : disablePromoCode(promo.id))}
      />
      <ConfirmedAction
        label={translate('console.promoCodes.delete', code)}
        icon={<DeleteIcon />}
        color="error"
        title={translate('console.promoCodes.delete', code)}
        content={translate('console.promoCodes.deleteContent', { ...code, smart_count: promo.usesCount })}
        done={translate('console.promoCodes.deleted', code)}
        run={() => deletePromoCode(promo.id)}
      />
    </Stack>
  );
}

function Discount({ promo }: { promo: PromoCode }) {
  const [locale] = useLocaleState();
  if (promo.discountBps !== null) return <>{formatBps(promo.discountBps, locale)}</>;
  return <>{formatMoney(promo.discountAmount ?? 0, promo.currency, locale)}</>;
}

function BatchLink({ id }: { id: string }) {
  const translate = useTranslate();
  return (
    <Link to={batchPath(id)} title={translate('console.promoCodes.bulk.batch', { id })}>
      {id.slice(-8)}
    </Link>
  );
}

function Actions() {
  const translate = useTranslate();
  return (
    <TopToolbar>
      <CreateButton />
      <Button component={Link} to="/promo-codes/bulk" size="small" startIcon={<LibraryAddIcon />}>
        {translate('console.promoCodes.bulk.title')}
      </Button>
    </TopToolbar>
  );
}

export default function PromoCodeList() {
  const translate = useTranslate();
  const filters = [
    <SearchInput key="q" source="q" alwaysOn placeholder={translate('resources.promo-codes.fields.q')} />,
    <SelectInput
      key="status"
      source="status"
      alwaysOn
      choices={['active', 'disabled'].map((id) => ({ id, name: translate(`console.promoCodes.status.${id}`) }))}
    />,
    <TextInput key="batchId" source="batchId" />,
  ];
  return (
    <List filters={filters} actions={<Actions />} empty={false} sort={{ field: 'createdAt', order: 'DESC' }}>
      <Datagrid bulkActionButtons={false} rowClick={false}>
        <TextField source="code" sx={{ fontFamily: 'monospace', whiteSpace: 'nowrap' }} />
        <TextField source="description" sortable={false} />
        <FunctionField source="discount" sortable={false} render={(p: PromoCode) => <Discount promo={p} />} />
        <FunctionField
          source="usesCount"
          render={(p: PromoCode) => (p.maxUses === null ? p.usesCount : `${p.usesCount} / ${p.maxUses}`)}
        />
        <WhenField source="validUntil" />
        <FunctionField
          source="status"
          sortable={false}
          render={(p: PromoCode) => (
            <Chip
              size="small"
              color={p.disabled ? 'default' : 'success'}
              variant="outlined"
              label={translate(`console.promoCodes.status.${p.disabled ? 'disabled' : 'active'}`)}
            />
          )}
        />
        <BooleanField source="isPublic" label="console.promoCodes.publicColumn" sortable={false} />
        <FunctionField
          source="batchId"
          sortable={false}
          render={(p: PromoCode) => (p.batchId ? <BatchLink id={p.batchId} /> : null)}
        />
        <RowActions />
      </Datagrid>
    </List>
  );
}
