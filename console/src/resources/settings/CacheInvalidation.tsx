import CachedIcon from '@mui/icons-material/Cached';
import { Button } from '@mui/material';
import { useState } from 'react';
import { Confirm, usePermissions, useNotify, useTranslate } from 'react-admin';
import { isSuperAdmin } from '../../authProvider';
import { invalidateCaches } from './settings.api';

/** Drop every cache of the platform: offered to super administrators only, as the API allows. */
export function CacheInvalidation() {
  const { permissions } = usePermissions();
  const translate = useTranslate();
  const notify = useNotify();
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  if (!isSuperAdmin(permissions)) return null;

  async function confirm() {
    setBusy(true);
    try {
      const result = await invalidateCaches();
      notify(result.allInstances ? 'console.settings.cache.doneEverywhere' : 'console.settings.cache.doneHere', {
        type: 'success',
        messageArgs: { caches: result.caches.join(', ') },
      });
    } catch (err) {
      notify(err instanceof Error ? err.message : 'ra.notification.http_error', { type: 'error' });
    } finally {
      setBusy(false);
      setOpen(false);
    }
  }

  return (
    <>
      <Button variant="outlined" startIcon={<CachedIcon />} onClick={() => setOpen(true)}>
        {translate('console.settings.cache.button')}
      </Button>
      <Confirm
        isOpen={open}
        loading={busy}
        title={translate('console.settings.cache.title')}
        content={translate('console.settings.cache.content')}
        confirm={translate('console.settings.cache.confirm')}
        onConfirm={confirm}
        onClose={() => setOpen(false)}
      />
    </>
  );
}
