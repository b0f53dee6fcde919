import { Button, Dialog, DialogActions, DialogContent, DialogContentText, DialogTitle, TextField } from '@mui/material';
import { useId, useState, type ReactNode } from 'react';
import { useNotify, useRefresh, useTranslate } from 'react-admin';
import { ApiError } from '../../api';

/** What the operator reads when the API refuses: its message, and each refused item when it lists them. */
export function refusal(err: unknown): string {
  if (!(err instanceof ApiError)) return err instanceof Error ? err.message : String(err);
  const details = err.details.map((d) => d.message).filter(Boolean);
  return details.length ? `${err.message} (${details.join(' ; ')})` : err.message;
}

/** Runs a decision, then says how it went and reloads the list (a refused one may have changed meanwhile). */
export function useDecision() {
  const notify = useNotify();
  const refresh = useRefresh();
  return async (call: () => Promise<unknown>, done: string, options?: Record<string, unknown>) => {
    try {
      await call();
      notify(done, { type: 'success', messageArgs: options });
    } catch (err) {
      notify(refusal(err), { type: 'error', multiLine: true });
    }
    refresh();
  };
}

export interface DecisionDialogProps {
  open: boolean;
  title: string;
  text: ReactNode;
  /** required: the API needs one (at least `min` characters); optional: kept in the audit when given. */
  reason?: { required: boolean; label: string; min?: number };
  confirm: string;
  danger?: boolean;
  onClose(): void;
  onConfirm(reason: string | undefined): Promise<void>;
}

/** The confirmation of a decision, stating what will happen, with the reason field when there is one. */
export function DecisionDialog({
  open,
  title,
  text,
  reason,
  confirm,
  danger,
  onClose,
  onConfirm,
}: DecisionDialogProps) {
  const translate = useTranslate();
  const [value, setValue] = useState('');
  const [busy, setBusy] = useState(false);
  const titleId = useId();
  const trimmed = value.trim();
  const min = reason?.min ?? 1;
  const tooShort = reason?.required === true && trimmed.length < min;
  const close = () => {
    setValue('');
    onClose();
  };
  const submit = async () => {
    setBusy(true);
    try {
      await onConfirm(trimmed || undefined);
    } finally {
      setBusy(false);
      close();
    }
  };
  return (
    <Dialog open={open} onClose={busy ? undefined : close} aria-labelledby={titleId} fullWidth maxWidth="sm">
      <DialogTitle id={titleId}>{title}</DialogTitle>
      <DialogContent>
        <DialogContentText component="div">{text}</DialogContentText>
        {reason && (
          <TextField
            autoFocus
            fullWidth
            multiline
            minRows={2}
            margin="normal"
            label={reason.label}
            required={reason.required}
            value={value}
            onChange={(e) => setValue(e.target.value)}
            slotProps={{ htmlInput: { maxLength: 500 } }}
            error={tooShort && value.length > 0}
            helperText={reason.required ? translate('console.moderation.reasonHelp', { min }) : undefined}
          />
        )}
      </DialogContent>
      <DialogActions>
        <Button onClick={close} disabled={busy}>
          {translate('ra.action.cancel')}
        </Button>
        <Button onClick={submit} disabled={busy || tooShort} variant="contained" color={danger ? 'error' : 'primary'}>
          {confirm}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

/** A button opening a decision's dialog. */
export function DecisionButton(
  props: Omit<DecisionDialogProps, 'open' | 'onClose'> & {
    label: string;
    ariaLabel?: string;
    icon?: ReactNode;
    color?: 'primary' | 'error' | 'success';
  },
) {
  const [open, setOpen] = useState(false);
  const { label, ariaLabel, icon, color, ...dialog } = props;
  return (
    <>
      <Button size="small" color={color} startIcon={icon} aria-label={ariaLabel} onClick={() => setOpen(true)}>
        {label}
      </Button>
      <DecisionDialog {...dialog} open={open} onClose={() => setOpen(false)} />
    </>
  );
}
