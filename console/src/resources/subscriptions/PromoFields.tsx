import {
  BooleanInput,
  DateTimeInput,
  FormDataConsumer,
  NumberInput,
  RadioButtonGroupInput,
  SelectArrayInput,
  TextInput,
  maxValue,
  minValue,
  required,
  useGetList,
  useTranslate,
} from 'react-admin';
import { AmountInput, BpsInput } from '../../inputs';
import type { Plan } from './subscriptions.api';

/** The codes of one batch: the list filtered by it. */
export const batchPath = (batchId: string) => `/promo-codes?filter=${encodeURIComponent(JSON.stringify({ batchId }))}`;

/** The kind of discount a record has, for the form's radio buttons. */
export const discountKindOf = (promo: { discountAmount?: number | null }) =>
  promo.discountAmount !== null && promo.discountAmount !== undefined ? 'amount' : 'percent';

export const PROMO_DEFAULTS = { discountKind: 'percent', planIds: [], firstSubscriptionOnly: false, isPublic: false };

/** What a promo code offers and when: shared by one code, a batch and a change. */
export function PromoFields() {
  const translate = useTranslate();
  const plans = useGetList<Plan>('plans', { pagination: { page: 1, perPage: 100 } });
  const help = (key: string) => translate(`console.promoCodes.help.${key}`);
  const choices = (plans.data ?? []).map((p) => ({ id: p.id, name: `${p.name} (${p.code})` }));
  return (
    <>
      <TextInput source="description" multiline fullWidth />
      <RadioButtonGroupInput
        source="discountKind"
        choices={[
          { id: 'percent', name: translate('console.promoCodes.kind.percent') },
          { id: 'amount', name: translate('console.promoCodes.kind.amount') },
        ]}
      />
      <FormDataConsumer<{ discountKind?: string }>>
        {({ formData }) =>
          formData.discountKind === 'amount' ? (
            <AmountInput source="discountAmount" min={1} max={100_000_000} validate={required()} />
          ) : (
            <BpsInput source="discountBps" min={1} max={10_000} validate={required()} />
          )
        }
      </FormDataConsumer>
      <SelectArrayInput
        source="planIds"
        choices={choices}
        isPending={plans.isPending}
        helperText={help('planIds')}
        sx={{ minWidth: 320 }}
      />
      <DateTimeInput source="validFrom" helperText={help('validFrom')} />
      <DateTimeInput source="validUntil" helperText={help('validUntil')} />
      <NumberInput source="maxUses" validate={[minValue(1), maxValue(10_000_000)]} helperText={help('maxUses')} />
      <NumberInput
        source="maxUsesPerSupplier"
        validate={[minValue(1), maxValue(1000)]}
        helperText={help('maxUsesPerSupplier')}
      />
      <BooleanInput source="firstSubscriptionOnly" />
      <BooleanInput source="isPublic" helperText={help('isPublic')} />
    </>
  );
}
