import { IconButton, Tooltip } from '@mui/material';
import { useState, type ReactNode } from 'react';
import { Confirm, useNotify, useRefresh } from 'react-admin';

/** An icon button of a list's row whose action runs once confirmed; the API's refusal is shown as it says it. */
export function ConfirmedAction({
  label,
  icon,
  title,
  content,
  done,
  run,
  color,
}: {
  label: string;
  icon: ReactNode;
  title: string;
  content: string;
  done: string;
  run: () => Promise<unknown>;
  color?: 'error';
}) {
  const notify = useNotify();
  const refresh = useRefresh();
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);

  async function confirm() {
    setBusy(true);
    try {
      await run();
      notify(done, { type: 'success' });
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
      <Tooltip title={label}>
        <IconButton size="small" color={color} aria-label={label} onClick={() => setOpen(true)}>
          {icon}
        </IconButton>
      </Tooltip>
      <Confirm
        isOpen={open}
        loading={busy}
        title={title}
        content={content}
        onConfirm={confirm}
        onClose={() => setOpen(false)}
      />
    </>
  );
}
