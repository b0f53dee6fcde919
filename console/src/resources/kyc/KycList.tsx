import { Card, CardContent, Chip, Stack, Typography } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { Datagrid, FunctionField, List, SelectInput, TextField, useLocaleState, useTranslate } from 'react-admin';
import type { Schema } from '../../api';
import { StatusField, WhenField } from '../../fields';
import { kycStats } from './kyc.api';

export const ATTEMPT_STATUSES = ['PENDING', 'APPROVED', 'REJECTED', 'RESUBMISSION_REQUESTED', 'WITHDRAWN'] as const;
type Attempt = Schema<'KycAttempt'>;

/** Seconds as minutes under an hour, hours under two days, days above, in the console's language. */
export function formatDuration(seconds: number, locale: string): string {
  const [value, unit] =
    seconds < 3600
      ? [seconds / 60, 'minute']
      : seconds < 172_800
        ? [seconds / 3600, 'hour']
        : [seconds / 86_400, 'day'];
  return new Intl.NumberFormat(locale === 'en' ? 'en-GB' : 'fr-SN', {
    style: 'unit',
    unit,
    unitDisplay: 'long',
    maximumFractionDigits: 1,
  }).format(value);
}

function KycStats() {
  const translate = useTranslate();
  const [locale] = useLocaleState();
  const stats = useQuery({ queryKey: ['kyc', 'stats'], queryFn: kycStats });
  if (!stats.data) return null;
  const s = stats.data;
  return (
    <Card component="section" aria-label={translate('console.kyc.stats')} sx={{ mt: 2 }}>
      <CardContent>
        <Stack direction="row" spacing={1} useFlexGap sx={{ flexWrap: 'wrap', alignItems: 'center' }}>
          {ATTEMPT_STATUSES.map((status) => (
            <Chip
              key={status}
              variant="outlined"
              label={`${translate(`console.kycAttempt.${status}`)} : ${s.byStatus[status]}`}
            />
          ))}
          <Typography variant="body2" sx={{ ml: 1 }}>
            {translate('console.kyc.averageReview', {
              duration: s.averageReviewSeconds === null ? '—' : formatDuration(s.averageReviewSeconds, locale),
            })}
          </Typography>
        </Stack>
      </CardContent>
    </Card>
  );
}

export default function KycList() {
  const translate = useTranslate();
  const filters = [
    <SelectInput
      key="status"
      source="status"
      alwaysOn
      choices={ATTEMPT_STATUSES.map((id) => ({ id, name: translate(`console.kycAttempt.${id}`) }))}
    />,
  ];
  return (
    <>
      <KycStats />
      <List filters={filters} exporter={false} filterDefaultValues={{ status: 'PENDING' }}>
        <Datagrid rowClick="show" bulkActionButtons={false}>
          <FunctionField
            source="supplier.businessName"
            sortable={false}
            render={(a: Attempt) => a.supplier?.businessName ?? a.supplierId}
          />
          <StatusField source="status" prefix="kycAttempt" sortable={false} />
          <FunctionField
            source="documentType"
            sortable={false}
            render={(a: Attempt) => (a.documentType ? translate(`console.idDocument.${a.documentType}`) : '—')}
          />
          <TextField source="businessRegistrationNumber" sortable={false} emptyText="—" />
          <WhenField source="submittedAt" sortable={false} />
          <WhenField source="reviewedAt" sortable={false} />
        </Datagrid>
      </List>
    </>
  );
}
