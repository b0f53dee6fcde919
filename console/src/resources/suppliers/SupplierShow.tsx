import {
  Alert,
  Link as MuiLink,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  TextField as MuiTextField,
  Typography,
} from '@mui/material';
import { useState } from 'react';
import { Link } from 'react-router-dom';
import {
  BooleanField,
  Datagrid,
  FunctionField,
  Pagination,
  ReferenceManyField,
  Show,
  TextField,
  useLocaleState,
  useRecordContext,
  useTranslate,
  type RaRecord,
} from 'react-admin';
import type { Schema } from '../../api';
import { DecisionButton } from '../../decisions';
import { Facts, PageHeading, Section } from '../../details';
import { StatusField, WhenField, formatBps, formatWhen } from '../../fields';
import { rejectSupplier, setCommission, verifySupplier } from './suppliers.api';

type Supplier = Schema<'AdminSupplierCommissionHistory'>;

/** "7,5" or "7.5" (%) as basis points; undefined unless 0 to 100 with at most two decimals. */
export function percentToBps(text: string): number | undefined {
  const value = text.trim().replace(',', '.');
  if (!/^\d{1,3}(\.\d{1,2})?$/.test(value)) return undefined;
  const bps = Math.round(Number(value) * 100);
  return bps <= 10_000 ? bps : undefined;
}

function VerificationActions({ supplier }: { supplier: Supplier }) {
  const translate = useTranslate();
  const t = (key: string, options?: object) => translate(`console.suppliers.${key}`, options);
  const name = supplier.businessName;
  const kycReady = supplier.kycStatus === 'APPROVED';
  return (
    <Stack direction="row" spacing={1}>
      {supplier.verificationStatus === 'PENDING' && (
        <DecisionButton
          label={t('verify')}
          title={t('verifyTitle', { name })}
          body={t('verifyBody')}
          reason={{ required: false }}
          color="success"
          disabled={!kycReady}
          action={(reason) => verifySupplier(supplier.id, reason)}
          done={t('verified')}
        />
      )}
      {supplier.verificationStatus !== 'REJECTED' && (
        <DecisionButton
          label={t(supplier.verificationStatus === 'VERIFIED' ? 'withdraw' : 'reject')}
          title={t(supplier.verificationStatus === 'VERIFIED' ? 'withdrawTitle' : 'rejectTitle', { name })}
          body={t(supplier.verificationStatus === 'VERIFIED' ? 'withdrawBody' : 'rejectBody')}
          reason={{ required: true, minLength: 3 }}
          color="error"
          variant="outlined"
          action={(reason) => rejectSupplier(supplier.id, reason!)}
          done={t('rejected')}
        />
      )}
    </Stack>
  );
}

function CommissionAction({ supplier }: { supplier: Supplier }) {
  const translate = useTranslate();
  const [locale] = useLocaleState();
  const t = (key: string, options?: object) => translate(`console.suppliers.${key}`, options);
  const [rate, setRate] = useState('');
  const bps = percentToBps(rate);
  const ready = bps !== undefined && bps !== supplier.commissionRateBps;
  return (
    <DecisionButton
      label={t('changeCommission')}
      title={t('commissionTitle', { name: supplier.businessName })}
      body={
        ready
          ? t('commissionBody', { from: formatBps(supplier.commissionRateBps, locale), to: formatBps(bps, locale) })
          : t('commissionAsk')
      }
      reason={{ required: false }}
      variant="outlined"
      ready={ready}
      action={(reason) => setCommission(supplier.id, bps!, reason)}
      done={t('commissionChanged')}
      onDone={() => setRate('')}
    >
      <MuiTextField
        label={t('newRate')}
        value={rate}
        onChange={(e) => setRate(e.target.value)}
        error={rate !== '' && bps === undefined}
        helperText={t('rateHelp')}
        required
        fullWidth
        margin="normal"
        slotProps={{ htmlInput: { inputMode: 'decimal' } }}
      />
    </DecisionButton>
  );
}

