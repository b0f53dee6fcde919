import { Button, Dialog, DialogActions, DialogContent, DialogContentText, DialogTitle, TextField } from '@mui/material';
import { useId, useState, type FormEvent, type ReactNode } from 'react';
import { useNotify, useRefresh, useTranslate } from 'react-admin';
import { ApiError } from './api';

export interface DecisionProps {
  /** The button's words (already translated). */
  label: string;
  /** The dialog's question and what will happen, stated in full (already translated). */
  title: string;
  body: ReactNode;
  /** A reason field: required (with the API's minimum length) or optional. */
  reason?: { required: true; minLength: number } | { required: false };
  /** More fields of the dialog (e.g. a new rate); `ready` false keeps the confirm button disabled. */
  children?: ReactNode;
  ready?: boolean;
  // MUI's warning orange is too light for text on white (WCAG AA): not offered.
  color?: 'primary' | 'error' | 'success';
  variant?: 'contained' | 'outlined' | 'text';
  disabled?: boolean;
  /** The call; the reason is the trimmed text, undefined when empty. */
  action: (reason: string | undefined) => Promise<unknown>;
  /** Said once the API accepted (already translated). */
  done: string;
  onDone?: () => void;
}

/**
 * A decision of an operator: a button, then a dialog that says what will happen and asks for the
 * reason where the API wants one. The API's refusal is shown as it gave it; the page's data is
 * read again after a success.
 */
export function DecisionButton(props: DecisionProps) {
  const translate = useTranslate();
  const notify = useNotify();
  const refresh = useRefresh();
  const titleId = useId();
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const trimmed = reason.trim();
  const reasonOk = !props.reason?.required || trimmed.length >= props.reason.minLength;

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    try {
      await props.action(trimmed || undefined);
      notify(props.done, { type: 'success' });
      setOpen(false);
      setReason('');
      props.onDone?.();
    } catch (err) {
      notify(err instanceof ApiError ? err.message : String(err), { type: 'error' });
      setOpen(false);
    } finally {
      setBusy(false);
      refresh();
    }
  }

  return (
    <>
      <Button
        color={props.color ?? 'primary'}
        variant={props.variant ?? 'contained'}
        disabled={props.disabled}
        onClick={() => setOpen(true)}
      >
        {props.label}
      </Button>
      <Dialog open={open} onClose={() => !busy && setOpen(false)} aria-labelledby={titleId} fullWidth maxWidth="sm">
        <form onSubmit={submit}>
          <DialogTitle id={titleId}>{props.title}</DialogTitle>
          <DialogContent>
            <DialogContentText component="div">{props.body}</DialogContentText>
            {props.children}
            {props.reason && (
              <TextField
                label={translate(
                  props.reason.required ? 'console.decision.reasonRequired' : 'console.decision.reasonOptional',
                )}
                value={reason}
                onChange={(e) => setReason(e.target.value)}
                required={props.reason.required}
                helperText={
                  props.reason.required
                    ? translate('console.decision.reasonHelp', { min: props.reason.minLength })
                    : undefined
                }
                multiline
                minRows={2}
                fullWidth
                margin="normal"
                slotProps={{ htmlInput: { maxLength: 500 } }}
              />
            )}
          </DialogContent>
          <DialogActions>
            <Button onClick={() => setOpen(false)} disabled={busy}>
              {translate('ra.action.cancel')}
            </Button>
            <Button
              type="submit"
              color={props.color ?? 'primary'}
              variant="contained"
              disabled={busy || !reasonOk || props.ready === false}
            >
              {translate('ra.action.confirm')}
            </Button>
          </DialogActions>
        </form>
      </Dialog>
    </>
  );
}
