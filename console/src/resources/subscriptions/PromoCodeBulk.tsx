import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import DownloadIcon from '@mui/icons-material/Download';
import { Alert, Box, Button, Card, CardContent, Stack, Typography } from '@mui/material';
import { useState } from 'react';
import { Link } from 'react-router-dom';
import {
  Form,
  NumberInput,
  SaveButton,
  TextInput,
  Title,
  maxValue,
  minValue,
  regex,
  required,
  useNotify,
  useTranslate,
} from 'react-admin';
import { batchPath, PROMO_DEFAULTS, PromoFields } from './PromoFields';
import { createPromoBatch } from './subscriptions.api';

type Batch = Awaited<ReturnType<typeof createPromoBatch>>;

/** The codes of a batch as a file of one code a line, under the batch's id. */
function download(batch: Batch) {
  const url = URL.createObjectURL(new Blob([`code\n${batch.codes.join('\n')}\n`], { type: 'text/csv' }));
  const link = Object.assign(document.createElement('a'), { href: url, download: `promo-codes-${batch.batchId}.csv` });
  document.body.append(link);
  link.click();
  link.remove();
  // Revoked later: the download reads the address after the click returns.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

function BatchCreated({ batch, again }: { batch: Batch; again: () => void }) {
  const translate = useTranslate();
  const notify = useNotify();
  const copy = () =>
    navigator.clipboard.writeText(batch.codes.join('\n')).then(
      () => notify('console.promoCodes.bulk.copied', { type: 'success' }),
      () => notify('console.promoCodes.bulk.copyFailed', { type: 'error' }),
    );
  return (
    <Card>
      <CardContent>
        <Typography component="h2" variant="h6" gutterBottom>
          {translate('console.promoCodes.bulk.created', { smart_count: batch.count })}
        </Typography>
        <Typography variant="body2" gutterBottom>
          {translate('console.promoCodes.bulk.batch', { id: batch.batchId })}
        </Typography>
        <Stack direction="row" spacing={1} sx={{ my: 2 }}>
          <Button variant="contained" startIcon={<ContentCopyIcon />} onClick={copy}>
            {translate('console.promoCodes.bulk.copy')}
          </Button>
          <Button variant="outlined" startIcon={<DownloadIcon />} onClick={() => download(batch)}>
            {translate('console.promoCodes.bulk.download')}
          </Button>
          <Button component={Link} to={batchPath(batch.batchId)}>
            {translate('console.promoCodes.bulk.see')}
          </Button>
          <Button onClick={again}>{translate('console.promoCodes.bulk.again')}</Button>
        </Stack>
        <Box
          component="ol"
          aria-label={translate('console.promoCodes.bulk.codes')}
          sx={{ fontFamily: 'monospace', columns: '14em', m: 0, pl: 4, maxHeight: 420, overflow: 'auto' }}
        >
          {batch.codes.map((code) => (
            <li key={code}>{code}</li>
          ))}
        </Box>
      </CardContent>
    </Card>
  );
}

/** Many unguessable codes at once (`POST .../promo-codes/bulk`), then the codes to copy or download. */
export default function PromoCodeBulk() {
  const translate = useTranslate();
  const notify = useNotify();
  const [batch, setBatch] = useState<Batch>();

  async function submit(values: Record<string, unknown>) {
    try {
      setBatch(await createPromoBatch(values));
    } catch (err) {
      const fieldErrors = (err as { body?: { errors?: Record<string, string> } }).body?.errors;
      if (fieldErrors) return fieldErrors;
      notify(err instanceof Error ? err.message : 'ra.notification.http_error', { type: 'error' });
    }
  }

  return (
    <Box sx={{ mt: 2 }}>
      <Title title={translate('console.promoCodes.bulk.title')} />
      <Typography component="h1" variant="h5" gutterBottom>
        {translate('console.promoCodes.bulk.title')}
      </Typography>
      {batch ? (
        <BatchCreated batch={batch} again={() => setBatch(undefined)} />
      ) : (
        <Card>
          <CardContent>
            <Alert severity="info" sx={{ mb: 2 }}>
              {translate('console.promoCodes.bulk.intro')}
            </Alert>
            <Form record={{ ...PROMO_DEFAULTS, count: 10 }} onSubmit={submit} resource="promo-codes">
              <Stack sx={{ maxWidth: 720 }}>
                <NumberInput source="count" validate={[required(), minValue(1), maxValue(1000)]} />
                <TextInput
                  source="prefix"
                  validate={regex(/^[A-Za-z0-9]{1,12}$/, 'console.promoCodes.help.prefix')}
                  helperText={translate('console.promoCodes.help.prefix')}
                />
                <PromoFields />
                <Box>
                  <SaveButton label="console.promoCodes.bulk.submit" alwaysEnable />
                </Box>
              </Stack>
            </Form>
          </CardContent>
        </Card>
      )}
    </Box>
  );
}
