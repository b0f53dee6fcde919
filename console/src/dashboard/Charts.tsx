import { Card, CardContent, CardHeader, Grid, Typography } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { Loading, useLocaleState, useTranslate } from 'react-admin';
import { api, json, unwrap } from '../api';
import { formatMoney } from '../fields';
import { BarChart } from './BarChart';

export interface Window {
  from: string;
  to: string;
}

function ChartCard({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <Grid size={{ xs: 12, lg: 6 }}>
      <Card>
        <CardHeader
          title={
            <Typography component="h2" variant="h6">
              {title}
            </Typography>
          }
        />
        <CardContent>{children}</CardContent>
      </Card>
    </Grid>
  );
}

/** The dashboard's charts, loaded after its figures: orders and money, user growth, impact. */
export default function Charts({ window }: { window: Window }) {
  const translate = useTranslate();
  const [locale] = useLocaleState();
  const query = { from: window.from, to: window.to };
  const money = useQuery({
    queryKey: ['dashboard', 'financial', query],
    queryFn: async () =>
      json(
        await unwrap(api.GET('/api/v1/admin/reports/financial', { params: { query: { ...query, groupBy: 'day' } } })),
      ),
  });
  const payments = useQuery({
    queryKey: ['dashboard', 'payments', query],
    queryFn: () =>
      unwrap(api.GET('/api/v1/admin/payments/statistics', { params: { query: { ...query, period: 'day' } } })),
  });
  const growth = useQuery({
    queryKey: ['dashboard', 'growth', query],
    queryFn: () =>
      unwrap(api.GET('/api/v1/admin/analytics/user-growth', { params: { query: { ...query, groupBy: 'day' } } })),
  });
  const impact = useQuery({
    queryKey: ['dashboard', 'impact', query],
    queryFn: () =>
      unwrap(api.GET('/api/v1/admin/dashboard/impact', { params: { query: { ...query, groupBy: 'day' } } })),
  });
  if (!money.data || !payments.data || !growth.data || !impact.data) return <Loading />;

  const number = (n: number) =>
    new Intl.NumberFormat(locale === 'en' ? 'en-GB' : 'fr-SN', { maximumFractionDigits: 1 }).format(n);
  const xof = (n: number) => formatMoney(n, money.data.currency, locale);
  const t = (key: string) => translate(`console.dashboard.${key}`);
  return (
    <Grid container spacing={2} sx={{ mt: 1 }}>
      <ChartCard title={t('ordersPerDay')}>
        <BarChart
          title={t('ordersPerDay')}
          labels={payments.data.perPeriod.map((p) => p.period)}
          series={[{ name: t('paidPayments'), values: payments.data.perPeriod.map((p) => p.succeeded.count) }]}
          format={number}
        />
      </ChartCard>
      <ChartCard title={t('moneyPerDay')}>
        <BarChart
          title={t('moneyPerDay')}
          labels={money.data.periods.map((p) => p.period)}
          series={[
            { name: t('gmv'), values: money.data.periods.map((p) => p.gmv) },
            { name: t('commission'), values: money.data.periods.map((p) => p.commission) },
            { name: t('refunds'), values: money.data.periods.map((p) => p.refunds) },
          ]}
          format={xof}
        />
      </ChartCard>
      <ChartCard title={t('userGrowth')}>
        <BarChart
          title={t('userGrowth')}
          labels={growth.data.periods.map((p) => p.period)}
          series={[{ name: t('newUsers'), values: growth.data.periods.map((p) => p.total) }]}
          format={number}
        />
      </ChartCard>
      <ChartCard title={t('impact')}>
        <BarChart
          title={t('impact')}
          labels={impact.data.periods.map((p) => p.period)}
          series={[
            { name: t('foodKg'), values: impact.data.periods.map((p) => p.foodKg) },
            { name: t('meals'), values: impact.data.periods.map((p) => p.meals) },
            { name: t('co2eKg'), values: impact.data.periods.map((p) => p.co2eKg) },
          ]}
          format={number}
        />
        <Typography variant="body2" data-impact-totals>
          {`${t('foodKg')} : ${number(impact.data.totals.foodKg)} · ${t('meals')} : ${number(impact.data.totals.meals)} · ${t('co2eKg')} : ${number(impact.data.totals.co2eKg)}`}
        </Typography>
      </ChartCard>
    </Grid>
  );
}
