import EditIcon from '@mui/icons-material/Edit';
import { Button, Dialog, DialogActions, DialogContent, DialogTitle, IconButton, Tooltip } from '@mui/material';
import { useState } from 'react';
import { Form, SaveButton, useNotify, useRecordContext, useTranslate, useUpdate } from 'react-admin';
import { discountKindOf, PromoFields } from './PromoFields';
import type { PromoCode } from './subscriptions.api';

/** A promo code changed in a dialog over its list (the API reads codes by list only). */
export function EditPromoCode() {
  const promo = useRecordContext<PromoCode>();
  const translate = useTranslate();
  const notify = useNotify();
  const [open, setOpen] = useState(false);
  const [update] = useUpdate();
  if (!promo) return null;
  const title = translate('console.promoCodes.edit', { code: promo.code });

  async function submit(values: Record<string, unknown>) {
    try {
      await update(
        'promo-codes',
        { id: promo!.id, data: values, previousData: promo },
        { mutationMode: 'pessimistic', returnPromise: true },
      );
      notify('ra.notification.updated', { type: 'success', messageArgs: { smart_count: 1 } });
      setOpen(false);
    } catch (err) {
      const fieldErrors = (err as { body?: { errors?: Record<string, string> } }).body?.errors;
      if (fieldErrors) return fieldErrors;
      notify(err instanceof Error ? err.message : 'ra.notification.http_error', { type: 'error' });
    }
  }

  return (
    <>
      <Tooltip title={title}>
        <IconButton size="small" aria-label={title} onClick={() => setOpen(true)}>
          <EditIcon />
        </IconButton>
      </Tooltip>
      <Dialog open={open} onClose={() => setOpen(false)} aria-labelledby={`edit-${promo.id}`} maxWidth="md" fullWidth>
        <Form record={{ ...promo, discountKind: discountKindOf(promo) }} onSubmit={submit} resource="promo-codes">
          <DialogTitle id={`edit-${promo.id}`}>{title}</DialogTitle>
          <DialogContent>
            <PromoFields />
          </DialogContent>
          <DialogActions>
            <Button onClick={() => setOpen(false)}>{translate('ra.action.cancel')}</Button>
            <SaveButton />
          </DialogActions>
        </Form>
      </Dialog>
    </>
  );
}
