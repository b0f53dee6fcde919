import {
  BooleanInput,
  NumberInput,
  SimpleForm,
  TextArrayInput,
  TextInput,
  maxValue,
  minValue,
  regex,
  required,
  useTranslate,
} from 'react-admin';
import { AmountInput, BpsInput } from '../../inputs';

const CODE = /^[A-Za-z0-9_-]{2,32}$/;

/** A plan's fields; the code is chosen once, at creation (the API never changes it). */
export function PlanForm({ creating = false }: { creating?: boolean }) {
  const translate = useTranslate();
  const help = (key: string) => translate(`console.plans.help.${key}`);
  return (
    <SimpleForm sx={{ maxWidth: 720 }}>
      {creating && (
        <TextInput
          source="code"
          validate={[required(), regex(CODE, 'console.plans.help.code')]}
          helperText={help('code')}
        />
      )}
      <TextInput source="name" validate={required()} fullWidth />
      <TextInput source="description" multiline minRows={2} fullWidth />
      <AmountInput source="priceAmount" max={100_000_000} validate={required()} helperText={help('priceAmount')} />
      <NumberInput source="periodDays" validate={[minValue(1), maxValue(366)]} helperText={help('periodDays')} />
      <NumberInput
        source="maxProducts"
        validate={[minValue(0), maxValue(1_000_000)]}
        helperText={help('maxProducts')}
      />
      <BpsInput source="commissionDiscountBps" min={0} max={10_000} helperText={help('commissionDiscountBps')} />
      <TextArrayInput source="features" helperText={help('features')} fullWidth />
      <NumberInput source="sortOrder" validate={[minValue(-1000), maxValue(1000)]} helperText={help('sortOrder')} />
      <BooleanInput source="isPublic" helperText={help('isPublic')} />
      <BooleanInput source="isActive" helperText={help('isActive')} />
    </SimpleForm>
  );
}
