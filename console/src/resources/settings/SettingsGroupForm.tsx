import {
  Box,
  Button,
  Card,
  CardContent,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
  Grid,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  TextField,
  Typography,
} from '@mui/material';
import { useState } from 'react';
import { ApiError } from '../../api';
import { Form, SaveButton, Toolbar, useLocaleState, useNotify, useTranslate } from 'react-admin';
import {
  changesOf,
  keysOf,
  PAYMENT_METHODS,
  type SettingChange,
  type SettingKey,
  type Settings,
  type SettingsGroup,
} from './setting-fields';
import { formatSetting, settingLabel } from './setting-format';
import { SettingInput } from './SettingInput';
import { changeSettings } from './settings.api';

/** The changes of a form, said before they apply, with an optional reason for the history. */
type FieldErrors = Record<string, string> | undefined;

function ConfirmChanges({
  group,
  changes,
  done,
  saved,
}: {
  group: SettingsGroup;
  changes: SettingChange[];
  done: (errors?: FieldErrors) => void;
  saved: (settings: Settings) => void;
}) {
  const translate = useTranslate();
  const [locale] = useLocaleState();
  const notify = useNotify();
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);

  async function apply() {
    setBusy(true);
    try {
      const result = await changeSettings(changes, reason.trim() || undefined);
      notify('console.settings.saved', { type: 'success', messageArgs: { smart_count: result.changes.length } });
      done();
      saved(result.settings);
    } catch (err) {
      notify(err instanceof Error ? err.message : 'ra.notification.http_error', { type: 'error' });
      setBusy(false);
      // A refused key is shown under its input (`body.business.x` is `x` in the business form).
      const details = err instanceof ApiError ? err.details.filter((d) => d.field.startsWith(`body.${group}.`)) : [];
      done(
        details.length
          ? Object.fromEntries(details.map((d) => [d.field.slice(`body.${group}.`.length), d.message]))
          : undefined,
      );
    }
  }

  return (
    <Dialog open onClose={() => done()} aria-labelledby="settings-confirm-title" maxWidth="md" fullWidth>
      <DialogTitle id="settings-confirm-title">
        {translate('console.settings.confirm.title', { smart_count: changes.length })}
      </DialogTitle>
      <DialogContent>
        <DialogContentText>{translate('console.settings.confirm.body')}</DialogContentText>
        <Table size="small" sx={{ my: 2 }}>
          <TableHead>
            <TableRow>
              <TableCell>{translate('console.settings.confirm.setting')}</TableCell>
              <TableCell>{translate('console.settings.confirm.before')}</TableCell>
              <TableCell>{translate('console.settings.confirm.after')}</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {changes.map((c) => (
              <TableRow key={c.key}>
                <TableCell>{settingLabel(c.key, translate)}</TableCell>
                <TableCell>{formatSetting(c.key, c.oldValue, translate, locale)}</TableCell>
                <TableCell>{formatSetting(c.key, c.newValue, translate, locale)}</TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
        <TextField
          label={translate('console.settings.confirm.reason')}
          helperText={translate('console.settings.confirm.reasonHelp')}
          value={reason}
          onChange={(e) => setReason(e.target.value)}
          slotProps={{ htmlInput: { maxLength: 500 } }}
          fullWidth
          multiline
        />
      </DialogContent>
      <DialogActions>
        <Button onClick={() => done()} disabled={busy}>
          {translate('ra.action.cancel')}
        </Button>
        <Button onClick={apply} disabled={busy} variant="contained">
          {translate('console.settings.confirm.apply')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

function Inputs({ group }: { group: SettingsGroup }) {
  const translate = useTranslate();
  if (group !== 'mobilemoney')
    return (
      <Box sx={{ maxWidth: 640 }}>
        {keysOf(group).map((key) => (
          <SettingInput key={key} settingKey={key} />
        ))}
      </Box>
    );
  return (
    <Grid container spacing={2}>
      {PAYMENT_METHODS.map((method) => (
        <Grid key={method} size={{ xs: 12, md: 6 }}>
          <Card variant="outlined">
            <CardContent>
              <Typography component="h3" variant="subtitle1" gutterBottom>
                {translate(`console.settings.methods.${method}`)}
              </Typography>
              {(['displayName', 'enabled', 'feeBps'] as const).map((name) => {
                const key = `mobilemoney.${method}.${name}` as SettingKey;
                return <SettingInput key={key} settingKey={key} />;
              })}
            </CardContent>
          </Card>
        </Grid>
      ))}
    </Grid>
  );
}

/** One group of settings as a form: saving lists the changes, which apply once confirmed. */
export function SettingsGroupForm({
  group,
  values,
  saved,
}: {
  group: SettingsGroup;
  values: Settings[SettingsGroup];
  saved: (settings: Settings) => void;
}) {
  const translate = useTranslate();
  const notify = useNotify();
  const [pending, setPending] = useState<{ changes: SettingChange[]; done: (errors?: FieldErrors) => void }>();

  // The form stays submitting until the dialog closes; a refusal's errors go back to its inputs.
  function review(formValues: Record<string, unknown>): Promise<FieldErrors> | undefined {
    const changes = changesOf(group, values, formValues);
    if (changes.length === 0) {
      notify('console.settings.unchanged', { type: 'info' });
      return undefined;
    }
    return new Promise((resolve) =>
      setPending({
        changes,
        done: (errors) => {
          setPending(undefined);
          resolve(errors);
        },
      }),
    );
  }

  return (
    // Remounted with the values the API answers after a change, so the form starts clean again.
    <Form key={JSON.stringify(values)} record={values} onSubmit={review} resource="settings">
      <Inputs group={group} />
      <Toolbar sx={{ mt: 2 }}>
        <SaveButton label={translate('console.settings.review')} />
      </Toolbar>
      {pending && <ConfirmChanges group={group} changes={pending.changes} done={pending.done} saved={saved} />}
    </Form>
  );
}
