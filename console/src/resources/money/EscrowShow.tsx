import { Box, Chip, Grid, Link as MuiLink, Typography } from '@mui/material';
import { Link } from 'react-router-dom';
import { Loading, ShowBase, Title, useRecordContext } from 'react-admin';
import type { Schema } from '../../api';
import { EscrowActions } from './EscrowActions';
import { Facts, History, Ledger, Payments, Payouts, Section, useWords } from './EscrowSections';

type Detail = Schema<'EscrowDetail'> & { id: string };
type Row = [string, string];

const filtered = (filter: Record<string, string>) => `/escrows?filter=${encodeURIComponent(JSON.stringify(filter))}`;

function EscrowPage() {
  const detail = useRecordContext<Detail>();
  const { t, word, money, when, percent } = useWords();
  // The list's row of this escrow (react-admin keeps it as a first guess) has no detail yet: wait for it.
  if (!detail?.escrow) return <Loading />;
  const e = detail.escrow;
  const o = e.order;
  const title = t('title', { id: e.orderId });
  return (
    <Box component="main" sx={{ py: 1 }}>
      <Title title={title} />
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 2, my: 1, flexWrap: 'wrap' }}>
        <Typography component="h1" variant="h5">
          {title}
        </Typography>
        <Chip
          label={word('escrowState', e.state)}
          color={e.state === 'DISPUTED' ? 'warning' : 'default'}
          data-escrow-state={e.state}
        />
        <Typography variant="h6" component="p">
          {money(e.amount, e.currency)}
        </Typography>
      </Box>
      <Grid container spacing={2}>
        <Grid size={12}>
          <Section title={t('actions')}>
            <EscrowActions escrow={e} />
          </Section>
        </Grid>
        <Grid size={{ xs: 12, md: 6 }}>
          <Section title={t('order')}>
            <Facts
              rows={[
                [t('status'), word('orderStatus', o.status)],
                [t('client'), `${o.client.firstName} ${o.client.lastName}`],
                [
                  t('supplier'),
                  <MuiLink
                    key="s"
                    component={Link}
                    to={filtered({ supplierId: o.supplier.id })}
                    title={t('otherOfSupplier')}
                  >
                    {o.supplier.businessName}
                  </MuiLink>,
                ],
                [
                  t('store'),
                  <MuiLink key="st" component={Link} to={filtered({ storeId: o.store.id })} title={t('otherOfStore')}>
                    {o.store.name}
                  </MuiLink>,
                ],
                [t('createdAt'), when(o.createdAt)],
                [t('completedAt'), when(o.completedAt)],
                // What is due while the money is held; what happened once it left.
                ...(e.releasedAt ? [[t('releasedAt'), when(e.releasedAt)] as Row] : []),
                ...(e.refundedAt ? [[t('refundedAt'), when(e.refundedAt)] as Row] : []),
                ...(e.state === 'HELD' ? [[t('releaseAfter'), when(e.releaseAfter)] as Row] : []),
                ...(e.dispute ? [[t('dispute'), e.dispute.reason ?? '—'] as Row] : []),
                ...(e.refundReason ? [[t('refundReason'), e.refundReason] as Row] : []),
              ]}
            />
          </Section>
        </Grid>
        <Grid size={{ xs: 12, md: 6 }}>
          <Section title={t('amounts')}>
            <Facts
              rows={[
                [t('amount'), money(e.amount, e.currency)],
                [t('rate'), percent(e.commissionBps)],
                [t('commission'), money(e.commission, e.currency)],
                [t('net'), money(e.net, e.currency)],
              ]}
            />
          </Section>
        </Grid>
        <Grid size={12}>
          <Section title={t('payout')}>
            <Payouts detail={detail} />
          </Section>
        </Grid>
        <Grid size={12}>
          <Section title={t('history')}>
            <History detail={detail} />
          </Section>
        </Grid>
        <Grid size={12}>
          <Section title={t('ledger')}>
            <Ledger detail={detail} />
          </Section>
        </Grid>
        <Grid size={12}>
          <Section title={t('payments')}>
            <Payments detail={detail} />
          </Section>
        </Grid>
      </Grid>
    </Box>
  );
}

export default function EscrowShow() {
  return (
    <ShowBase>
      <EscrowPage />
    </ShowBase>
  );
}
