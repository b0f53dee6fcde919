import { Box, MenuItem, TextField } from '@mui/material';
import { useSearchParams } from 'react-router-dom';
import { useTranslate } from 'react-admin';
import { dayAfter, dayStart } from './money.api';

export const UNITS = ['day', 'week', 'month'] as const;
export type Unit = (typeof UNITS)[number];
const DAY = 86_400_000;
const today = () => new Date().toISOString().slice(0, 10);
const daysBefore = (day: string, n: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) - n * DAY).toISOString().slice(0, 10);

/**
 * A report's range and period unit, kept in the page's address so a link shows the same figures:
 * days included at both ends (the last 30 by default), sent to the API as [from, to).
 */
export function useRange(unitParam: 'period' | 'groupBy') {
  const [params, setParams] = useSearchParams();
  const to = params.get('to') ?? today();
  const from = params.get('from') ?? daysBefore(to, 29);
  const unit = (UNITS as readonly string[]).includes(params.get(unitParam) ?? '')
    ? (params.get(unitParam) as Unit)
    : 'day';
  const set = (name: string, value: string) =>
    setParams(
      (p) => {
        const next = new URLSearchParams(p);
        if (value) next.set(name, value);
        else next.delete(name);
        return next;
      },
      { replace: true },
    );
  return { from, to, unit, unitParam, set, query: { from: dayStart(from)!, to: dayAfter(to)! } };
}

export function RangeControls({ range, unitLabel }: { range: ReturnType<typeof useRange>; unitLabel: string }) {
  const translate = useTranslate();
  const t = (k: string) => translate(`console.money.${k}`);
  return (
    <Box sx={{ display: 'flex', gap: 2, flexWrap: 'wrap', alignItems: 'center', my: 2 }}>
      <TextField
        select
        size="small"
        fullWidth={false}
        sx={{ width: 180 }}
        label={unitLabel}
        value={range.unit}
        onChange={(e) => range.set(range.unitParam, e.target.value)}
      >
        {UNITS.map((u) => (
          <MenuItem key={u} value={u}>
            {t(`period.${u}`)}
          </MenuItem>
        ))}
      </TextField>
      <TextField
        type="date"
        size="small"
        fullWidth={false}
        sx={{ width: 200 }}
        label={t('from')}
        value={range.from}
        onChange={(e) => range.set('from', e.target.value)}
        slotProps={{ inputLabel: { shrink: true } }}
      />
      <TextField
        type="date"
        size="small"
        fullWidth={false}
        sx={{ width: 200 }}
        label={t('to')}
        value={range.to}
        onChange={(e) => range.set('to', e.target.value)}
        slotProps={{ inputLabel: { shrink: true } }}
      />
    </Box>
  );
}
