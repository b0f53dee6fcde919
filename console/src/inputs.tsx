import { InputAdornment } from '@mui/material';
import { NumberInput, type NumberInputProps, type Validator } from 'react-admin';

// Stable functions: NumberInput re-renders its text when `format` changes.
const bpsAsPercent = (bps: unknown) => (typeof bps === 'number' ? String(bps / 100) : '');
const percentAsBps = (percent: unknown) =>
  percent === '' || percent === null || percent === undefined || Number.isNaN(Number(percent))
    ? null
    : Math.round(Number(percent) * 100);

/**
 * Bounds checked by the form, said in the unit the input shows. Not as the input's min and max
 * attributes: the browser would stop the form with a message of its own, in its own language.
 */
function bounded(
  validate: NumberInputProps['validate'],
  min: number | undefined,
  max: number | undefined,
  shown: (n: number) => number,
): Validator[] {
  const own: Validator = (value: unknown) => {
    if (typeof value !== 'number') return undefined;
    if (min !== undefined && value < min) return { message: 'ra.validation.minValue', args: { min: shown(min) } };
    if (max !== undefined && value > max) return { message: 'ra.validation.maxValue', args: { max: shown(max) } };
    return undefined;
  };
  return [...(Array.isArray(validate) ? validate : validate ? [validate] : []), own];
}

type BoundedProps = Omit<NumberInputProps, 'format' | 'parse' | 'min' | 'max' | 'step'> & {
  min?: number;
  max?: number;
};

/** A rate kept in basis points (the API's unit) and typed as a percentage: 12.5 % is 1250. */
export function BpsInput({ min, max, validate, ...props }: BoundedProps) {
  return (
    <NumberInput
      {...props}
      format={bpsAsPercent}
      parse={percentAsBps}
      validate={bounded(validate, min, max, (bps) => bps / 100)}
      slotProps={{ input: { endAdornment: <InputAdornment position="end">%</InputAdornment> } }}
    />
  );
}

/** A whole amount of XOF (the currency has no minor unit). */
export function AmountInput({ min = 0, max, validate, ...props }: BoundedProps) {
  return (
    <NumberInput
      {...props}
      validate={bounded(validate, min, max, (n) => n)}
      slotProps={{ input: { endAdornment: <InputAdornment position="end">XOF</InputAdornment> } }}
    />
  );
}
