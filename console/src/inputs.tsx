import { InputAdornment } from '@mui/material';
import { NumberInput, type NumberInputProps } from 'react-admin';

// Stable functions: NumberInput re-renders its text when `format` changes.
const bpsAsPercent = (bps: unknown) => (typeof bps === 'number' ? String(bps / 100) : '');
const percentAsBps = (percent: unknown) => (percent === '' || percent === null || percent === undefined || Number.isNaN(Number(percent)) ? null : Math.round(Number(percent) * 100));

/** A rate kept in basis points (the API's unit) and typed as a percentage: 12.5 % is 1250. */
export function BpsInput({ min, max, ...props }: Omit<NumberInputProps, 'format' | 'parse'> & { min?: number; max?: number }) {
  return (
    <NumberInput
      {...props}
      format={bpsAsPercent}
      parse={percentAsBps}
      step={0.01}
      min={min === undefined ? undefined : min / 100}
      max={max === undefined ? undefined : max / 100}
      slotProps={{ input: { endAdornment: <InputAdornment position="end">%</InputAdornment> } }}
    />
  );
}

/** A whole amount of XOF (the currency has no minor unit). */
export function AmountInput(props: Omit<NumberInputProps, 'step'>) {
  return <NumberInput min={0} {...props} step={1} slotProps={{ input: { endAdornment: <InputAdornment position="end">XOF</InputAdornment> } }} />;
}
