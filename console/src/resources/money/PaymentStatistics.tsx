import {
  Alert,
  Box,
  Card,
  CardContent,
  CardHeader,
  Grid,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { Loading, Title, useLocaleState, useTranslate } from 'react-admin';
import { api, unwrap } from '../../api';
import { BarChart } from '../../dashboard/BarChart';
import { formatMoney } from '../../fields';
import { RangeControls, useRange } from './range';

function Panel({ title, children, wide }: { title: string; children: React.ReactNode; wide?: boolean }) {
  return (
    <Grid size={{ xs: 12, lg: wide ? 12 : 6 }}>
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
    </Grid>
  );
}

/** Payment attempts of a range: totals, by status, by method and per period (count and volume, paid part). */
export default function PaymentStatistics() {
  const translate = useTranslate();
  const [locale] = useLocaleState();
  const range = useRange('period');
  const stats = useQuery({
    queryKey: ['payment-statistics', range.query, range.unit],
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/admin/payments/statistics', { params: { query: { ...range.query, period: range.unit } } }),
      ),
  });
  const t = (k: string) => translate(`console.money.statistics.${k}`);
  const word = (prefix: string, v: string) => translate(`console.money.${prefix}.${v}`, { _: v });
  const count = (n: number) => new Intl.NumberFormat(locale === 'en' ? 'en-GB' : 'fr-SN').format(n);
  const s = stats.data;
  const money = (n: number) => formatMoney(n, s?.currency ?? 'XOF', locale);
  const head = (cells: string[]) => (
    <TableHead>
      <TableRow>
        {cells.map((c) => (
          <TableCell key={c} align={c === cells[0] ? 'left' : 'right'}>
            {c}
          </TableCell>
        ))}
      </TableRow>
    </TableHead>
  );
  return (
    <Box component="main" sx={{ py: 1 }}>
      <Title title={t('title')} />
      <Typography component="h1" variant="h5" sx={{ my: 1 }}>
        {t('title')}
      </Typography>
      <RangeControls range={range} unitLabel={translate('console.money.periodUnit')} />
      {stats.error && <Alert severity="error">{stats.error.message}</Alert>}
      {!s && !stats.error && <Loading />}
      {s && (
        <Grid container spacing={2}>
          <Panel title={t('totals')}>
            <Typography variant="h4" component="p" data-total-count>
              {count(s.totals.count)}
            </Typography>
            <Typography variant="body1">{`${t('volume')} : ${money(s.totals.volume)}`}</Typography>
          </Panel>
          <Panel title={t('byStatus')}>
            <Table size="small" aria-label={t('byStatus')}>
              {head([t('status'), t('count'), t('volume')])}
              <TableBody>
                {s.byStatus.map((r) => (
                  <TableRow key={r.status}>
                    <TableCell>{word('paymentStatus', r.status)}</TableCell>
                    <TableCell align="right">{count(r.count)}</TableCell>
                    <TableCell align="right">{money(r.volume)}</TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </Panel>
          <Panel title={t('byMethod')} wide>
            <Table size="small" aria-label={t('byMethod')}>
              {head([t('method'), t('count'), t('volume'), t('succeededCount'), t('succeededVolume')])}
              <TableBody>
                {s.byMethod.map((r) => (
                  <TableRow key={r.method}>
                    <TableCell>{word('paymentMethod', r.method)}</TableCell>
                    <TableCell align="right">{count(r.count)}</TableCell>
                    <TableCell align="right">{money(r.volume)}</TableCell>
                    <TableCell align="right">{count(r.succeeded.count)}</TableCell>
                    <TableCell align="right">{money(r.succeeded.volume)}</TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </Panel>
          <Panel title={t('countChart')}>
            <BarChart
              title={t('countChart')}
              labels={s.perPeriod.map((p) => p.period)}
              series={[
                { name: t('count'), values: s.perPeriod.map((p) => p.count) },
                { name: t('succeededCount'), values: s.perPeriod.map((p) => p.succeeded.count) },
              ]}
              format={count}
            />
          </Panel>
          <Panel title={t('volumeChart')}>
            <BarChart
              title={t('volumeChart')}
              labels={s.perPeriod.map((p) => p.period)}
              series={[
                { name: t('volume'), values: s.perPeriod.map((p) => p.volume) },
                { name: t('succeededVolume'), values: s.perPeriod.map((p) => p.succeeded.volume) },
              ]}
              format={money}
            />
          </Panel>
        </Grid>
      )}
    </Box>
  );
}
