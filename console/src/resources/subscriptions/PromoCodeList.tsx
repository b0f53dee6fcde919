import BlockIcon from '@mui/icons-material/Block';
import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import LibraryAddIcon from '@mui/icons-material/LibraryAdd';
import { Button, Chip } from '@mui/material';
import { useState } from 'react';
import { Link } from 'react-router-dom';
import {
  BooleanField,
  Confirm,
  CreateButton,
  Datagrid,
  DeleteWithConfirmButton,
  FunctionField,
  List,
  SearchInput,
  SelectInput,
  TextField,
  TextInput,
  TopToolbar,
  useLocaleState,
  useNotify,
  useRecordContext,
  useRefresh,
  useTranslate,
} from 'react-admin';
import { formatBps, formatMoney, WhenField } from '../../fields';
import { EditPromoCode } from './PromoCodeEdit';
import { batchPath } from './PromoFields';
import { disablePromoCode, enablePromoCode, type PromoCode } from './subscriptions.api';

/** Disable (or enable again) a code, after saying what it changes. */
function SwitchPromoCode() {
  const promo = useRecordContext<PromoCode>();
  const translate = useTranslate();
  const notify = useNotify();
  const refresh = useRefresh();
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  if (!promo) return null;
  const action = promo.disabled ? 'enable' : 'disable';

  async function confirm() {
    setBusy(true);
    try {
      await (promo!.disabled ? enablePromoCode(promo!.id) : disablePromoCode(promo!.id));
      notify(`console.promoCodes.${action}d`, { type: 'success', messageArgs: { code: promo!.code } });
      refresh();
    } catch (err) {
      notify(err instanceof Error ? err.message : 'ra.notification.http_error', { type: 'error' });
    } finally {
      setBusy(false);
      setOpen(false);
    }
  }

  return (
    <>
      <Button
        size="small"
        startIcon={promo.disabled ? <CheckCircleIcon /> : <BlockIcon />}
        aria-label={translate(`console.promoCodes.${action}Title`, { code: promo.code })}
        onClick={() => setOpen(true)}
      >
        {translate(`console.promoCodes.${action}`)}
      </Button>
      <Confirm
        isOpen={open}
        loading={busy}
        title={translate(`console.promoCodes.${action}Title`, { code: promo.code })}
        content={translate(`console.promoCodes.${action}Content`, { code: promo.code })}
        onConfirm={confirm}
        onClose={() => setOpen(false)}
      />
    </>
  );
}

function DeletePromoCode() {
  const promo = useRecordContext<PromoCode>();
  const translate = useTranslate();
  if (!promo) return null;
  const title = translate('console.promoCodes.delete', { code: promo.code });
  return (
    <DeleteWithConfirmButton
      mutationMode="pessimistic"
      aria-label={title}
      confirmTitle={title}
      confirmContent={translate('console.promoCodes.deleteContent', { code: promo.code, smart_count: promo.usesCount })}
    />
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
    <List filters={filters} actions={<Actions />} empty={false}>
      <Datagrid bulkActionButtons={false} rowClick={false}>
        <TextField source="code" sortable={false} sx={{ fontFamily: 'monospace' }} />
        <TextField source="description" sortable={false} />
        <FunctionField source="discount" sortable={false} render={(p: PromoCode) => <Discount promo={p} />} />
        <FunctionField source="usesCount" sortable={false} render={(p: PromoCode) => (p.maxUses === null ? p.usesCount : `${p.usesCount} / ${p.maxUses}`)} />
        <WhenField source="validUntil" sortable={false} />
        <FunctionField source="status" sortable={false} render={(p: PromoCode) => <Chip size="small" color={p.disabled ? 'default' : 'success'} variant="outlined" label={translate(`console.promoCodes.status.${p.disabled ? 'disabled' : 'active'}`)} />} />
        <BooleanField source="isPublic" sortable={false} />
        <FunctionField source="batchId" sortable={false} render={(p: PromoCode) => (p.batchId ? <BatchLink id={p.batchId} /> : null)} />
        <WhenField source="createdAt" sortable={false} />
        <EditPromoCode />
        <SwitchPromoCode />
        <DeletePromoCode />
      </Datagrid>
    </List>
  );
}
