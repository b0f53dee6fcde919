import { Box, Card, CardActionArea, CardContent, Grid, MenuItem, TextField, Typography } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useMemo, useState } from 'react';
import { Link } from 'react-router-dom';
import { Loading, Title, useLocaleState, useTranslate } from 'react-admin';
import { api, unwrap } from '../api';
import { formatMoney } from '../fields';

// Fetched as soon as the dashboard's own code runs, while its figures are asked for: not after them.
const chartsChunk = import('./Charts');
const Charts = lazy(() => chartsChunk);

/** Each moderation queue of the figures, and the console page that works it. */
const QUEUES: Record<string, string> = {
  products: '/moderation-products',
  deals: '/moderation-deals',
  campaigns: '/moderation-campaigns',
  reportedReviews: '/reported-reviews',
  kyc: '/kyc-attempts',
  suppliers: '/suppliers-pending',
  associations: '/associations-pending',
};

const DAY = 86_400_000;
type Figures = Record<string, number | Record<string, number | Record<string, number>>>;

// Amounts need room ("1 200 000 F CFA" never wraps): one figure a line on a phone, four on a laptop;
// the queues' counts, short, share a line.
const FIGURE_SIZE = { xs: 12, sm: 6, md: 3 } as const;
const QUEUE_SIZE = { xs: 6, md: 3, lg: 'grow' } as const;

function Figure({
  label,
  value,
  to,
  size = FIGURE_SIZE,
}: {
  label: string;
  value: string;
  to?: string;
  size?: typeof FIGURE_SIZE | typeof QUEUE_SIZE;
}) {
  const body = (
    <CardContent>
      <Typography variant="body2" color="text.secondary">
        {label}
      </Typography>
      <Typography variant="h5" component="p">
        {value}
      </Typography>
    </CardContent>
  );
  return (
    <Grid size={size}>
      <Card sx={{ height: '100%' }}>
        {to ? (
          <CardActionArea component={Link} to={to}>
            {body}
          </CardActionArea>
        ) : (
          body
        )}
      </Card>
    </Grid>
  );
}

/** The headline figures and the moderation queues, from one cached call. */
function Headline() {
  const translate = useTranslate();
  const [locale] = useLocaleState();
  const stats = useQuery({
    queryKey: ['dashboard', 'stats'],
    queryFn: () => unwrap(api.GET('/api/v1/admin/dashboard/stats')),
  });
  if (!stats.data) return <Loading />;

  const s = stats.data.sections as Record<string, Figures>;
  const t = (key: string) => translate(`console.dashboard.${key}`);
  const count = (n: unknown) => new Intl.NumberFormat(locale === 'en' ? 'en-GB' : 'fr-SN').format(Number(n ?? 0));
  const money = (n: unknown) => formatMoney(Number(n ?? 0), stats.data.currency, locale);
  const orders30 = (s.orders?.last30Days ?? {}) as Record<string, number>;
  const queues = (s.moderation ?? {}) as Record<string, number>;
  return (
    <>
      <Grid container spacing={2}>
        <Figure label={t('users')} value={count(s.users?.total)} to="/users" />
        <Figure label={t('activeProducts')} value={count((s.catalog as Record<string, number>)?.activeProducts)} />
        <Figure label={t('orders30')} value={count(orders30.placed)} />
        <Figure label={t('gmv30')} value={money(orders30.gmv)} />
        <Figure label={t('commission30')} value={money((s.money?.commission as Record<string, number>)?.last30Days)} />
        <Figure
          label={t('advertising30')}
          value={money((s.money?.advertising as Record<string, number>)?.last30Days)}
        />
        <Figure label={t('escrowHeld')} value={money(s.money?.escrowHeld)} />
      </Grid>
      <Typography component="h2" variant="h6" sx={{ mt: 3, mb: 1 }}>
        {t('queues')}
      </Typography>
      <Grid container spacing={2} component="nav" aria-label={t('queues')}>
        {Object.entries(QUEUES).map(([queue, to]) => (
          <Figure key={queue} label={t(`queue.${queue}`)} value={count(queues[queue])} to={to} size={QUEUE_SIZE} />
        ))}
      </Grid>
    </>
  );
}

export default function Dashboard() {
  const translate = useTranslate();
  const [days, setDays] = useState(30);
  const window = useMemo(() => {
    const to = new Date();
    return { from: new Date(to.getTime() - days * DAY).toISOString(), to: to.toISOString() };
  }, [days]);
  const t = (key: string, options?: object) => translate(`console.dashboard.${key}`, options);
  return (
    <Box component="main" sx={{ py: 1 }}>
      <Title title={translate('ra.page.dashboard')} />
      <Typography component="h1" variant="h5" sx={{ my: 1 }}>
        {t('title')}
      </Typography>
      <Headline />
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 2, mt: 3 }}>
        <Typography component="h2" variant="h6">
          {t('trends')}
        </Typography>
        <TextField
          select
          size="small"
          sx={{ width: 220 }}
          label={t('period')}
          value={days}
          onChange={(e) => setDays(Number(e.target.value))}
        >
          {[7, 30, 90].map((d) => (
            <MenuItem key={d} value={d}>
              {t('lastDays', { smart_count: d })}
            </MenuItem>
          ))}
        </TextField>
      </Box>
      <Suspense fallback={<Loading />}>
        <Charts window={window} />
      </Suspense>
    </Box>
  );
}