function CommissionHistory({ supplier }: { supplier: Supplier }) {
  const translate = useTranslate();
  const [locale] = useLocaleState();
  const t = (key: string) => translate(`console.suppliers.${key}`);
  // Until the supplier's own read answers, react-admin shows the list's row, which has no history.
  const history = supplier.commissionHistory ?? [];
  if (history.length === 0) return <Typography variant="body2">{t('noCommissionChange')}</Typography>;
  return (
    <Table size="small" aria-label={t('commissionHistory')}>
      <TableHead>
        <TableRow>
          <TableCell>{t('changedAt')}</TableCell>
          <TableCell>{t('fromRate')}</TableCell>
          <TableCell>{t('toRate')}</TableCell>
          <TableCell>{t('reason')}</TableCell>
        </TableRow>
      </TableHead>
      <TableBody>
        {history.map((c) => (
          <TableRow key={c.id}>
            <TableCell>{formatWhen(c.createdAt, locale)}</TableCell>
            <TableCell>{formatBps(c.oldRateBps, locale)}</TableCell>
            <TableCell>{formatBps(c.newRateBps, locale)}</TableCell>
            <TableCell>{c.reason ?? '—'}</TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}

function SupplierPage() {
  const supplier = useRecordContext<Supplier>();
  const translate = useTranslate();
  const [locale] = useLocaleState();
  if (!supplier) return null;
  const t = (key: string, options?: object) => translate(`console.suppliers.${key}`, options);
  const f = (name: string) => translate(`resources.suppliers.fields.${name}`);
  const when = (iso: string | null) => (iso ? formatWhen(iso, locale) : null);
  const live = supplier.deletedAt === null;
  const owner = supplier.owner;
  return (
    <>
      <PageHeading
        aside={
          <>
            <StatusField source="verificationStatus" prefix="verification" />
            <StatusField source="kycStatus" prefix="kycStatus" />
          </>
        }
      >
        {supplier.businessName}
      </PageHeading>
      {!live && (
        <Alert severity="warning" sx={{ mb: 2 }}>
          {t('deleted', { at: when(supplier.deletedAt) })}
        </Alert>
      )}

      <Section title={t('verification')} actions={live && <VerificationActions supplier={supplier} />}>
        {live && supplier.verificationStatus === 'PENDING' && supplier.kycStatus !== 'APPROVED' && (
          <Alert severity="info" sx={{ mb: 2 }}>
            {t('kycFirst')}
          </Alert>
        )}
        <Facts
          rows={[
            [f('verificationStatus'), translate(`console.verification.${supplier.verificationStatus}`)],
            [f('verifiedAt'), when(supplier.verifiedAt)],
            [f('rejectionReason'), supplier.rejectionReason],
            [f('kycStatus'), translate(`console.kycStatus.${supplier.kycStatus}`)],
          ]}
        />
      </Section>

      <Section title={t('business')}>
        <Facts
          rows={[
            [f('category'), translate(`console.supplierCategory.${supplier.category}`)],
            [f('description'), supplier.description],
            [f('address'), `${supplier.address}, ${supplier.city}`],
            [f('contactPhone'), supplier.contactPhone],
            [f('contactEmail'), supplier.contactEmail],
            [f('payoutPhone'), supplier.payoutPhone],
            [f('createdAt'), when(supplier.createdAt)],
          ]}
        />
      </Section>

      <Section title={t('ownerSection')}>
        <Facts
          rows={[
            [
              f('owner'),
              <MuiLink component={Link} to={`/users/${owner.id}/show`}>
                {[owner.firstName, owner.lastName].filter(Boolean).join(' ') || owner.id}
              </MuiLink>,
            ],
            [translate('resources.users.fields.phoneNumber'), owner.phoneNumber],
            [translate('resources.users.fields.email'), owner.email],
            [translate('resources.users.fields.status'), translate(`console.userStatus.${owner.status}`)],
          ]}
        />
      </Section>

      <Section title={t('commission')} actions={live && <CommissionAction supplier={supplier} />}>
        <Typography sx={{ mb: 1 }}>
          {t('currentRate', { rate: formatBps(supplier.commissionRateBps, locale) })}
        </Typography>
        <CommissionHistory supplier={supplier} />
      </Section>

      {live && (
        <Section title={t('stores')}>
          <ReferenceManyField
            reference="supplier-stores"
            target="supplierId"
            perPage={10}
            pagination={<Pagination />}
            empty={<Typography variant="body2">{t('noStore')}</Typography>}
          >
            <Datagrid bulkActionButtons={false} rowClick={false}>
              <TextField source="name" sortable={false} />
              <FunctionField
                source="address"
                sortable={false}
                render={(s: Schema<'Store'>) => `${s.address}, ${s.city}`}
              />
              <TextField source="phone" sortable={false} emptyText="—" />
              <BooleanField source="isActive" sortable={false} />
              <WhenField source="createdAt" sortable={false} />
            </Datagrid>
          </ReferenceManyField>
        </Section>
      )}

      <Section title={t('kycAttempts')}>
        <ReferenceManyField
          reference="kyc-attempts"
          target="supplierId"
          perPage={5}
          pagination={<Pagination />}
          empty={<Typography variant="body2">{t('noKyc')}</Typography>}
        >
          <Datagrid bulkActionButtons={false} rowClick={(id: RaRecord['id']) => `/kyc-attempts/${id}/show`}>
            <StatusField source="status" prefix="kycAttempt" sortable={false} />
            <WhenField source="submittedAt" sortable={false} />
            <WhenField source="reviewedAt" sortable={false} />
            <TextField source="reviewReason" sortable={false} emptyText="—" />
          </Datagrid>
        </ReferenceManyField>
      </Section>
    </>
  );
}

export default function SupplierShow() {
  return (
    <Show actions={false} component="div">
      <SupplierPage />
    </Show>
  );
}
