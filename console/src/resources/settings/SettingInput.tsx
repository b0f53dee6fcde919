import { InputAdornment } from '@mui/material';
import {
  BooleanInput,
  NumberInput,
  TextInput,
  maxLength,
  minLength,
  required,
  useLocaleState,
  useTranslate,
} from 'react-admin';
import { AmountInput, BpsInput } from '../../inputs';
import { SETTING_FIELDS, pathInGroup, type SettingKey } from './setting-fields';
import { settingLabel } from './setting-format';

/** Bounds checked before sending, said in the unit the input shows (a percentage for basis points). */
const within = (min: number, max: number, shown: { min: string; max: string; unit: string }) => (value: unknown) =>
  typeof value === 'number' && (value < min || value > max || !Number.isInteger(value))
    ? { message: 'console.settings.outOfRange', args: shown }
    : undefined;

/** The input a setting's kind calls for, labelled with its name and helped with its meaning and bounds. */
export function SettingInput({ settingKey }: { settingKey: SettingKey }) {
  const translate = useTranslate();
  const [locale] = useLocaleState();
  const number = (n: number) => new Intl.NumberFormat(locale === 'en' ? 'en-GB' : 'fr-SN').format(n);
  const field = SETTING_FIELDS[settingKey];
  const source = pathInGroup(settingKey);
  const label = settingLabel(settingKey, translate);
  const meaning = translate(`console.settings.help.${settingKey.replace(/^mobilemoney\.\w+\./, 'mobilemoney.')}`, {
    _: '',
  });
  const common = { source, label, fullWidth: true };
  switch (field.kind) {
    case 'boolean':
      return <BooleanInput source={source} label={label} helperText={meaning || false} />;
    case 'text':
      return (
        <TextInput
          {...common}
          helperText={meaning || false}
          validate={[required(), minLength(field.minLength), maxLength(field.maxLength)]}
        />
      );
    case 'bps': {
      const shown = { min: number(field.min / 100), max: number(field.max / 100), unit: '%' };
      const helperText = `${meaning} (${translate('console.settings.range', shown)})`;
      return (
        <BpsInput {...common} helperText={helperText} validate={[required(), within(field.min, field.max, shown)]} />
      );
    }
    case 'amount': {
      const shown = { min: number(field.min), max: number(field.max), unit: 'XOF' };
      const helperText = `${meaning} (${translate('console.settings.range', shown)})`;
      return (
        <AmountInput {...common} helperText={helperText} validate={[required(), within(field.min, field.max, shown)]} />
      );
    }
    case 'integer': {
      const unit = translate(`console.settings.unitShort.${field.unit}`);
      const shown = { min: number(field.min), max: number(field.max), unit };
      const helperText = `${meaning} (${translate('console.settings.range', shown)})`;
      return (
        <NumberInput
          {...common}
          helperText={helperText}
          validate={[required(), within(field.min, field.max, shown)]}
          slotProps={{ input: { endAdornment: <InputAdornment position="end">{unit}</InputAdornment> } }}
        />
      );
    }
  }
}
