import { Alert, Box, Button, Grid, MenuItem, Stack, TextField, Typography } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Loading, Title, useLocaleState, useTranslate } from 'react-admin';
import { formatMoney } from '../../fields';
import { topProducts, topSearches, type TopPeriod, type TopRange } from './analytics.api';
import { TopTable } from './TopTable';

const PERIODS: TopPeriod[] = ['day', 'week', 'month'];
const LIMIT = 20;

type ProductRow = Awaited<ReturnType<typeof topProducts>>['byUnits'][number];
type SearchRow = Awaited<ReturnType<typeof topSearches>>['top'][number];
type ZeroRow = Awaited<ReturnType<typeof topSearches>>['zeroResults'][number];

/** The period form: one of the last periods, or days from and to. */
function RangeForm({ range, apply }: { range: TopRange; apply: (range: TopRange) => void }) {
  const translate = useTranslate();
  const [choice, setChoice] = useState<TopPeriod | 'dates'>('period' in range ? range.period : 'dates');
  const [from, setFrom] = useState('from' in range ? range.from : '');
  const [to, setTo] = useState('to' in range ? range.to : '');
  const wrong = choice === 'dates' && from !== '' && to !== '' && from > to;

  function submit(event: FormEvent) {
    event.preventDefault();
    if (choice !== 'dates') apply({ period: choice });
    else if (from && to && !wrong) apply({ from, to });
  }

  return (
    <Stack
      component="form"
      onSubmit={submit}
      direction={{ xs: 'column', md: 'row' }}
      spacing={2}
      sx={{ alignItems: { md: 'flex-start' }, my: 2 }}
    >
      <TextField
        select
        size="small"
        label={translate('console.analyticsTop.period')}
        value={choice}
        onChange={(e) => setChoice(e.target.value as TopPeriod | 'dates')}
        sx={{ width: 260, flexShrink: 0 }}
      >
        {PERIODS.map((p) => (
          <MenuItem key={p} value={p}>
            {translate(`console.analyticsTop.periods.${p}`)}
          </MenuItem>
        ))}
        <MenuItem value="dates">{translate('console.analyticsTop.periods.dates')}</MenuItem>
      </TextField>
      {choice === 'dates' && (
        <>
          <TextField
            size="small"
            type="date"
            label={translate('console.analyticsTop.from')}
            value={from}
            onChange={(e) => setFrom(e.target.value)}
            required
            slotProps={{ inputLabel: { shrink: true } }}
            sx={{ width: 200 }}
          />
          <TextField
            size="small"
            type="date"
            label={translate('console.analyticsTop.to')}
            value={to}
            onChange={(e) => setTo(e.target.value)}
            required
            error={wrong}
            helperText={wrong ? translate('console.analyticsTop.toBeforeFrom') : undefined}
            slotProps={{ inputLabel: { shrink: true } }}
            sx={{ width: 200 }}
          />
        </>
      )}
      <Button type="submit" variant="contained" sx={{ flexShrink: 0 }}>
        {translate('console.analyticsTop.show')}
      </Button>
    </Stack>
  );
}

/** The most searched words (and those that found nothing) and the products sold most, over one period. */
export default function TopAnalytics() {
  const translate = useTranslate();
  const [locale] = useLocaleState();
  const [range, setRange] = useState<TopRange>({ period: 'week' });
  const searches = useQuery({
    queryKey: ['analytics-top', 'searches', range],
    queryFn: () => topSearches(range, LIMIT),
  });
  const products = useQuery({
    queryKey: ['analytics-top', 'products', range],
    queryFn: () => topProducts(range, LIMIT),
  });
  const error = searches.error ?? products.error;
  const day = (iso: string) =>
    new Intl.DateTimeFormat(locale === 'en' ? 'en-GB' : 'fr-SN', { dateStyle: 'long', timeZone: 'UTC' }).format(
      new Date(iso),
    );

  const productColumns = [
    { label: translate('console.analyticsTop.product'), value: (r: ProductRow) => r.name },
    { label: translate('console.analyticsTop.store'), value: (r: ProductRow) => r.storeName },
    { label: translate('console.analyticsTop.units'), value: (r: ProductRow) => r.unitsSold, numeric: true },
    {
      label: translate('console.analyticsTop.revenue'),
      value: (r: ProductRow) => formatMoney(r.revenue, 'XOF', locale),
      numeric: true,
    },
    { label: translate('console.analyticsTop.orders'), value: (r: ProductRow) => r.orders, numeric: true },
  ];

  return (
    <Box sx={{ mt: 2 }}>
      <Title title={translate('resources.analytics-top.name')} />
      <Typography component="h1" variant="h5">
        {translate('console.analyticsTop.title')}
      </Typography>
      <RangeForm range={range} apply={setRange} />
      {error && (
        <Alert severity="error" sx={{ mb: 2 }}>
          {error.message}
        </Alert>
      )}
      {searches.data && (
        <Typography variant="body2" sx={{ mb: 2 }}>
          {translate('console.analyticsTop.covered', { from: day(searches.data.from), to: day(searches.data.to) })}
        </Typography>
      )}
      {searches.isPending || products.isPending ? (
        <Loading />
      ) : (
        <Grid container spacing={2}>
          <Grid size={{ xs: 12, lg: 6 }}>
            <TopTable<SearchRow>
              id="top-searches"
              title={translate('console.analyticsTop.searches')}
              rows={searches.data?.top ?? []}
              rowKey={(r) => r.query}
              columns={[
                { label: translate('console.analyticsTop.query'), value: (r) => r.query },
                { label: translate('console.analyticsTop.count'), value: (r) => r.searches, numeric: true },
                { label: translate('console.analyticsTop.zero'), value: (r) => r.zeroResultSearches, numeric: true },
              ]}
            />
          </Grid>
          <Grid size={{ xs: 12, lg: 6 }}>
            <TopTable<ZeroRow>
              id="top-zero-searches"
              title={translate('console.analyticsTop.zeroSearches')}
              rows={searches.data?.zeroResults ?? []}
              rowKey={(r) => r.query}
              columns={[
                { label: translate('console.analyticsTop.query'), value: (r) => r.query },
                { label: translate('console.analyticsTop.count'), value: (r) => r.searches, numeric: true },
              ]}
            />
          </Grid>
          <Grid size={{ xs: 12, xl: 6 }}>
            <TopTable<ProductRow>
              id="top-products-units"
              title={translate('console.analyticsTop.byUnits')}
              rows={products.data?.byUnits ?? []}
              rowKey={(r) => r.productId}
              columns={productColumns}
            />
          </Grid>
          <Grid size={{ xs: 12, xl: 6 }}>
            <TopTable<ProductRow>
              id="top-products-revenue"
              title={translate('console.analyticsTop.byRevenue')}
              rows={products.data?.byRevenue ?? []}
              rowKey={(r) => r.productId}
              columns={productColumns}
            />
          </Grid>
        </Grid>
      )}
    </Box>
  );
}
