import OpenInNewIcon from '@mui/icons-material/OpenInNew';
import {
  Alert,
  Box,
  Button,
  Grid,
  Link as MuiLink,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';
import { useEffect } from 'react';
import { Link } from 'react-router-dom';
import { Show, useLocaleState, useRecordContext, useRefresh, useTranslate } from 'react-admin';
import type { Schema } from '../../api';
import { DecisionButton } from '../../decisions';
import { Facts, PageHeading, Section } from '../../details';
import { StatusField, formatWhen } from '../../fields';
import { requestResubmission, reviewAttempt } from './kyc.api';

type Attempt = Schema<'KycAttemptDetail'>;
type Document = Attempt['documents'][number];

// Read the attempt again this long before its document links expire, so they always open.
const RENEW_BEFORE_MS = 30_000;

/** The signed links live 5 minutes: the page reads fresh ones before they expire. */
function useFreshLinks(attempt: Attempt | undefined) {
  const refresh = useRefresh();
  useEffect(() => {
    const first = attempt?.documents?.map((d) => Date.parse(d.expiresAt)).sort((a, b) => a - b)[0];
    if (first === undefined) return;
    const timer = setTimeout(refresh, Math.max(first - Date.now() - RENEW_BEFORE_MS, 5_000));
    return () => clearTimeout(timer);
  }, [attempt, refresh]);
}

function DocumentView({ doc, owner }: { doc: Document; owner: string }) {
  const translate = useTranslate();
  const kind = translate(`console.kycDocument.${doc.kind}`);
  const size = translate('console.kyc.size', { kb: Math.max(1, Math.round(doc.sizeBytes / 1024)) });
  return (
    <Box component="figure" sx={{ m: 0 }}>
      <Typography component="h3" variant="subtitle1">
        {kind}
      </Typography>
      {doc.contentType.startsWith('image/') ? (
        <MuiLink
          href={doc.url}
          target="_blank"
          rel="noopener noreferrer"
          aria-label={translate('console.kyc.openImage', { kind })}
        >
          <Box
            component="img"
            src={doc.url}
            alt={translate('console.kyc.documentAlt', { kind, name: owner })}
            sx={{
              display: 'block',
              maxWidth: '100%',
              maxHeight: 420,
              border: 1,
              borderColor: 'divider',
              borderRadius: 1,
            }}
          />
        </MuiLink>
      ) : (
        <Button variant="outlined" href={doc.url} target="_blank" rel="noopener noreferrer" endIcon={<OpenInNewIcon />}>
          {translate('console.kyc.openPdf', { kind })}
        </Button>
      )}
      <Typography component="figcaption" variant="caption" color="text.secondary" sx={{ display: 'block', mt: 0.5 }}>
        {doc.contentType} · {size} · SHA-256 {doc.sha256.slice(0, 12)}…
      </Typography>
    </Box>
  );
}

function Decisions({ attempt }: { attempt: Attempt }) {
  const translate = useTranslate();
  const t = (key: string, options?: object) => translate(`console.kyc.${key}`, options);
  const name = attempt.supplier?.businessName ?? attempt.supplierId;
  const pending = attempt.status === 'PENDING';
  const mayResubmit = pending || (attempt.status === 'APPROVED' && attempt.supplier?.kycStatus === 'APPROVED');
  if (!attempt.supplier) return null;
  return (
    <Stack direction="row" spacing={1} useFlexGap sx={{ flexWrap: 'wrap' }}>
      {pending && (
        <DecisionButton
          label={t('approve')}
          title={t('approveTitle', { name })}
          body={t('approveBody')}
          reason={{ required: false }}
          color="success"
          action={(reason) => reviewAttempt(attempt.id, 'APPROVE', reason)}
          done={t('approved')}
        />
      )}
      {pending && (
        <DecisionButton
          label={t('reject')}
          title={t('rejectTitle', { name })}
          body={t('rejectBody')}
          reason={{ required: true, minLength: 1 }}
          color="error"
          action={(reason) => reviewAttempt(attempt.id, 'REJECT', reason)}
          done={t('rejected')}
        />
      )}
      {mayResubmit && (
        <DecisionButton
          label={t('resubmit')}
          title={t('resubmitTitle', { name })}
          body={t('resubmitBody')}
          reason={{ required: true, minLength: 1 }}
          variant="outlined"
          action={(reason) => requestResubmission(attempt.supplierId, reason!)}
          done={t('resubmissionRequested')}
        />
      )}
    </Stack>
  );
}

function History({ attempt }: { attempt: Attempt }) {
  const translate = useTranslate();
  const [locale] = useLocaleState();
  const t = (key: string) => translate(`console.kyc.${key}`);
  const history = attempt.history ?? [];
  if (history.length === 0) return <Typography variant="body2">{t('noDecision')}</Typography>;
  const state = (s: string | null) => (s ? translate(`console.kycAttempt.${s}`, { _: s }) : '—');
  return (
    <Table size="small" aria-label={t('history')}>
      <TableHead>
        <TableRow>
          <TableCell>{t('decidedAt')}</TableCell>
          <TableCell>{t('decision')}</TableCell>
          <TableCell>{t('change')}</TableCell>
          <TableCell>{t('reason')}</TableCell>
        </TableRow>
      </TableHead>
      <TableBody>
        {history.map((d) => (
          <TableRow key={`${d.action}-${d.at}`}>
            <TableCell>{formatWhen(d.at, locale)}</TableCell>
            <TableCell>{translate(`console.kycAction.${d.action}`, { _: d.action })}</TableCell>
            <TableCell>{`${state(d.from)} → ${state(d.to)}`}</TableCell>
            <TableCell>{d.reason ?? '—'}</TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}

function AttemptPage() {
  const attempt = useRecordContext<Attempt>();
  const translate = useTranslate();
  const [locale] = useLocaleState();
  useFreshLinks(attempt);
  if (!attempt) return null;
  const t = (key: string, options?: object) => translate(`console.kyc.${key}`, options);
  const f = (name: string) => translate(`resources.kyc-attempts.fields.${name}`);
  // Until the attempt's own read answers, react-admin shows the list's row: no documents nor history yet.
  const supplier = attempt.supplier;
  const name = supplier?.businessName ?? attempt.supplierId;
  const readyToVerify = supplier?.kycStatus === 'APPROVED' && supplier.verificationStatus === 'PENDING';
  return (
    <>
      <PageHeading aside={<StatusField source="status" prefix="kycAttempt" />}>{t('heading', { name })}</PageHeading>
      {!supplier && (
        <Alert severity="warning" sx={{ mb: 2 }}>
          {t('supplierGone')}
        </Alert>
      )}
      {readyToVerify && (
        <Alert severity="success" sx={{ mb: 2 }}>
          {t('readyToVerify')}{' '}
          <MuiLink component={Link} to={`/suppliers/${attempt.supplierId}/show`}>
            {t('openSupplier')}
          </MuiLink>
        </Alert>
      )}

      <Section title={t('submission')} actions={<Decisions attempt={attempt} />}>
        <Facts
          rows={[
            [
              f('supplier'),
              <MuiLink component={Link} to={`/suppliers/${attempt.supplierId}/show`}>
                {name}
              </MuiLink>,
            ],
            [
              t('supplierState'),
              supplier
                ? `${translate(`console.verification.${supplier.verificationStatus}`)} · KYC ${translate(`console.kycStatus.${supplier.kycStatus}`)}`
                : null,
            ],
            [f('documentType'), attempt.documentType ? translate(`console.idDocument.${attempt.documentType}`) : null],
            [f('businessRegistrationNumber'), attempt.businessRegistrationNumber],
            [f('submittedAt'), formatWhen(attempt.submittedAt, locale)],
            [f('reviewedAt'), attempt.reviewedAt ? formatWhen(attempt.reviewedAt, locale) : null],
            [f('reviewReason'), attempt.reviewReason],
          ]}
        />
      </Section>

      <Section title={t('documents')}>
        <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
          {t('linksNote')}
        </Typography>
        <Grid container spacing={3}>
          {(attempt.documents ?? []).map((doc) => (
            <Grid key={doc.kind} size={{ xs: 12, md: 6 }}>
              <DocumentView doc={doc} owner={name} />
            </Grid>
          ))}
        </Grid>
      </Section>

      <Section title={t('history')}>
        <History attempt={attempt} />
      </Section>
    </>
  );
}

export default function KycAttemptShow() {
  return (
    <Show actions={false} component="div">
      <AttemptPage />
    </Show>
  );
}
