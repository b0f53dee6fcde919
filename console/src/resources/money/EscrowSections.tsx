import {
  Card,
  CardContent,
  CardHeader,
  Chip,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';
import type { ReactNode } from 'react';
import { useLocaleState, useTranslate } from 'react-admin';
import type { Schema } from '../../api';
import { formatMoney, formatWhen } from '../../fields';

type Detail = Schema<'EscrowDetail'>;

export function useWords() {
  const translate = useTranslate();
  const [locale] = useLocaleState();
  return {
    t: (key: string, options?: object) => translate(`console.money.escrow.${key}`, options),
    word: (prefix: string, value: string) => translate(`console.money.${prefix}.${value}`, { _: value }),
    money: (n: number, currency: string) => formatMoney(n, currency, locale),
    when: (iso: string | null | undefined) => (iso ? formatWhen(iso, locale) : '—'),
    percent: (bps: number) =>
      new Intl.NumberFormat(locale === 'en' ? 'en-GB' : 'fr-SN', { style: 'percent', maximumFractionDigits: 2 }).format(
        bps / 10_000,
      ),
  };
}

export function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Card component="section" sx={{ height: '100%' }}>
      <CardHeader
        title={
          <Typography component="h2" variant="h6">
            {title}
          </Typography>
        }
      />
      <CardContent sx={{ pt: 0 }}>{children}</CardContent>
    </Card>
  );
}

/** Labelled values as a description list. */
export function Facts({ rows }: { rows: [string, ReactNode][] }) {
  return (
    <dl style={{ margin: 0, display: 'grid', gridTemplateColumns: 'max-content 1fr', gap: '6px 16px' }}>
      {rows.map(([label, value]) => (
        <div key={label} style={{ display: 'contents' }}>
          <Typography component="dt" variant="body2" color="text.secondary">
            {label}
          </Typography>
          <Typography component="dd" variant="body2" sx={{ m: 0 }}>
            {value}
          </Typography>
        </div>
      ))}
    </dl>
  );
}

function Grid({ head, rows, label }: { head: string[]; rows: ReactNode[][]; label: string }) {
  return (
    <Table size="small" aria-label={label}>
      <TableHead>
        <TableRow>
          {head.map((h) => (
            <TableCell key={h}>{h}</TableCell>
          ))}
        </TableRow>
      </TableHead>
      <TableBody>
        {rows.map((cells, i) => (
          <TableRow key={i}>
            {cells.map((c, k) => (
              <TableCell key={k}>{c}</TableCell>
            ))}
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}

/** The escrow's story, oldest first: its own times, payments, the provider's events and the administrators' decisions. */
export function History({ detail }: { detail: Detail }) {
  const { t, word, when } = useWords();
  const e = detail.escrow;
  const events: { at: string; what: string; detail?: string | null }[] = [{ at: e.heldAt, what: t('event.held') }];
  if (e.dispute?.openedAt)
    events.push({ at: e.dispute.openedAt, what: t('event.disputeOpened'), detail: e.dispute.reason });
  if (e.dispute?.resolvedAt) events.push({ at: e.dispute.resolvedAt, what: t('event.disputeResolved') });
  if (e.releasedAt) events.push({ at: e.releasedAt, what: t('event.released') });
  if (e.refundedAt) events.push({ at: e.refundedAt, what: t('event.refunded'), detail: e.refundReason });
  for (const p of detail.providerEvents)
    events.push({ at: p.receivedAt, what: t('event.provider', { type: p.type, outcome: p.outcome }) });
  for (const a of detail.audit) {
    events.push({
      at: a.at,
      what: t('event.admin', { action: t(`audit.${a.action.replace(/^escrow\./, '')}`, { _: a.action }) }),
      detail: a.reason,
    });
  }
  for (const p of detail.payments) {
    if (p.refundFailedAt)
      events.push({ at: p.refundFailedAt, what: word('paymentStatus', p.status), detail: p.refundFailureReason });
  }
  events.sort((a, b) => a.at.localeCompare(b.at));
  return (
    <Grid
      label={t('history')}
      head={[t('when'), t('what'), t('detail')]}
      rows={events.map((x) => [when(x.at), x.what, x.detail ?? ''])}
    />
  );
}

/** Each ledger transaction of the order, its payments and payouts: one row per line, debit or credit. */
export function Ledger({ detail }: { detail: Detail }) {
  const { t, money, when } = useWords();
  const rows = detail.ledger.flatMap((x) =>
    x.lines.map((l, i) => [
      i === 0 ? when(x.createdAt) : '',
      i === 0 ? t(`ledgerKind.${x.kind}`, { _: x.kind }) : '',
      <code key="a">{l.account}</code>,
      l.amount > 0 ? money(l.amount, x.currency) : '',
      l.amount < 0 ? money(-l.amount, x.currency) : '',
    ]),
  );
  return <Grid label={t('ledger')} head={[t('when'), t('kind'), t('account'), t('debit'), t('credit')]} rows={rows} />;
}

export function Payouts({ detail }: { detail: Detail }) {
  const { t, word, money, when } = useWords();
  if (!detail.payouts.length) return <Typography variant="body2">{t('noPayout')}</Typography>;
  const rows = detail.payouts.map((p) => [
    <Chip key="s" size="small" label={word('payoutState', p.state)} />,
    money(p.amount, p.currency),
    p.mobile ?? (p.waitingReason ? t('waitingNumber') : '—'),
    p.attempts,
    when(p.sentAt),
    when(p.succeededAt ?? p.failedAt),
    p.lastError ?? '',
  ]);
  return (
    <Grid
      label={t('payout')}
      head={[t('state'), t('amount'), t('mobile'), t('attempts'), t('sentAt'), t('settledAt'), t('lastError')]}
      rows={rows}
    />
  );
}

export function Payments({ detail }: { detail: Detail }) {
  const { t, word, money, when } = useWords();
  const rows = detail.payments.map((p) => [
    p.attempt,
    word('paymentMethod', p.method),
    word('paymentStatus', p.status),
    money(p.amount, p.currency),
    when(p.paidAt),
    when(p.refundedAt),
  ]);
  return (
    <Grid
      label={t('payments')}
      head={[t('attempt'), t('method'), t('state'), t('amount'), t('paidAt'), t('refundedAt')]}
      rows={rows}
    />
  );
}
