import DownloadIcon from '@mui/icons-material/Download';
import {
  Alert,
  Box,
  Button,
  Card,
  CardContent,
  Table,
  TableBody,
  TableContainer,
  TableCell,
  TableFooter,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Loading, Title, useLocaleState, useNotify, useTranslate } from 'react-admin';
import { api, ApiError, json, unwrap } from '../../api';
import { BarChart } from '../../dashboard/BarChart';
import { formatMoney } from '../../fields';
import { RangeControls, useRange } from './range';

const FIGURES = ['gmv', 'commission', 'refunds', 'payouts', 'advertising', 'heldInEscrow'] as const;

/** The file name the API gives (Content-Disposition), or one built the same way. */
function fileName(response: Response, fallback: string): string {
  return /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? fallback;
}

function save(blob: Blob, name: string) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  // The browser has the file once the click is handled; the address can go after it.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** Money from the ledger per period (received, commission, refunds, payouts, advertising, held), and its CSV. */
export default function FinancialReport() {
  const translate = useTranslate();
  const [locale] = useLocaleState();
  const notify = useNotify();
  const range = useRange('groupBy');
  const [downloading, setDownloading] = useState(false);
  const query = { ...range.query, groupBy: range.unit };
  const report = useQuery({
    queryKey: ['financial-report', query],
    queryFn: async () => json(await unwrap(api.GET('/api/v1/admin/reports/financial', { params: { query } }))),
  });
  const t = (k: string, options?: object) => translate(`console.money.report.${k}`, options);
  const r = report.data;
  const money = (n: number) => formatMoney(n, r?.currency ?? 'XOF', locale);

  async function download() {
    setDownloading(true);
    try {
      const call = api.GET('/api/v1/admin/reports/financial', {
        params: { query: { ...query, format: 'csv' } },
        parseAs: 'blob',
      });
      const blob = (await unwrap(call)) as Blob;
      const name = fileName((await call).response, `financial-report-${range.from}-${range.to}-${range.unit}.csv`);
      save(blob, name);
      notify(t('downloaded', { name }), { type: 'info' });
    } catch (err) {
      notify(err instanceof ApiError ? err.message : String(err), { type: 'error' });
    } finally {
      setDownloading(false);
    }
  }

  return (
    <Box component="main" sx={{ py: 1 }}>
      <Title title={t('title')} />
      <Typography component="h1" variant="h5" sx={{ my: 1 }}>
        {t('title')}
      </Typography>
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 2, flexWrap: 'wrap' }}>
        <RangeControls range={range} unitLabel={translate('console.money.groupBy')} />
        <Button variant="contained" startIcon={<DownloadIcon />} onClick={download} disabled={downloading}>
          {t('download')}
        </Button>
      </Box>
      {report.error && <Alert severity="error">{report.error.message}</Alert>}
      {!r && !report.error && <Loading />}
      {r && (
        <Card>
          <CardContent>
            <BarChart
              title={t('chart')}
              labels={r.periods.map((p) => p.period)}
              series={(['gmv', 'commission', 'refunds'] as const).map((f) => ({
                name: t(f),
                values: r.periods.map((p) => p[f]),
              }))}
              format={money}
            />
            {/* Eight columns do not fit a phone: the table scrolls sideways, the page does not. */}
            <TableContainer sx={{ mt: 2 }}>
              <Table size="small" aria-label={t('title')}>
                <caption style={{ captionSide: 'top', textAlign: 'left' }}>
                  {t('caption', {
                    from: range.from,
                    to: range.to,
                    unit: translate(`console.money.period.${range.unit}`).toLowerCase(),
                    currency: r.currency,
                  })}
                </caption>
                <TableHead>
                  <TableRow>
                    <TableCell>{t('period')}</TableCell>
                    {FIGURES.map((f) => (
                      <TableCell key={f} align="right">
                        {t(f)}
                      </TableCell>
                    ))}
                  </TableRow>
                </TableHead>
                <TableBody>
                  {r.periods.map((p) => (
                    <TableRow key={p.period}>
                      <TableCell component="th" scope="row" sx={{ whiteSpace: 'nowrap' }}>
                        {p.period}
                      </TableCell>
                      {FIGURES.map((f) => (
                        <TableCell key={f} align="right">
                          {money(p[f])}
                        </TableCell>
                      ))}
                    </TableRow>
                  ))}
                </TableBody>
                <TableFooter>
                  <TableRow>
                    <TableCell component="th" scope="row">
                      {t('total')}
                    </TableCell>
                    {FIGURES.map((f) => (
                      <TableCell key={f} align="right">
                        {money(r.totals[f])}
                      </TableCell>
                    ))}
                  </TableRow>
                </TableFooter>
              </Table>
            </TableContainer>
          </CardContent>
        </Card>
      )}
    </Box>
  );
}
