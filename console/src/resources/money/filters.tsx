import { useWatch } from 'react-hook-form';
import { AutocompleteInput, DateInput, ReferenceInput, SelectInput, useTranslate } from 'react-admin';

export const ESCROW_STATES = ['HELD', 'DISPUTED', 'RELEASED', 'REFUNDED', 'RESOLVED_SUPPLIER', 'RESOLVED_CLIENT'];
export const PAYOUT_STATES = ['PENDING', 'PROCESSING', 'SUCCEEDED', 'FAILED'];

/** Translated choices of a select: `console.money.<prefix>.<VALUE>`. */
export function useChoices() {
  const translate = useTranslate();
  return (values: string[], prefix: string, key: (v: string) => string = (v) => v) =>
    values.map((v) => ({ id: v, name: translate(`console.money.${prefix}.${key(v)}`) }));
}

/** A supplier found by name (every supplier, as the administrators' list has them). */
export function SupplierFilter({ source = 'supplierId' }: { source?: string; alwaysOn?: boolean }) {
  return (
    <ReferenceInput source={source} reference="money-suppliers">
      <AutocompleteInput optionText="businessName" filterToQuery={(q: string) => ({ q })} sx={{ minWidth: 240 }} />
    </ReferenceInput>
  );
}

/** A store found by name among the chosen supplier's public stores. */
export function StoreFilter({ source = 'storeId' }: { source?: string; alwaysOn?: boolean }) {
  const supplierId = useWatch({ name: 'supplierId' }) as string | undefined;
  return (
    <ReferenceInput source={source} reference="money-stores" filter={supplierId ? { supplierId } : {}}>
      <AutocompleteInput optionText="name" filterToQuery={(q: string) => ({ q })} sx={{ minWidth: 220 }} />
    </ReferenceInput>
  );
}

/** Days of a range: the first included, the last included too (the API's `to` is the next day). */
export const dayFilters = () => [<DateInput key="from" source="from" />, <DateInput key="to" source="to" />];

export function StateFilter({
  source,
  values,
  prefix,
}: {
  source: string;
  values: string[];
  prefix: string;
  alwaysOn?: boolean;
}) {
  const choices = useChoices();
  return <SelectInput source={source} choices={choices(values, prefix)} />;
}
