import {
  Alert,
  Box,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
  TextField,
  Typography,
} from '@mui/material';
import { useState } from 'react';
import { useLocaleState, useNotify, useRefresh, useTranslate } from 'react-admin';
import { api, ApiError, newIdempotencyKey, unwrap, type Schema } from '../../api';
import { formatMoney } from '../../fields';

type Escrow = Schema<'Escrow'>;
export type EscrowAction = 'release' | 'refund' | 'dispute_open' | 'resolve_supplier' | 'resolve_client';

/** What an administrator may decide in each state (the API's transition table: docs/escrow.md). */
const ACTIONS: Partial<Record<Escrow['state'], EscrowAction[]>> = {
  HELD: ['release', 'refund', 'dispute_open'],
  DISPUTED: ['resolve_supplier', 'resolve_client'],
};
const DESTRUCTIVE: EscrowAction[] = ['refund', 'resolve_client'];

function send(action: EscrowAction, orderId: string, reason: string, key: string) {
  const params = { path: { orderId } };
  const body = { reason };
  const headers = { 'idempotency-key': key };
  switch (action) {
    case 'release':
      return unwrap(api.POST('/api/v1/admin/payments/escrow/{orderId}/release', { params, body, headers }));
    case 'refund':
      return unwrap(api.POST('/api/v1/admin/payments/escrow/{orderId}/refund', { params, body, headers }));
    case 'dispute_open':
      return unwrap(api.POST('/api/v1/admin/payments/escrow/{orderId}/dispute/open', { params, body, headers }));
    case 'resolve_supplier':
      return unwrap(
        api.POST('/api/v1/admin/payments/escrow/{orderId}/dispute/resolve-supplier', { params, body, headers }),
      );
    case 'resolve_client':
      return unwrap(
        api.POST('/api/v1/admin/payments/escrow/{orderId}/dispute/resolve-client', { params, body, headers }),
      );
  }
}

/**
 * One decision's confirmation. Its Idempotency-Key is made when the dialog opens and sent with every
 * try, so a try again after a lost answer never moves the money twice; the reason is then kept as
 * sent (the same key with another body would be refused).
 */
function ConfirmAction({ escrow, action, onClose }: { escrow: Escrow; action: EscrowAction; onClose: () => void }) {
  const translate = useTranslate();
  const [locale] = useLocaleState();
  const notify = useNotify();
  const refresh = useRefresh();
  const [key] = useState(newIdempotencyKey);
  const [reason, setReason] = useState('');
  const [tried, setTried] = useState(false);
  const [pending, setPending] = useState(false);
  const [failure, setFailure] = useState<string>();
  const money = (n: number) => formatMoney(n, escrow.currency, locale);
  const t = (k: string, options?: object) => translate(`console.money.action.${k}`, options);
  const says = t(`says.${action}`, {
    amount: money(escrow.amount),
    net: money(escrow.net),
    commission: money(escrow.commission),
    supplier: escrow.order.supplier.businessName,
    client: `${escrow.order.client.firstName} ${escrow.order.client.lastName}`,
  });
  const valid = reason.trim().length >= 3 && reason.trim().length <= 1000;

  async function confirm() {
    setPending(true);
    setTried(true);
    setFailure(undefined);
    try {
      await send(action, escrow.orderId, reason.trim(), key);
      notify(t('done'), { type: 'success' });
      refresh();
      onClose();
    } catch (err) {
      const message = err instanceof ApiError ? err.message : t('unsure');
      setFailure(message);
      notify(message, { type: 'error' });
    } finally {
      setPending(false);
    }
  }

  const titleId = `escrow-action-${action}-title`;
  return (
    <Dialog open onClose={pending ? undefined : onClose} aria-labelledby={titleId} fullWidth maxWidth="sm">
      <DialogTitle id={titleId}>{t(`title.${action}`)}</DialogTitle>
      <DialogContent>
        <DialogContentText data-confirm-amount sx={{ mb: 2 }}>
          {says}
        </DialogContentText>
        <TextField
          label={t('reason')}
          value={reason}
          onChange={(e) => setReason(e.target.value)}
          required
          fullWidth
          multiline
          minRows={2}
          slotProps={{ htmlInput: { maxLength: 1000, readOnly: tried } }}
          helperText={tried ? t('reasonKept') : t('reasonHelp')}
        />
        {failure && (
          <Alert severity="error" role="alert" sx={{ mt: 2 }}>
            {failure}
          </Alert>
        )}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={pending}>
          {translate('ra.action.cancel')}
        </Button>
        <Button
          onClick={confirm}
          disabled={!valid || pending}
          variant="contained"
          color={DESTRUCTIVE.includes(action) ? 'error' : 'primary'}
        >
          {tried ? t('retry') : t(action)}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

/** The decisions the escrow's state allows, each behind its confirmation. */
export function EscrowActions({ escrow }: { escrow: Escrow }) {
  const translate = useTranslate();
  const [open, setOpen] = useState<EscrowAction>();
  const actions = ACTIONS[escrow.state] ?? [];
  if (!actions.length) return <Typography variant="body2">{translate('console.money.escrow.noAction')}</Typography>;
  return (
    <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap' }}>
      {actions.map((a) => (
        <Button
          key={a}
          variant={DESTRUCTIVE.includes(a) ? 'outlined' : 'contained'}
          color={DESTRUCTIVE.includes(a) ? 'error' : 'primary'}
          onClick={() => setOpen(a)}
        >
          {translate(`console.money.action.${a}`)}
        </Button>
      ))}
      {open && <ConfirmAction key={open} escrow={escrow} action={open} onClose={() => setOpen(undefined)} />}
    </Box>
  );
}
