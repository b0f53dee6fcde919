import { Alert, Box, Card, CardContent, Chip, Link as MuiLink, Stack, Typography } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import {
  Datagrid,
  FunctionField,
  List,
  SearchInput,
  SelectInput,
  TextField,
  TextInput,
  useLocaleState,
  useRecordContext,
  useTranslate,
} from 'react-admin';
import type { Schema } from '../../api';
import { DecisionButton } from '../../decisions';
import { Facts } from '../../details';
import { StatusField, WhenField, formatWhen } from '../../fields';
import { associationStats, rejectAssociation, verifyAssociation } from './associations.api';

type Association = Schema<'AdminAssociation'>;
const STATUSES = ['PENDING', 'VERIFIED', 'REJECTED'] as const;

function AssociationStats() {
  const translate = useTranslate();
  const [locale] = useLocaleState();
  const stats = useQuery({ queryKey: ['associations', 'stats'], queryFn: associationStats });
  if (!stats.data) return null;
  const s = stats.data;
  const t = (key: string, options?: object) => translate(`console.associations.${key}`, options);
  return (
    <Card component="section" aria-label={t('stats')} sx={{ mt: 2 }}>
      <CardContent>
        <Stack direction="row" spacing={1} useFlexGap sx={{ flexWrap: 'wrap', alignItems: 'center' }}>
          {STATUSES.map((status) => (
            <Chip
              key={status}
              variant="outlined"
              label={`${translate(`console.associationStatus.${status}`)} : ${s.byStatus[status]}`}
            />
          ))}
          <Typography variant="body2" sx={{ ml: 1 }}>
            {t('statsLine', {
              recent: s.registeredLast30Days,
              reports: s.reports.total,
              meals: s.reports.mealsServed,
              oldest: s.oldestPendingSubmittedAt ? formatWhen(s.oldestPendingSubmittedAt, locale) : '—',
            })}
          </Typography>
        </Stack>
      </CardContent>
    </Card>
  );
}

function Decisions({ association }: { association: Association }) {
  const translate = useTranslate();
  const t = (key: string, options?: object) => translate(`console.associations.${key}`, options);
  const name = association.name;
  const verified = association.status === 'VERIFIED';
  return (
    <Stack direction="row" spacing={1}>
      {association.status === 'PENDING' && (
        <DecisionButton
          label={t('verify')}
          title={t('verifyTitle', { name })}
          body={t('verifyBody')}
          reason={{ required: false }}
          color="success"
          disabled={association.documents.length === 0}
          action={(reason) => verifyAssociation(association.id, reason)}
          done={t('verified')}
        />
      )}
      {association.status !== 'REJECTED' && (
        <DecisionButton
          label={t(verified ? 'withdraw' : 'reject')}
          title={t(verified ? 'withdrawTitle' : 'rejectTitle', { name })}
          body={t(verified ? 'withdrawBody' : 'rejectBody')}
          reason={{ required: true, minLength: 3 }}
          color="error"
          variant="outlined"
          action={(reason) => rejectAssociation(association.id, reason!)}
          done={t('rejected')}
        />
      )}
    </Stack>
  );
}

/** The row opened: what the association sent, its documents behind signed links, the decisions. */
function AssociationPanel() {
  const association = useRecordContext<Association>();
  const translate = useTranslate();
  const [locale] = useLocaleState();
  if (!association) return null;
  const t = (key: string, options?: object) => translate(`console.associations.${key}`, options);
  const f = (name: string) => translate(`resources.associations.fields.${name}`);
  const owner = association.owner;
  return (
    <Box sx={{ p: 2 }}>
      <Stack
        direction="row"
        sx={{ justifyContent: 'space-between', alignItems: 'flex-start', flexWrap: 'wrap', gap: 2 }}
      >
        <Box sx={{ flex: '1 1 420px' }}>
          <Facts
            rows={[
              [f('registrationNumber'), association.registrationNumber],
              [f('mission'), association.mission],
              [
                f('categories'),
                association.categories.map((c) => translate(`console.needCategory.${c}`, { _: c })).join(', '),
              ],
              [f('address'), `${association.address}, ${association.city}`],
              [f('contactPhone'), association.contactPhone],
              [f('contactEmail'), association.contactEmail],
              [f('pickupCapacityKg'), `${association.pickupCapacityKg} kg`],
              [f('owner'), `${owner.firstName} ${owner.lastName} · ${owner.phoneNumber ?? ''}`],
              [f('submittedAt'), formatWhen(association.submittedAt, locale)],
              [f('rejectionReason'), association.rejectionReason],
            ]}
          />
        </Box>
        <Box sx={{ flex: '0 1 320px' }}>
          <Typography component="h2" variant="subtitle1">
            {t('documents')}
          </Typography>
          {association.documents.length === 0 ? (
            <Alert severity="info">{t('noDocument')}</Alert>
          ) : (
            <Box component="ul" sx={{ pl: 2, mt: 0 }}>
              {association.documents.map((d) => (
                <li key={d.id}>
                  <MuiLink href={d.url} target="_blank" rel="noopener noreferrer">
                    {t('openDocument', {
                      kind: translate(`console.associationDocument.${d.kind}`, { _: d.kind }),
                      type: d.contentType,
                    })}
                  </MuiLink>
                </li>
              ))}
            </Box>
          )}
          <Decisions association={association} />
        </Box>
      </Stack>
    </Box>
  );
}

function Associations({ queue }: { queue: boolean }) {
  const translate = useTranslate();
  const filters = [
    <SearchInput key="q" source="q" alwaysOn placeholder={translate('resources.associations.fields.q')} />,
    ...(queue
      ? []
      : [
          <SelectInput
            key="status"
            source="status"
            choices={STATUSES.map((id) => ({ id, name: translate(`console.associationStatus.${id}`) }))}
          />,
        ]),
    <TextInput key="city" source="city" />,
  ];
  return (
    <>
      <AssociationStats />
      <List filters={filters} exporter={false} sort={queue ? undefined : { field: 'submittedAt', order: 'DESC' }}>
        <Datagrid rowClick="expand" expand={<AssociationPanel />} bulkActionButtons={false}>
          <TextField source="name" sortable={!queue} />
          <TextField source="city" sortable={!queue} />
          <StatusField source="status" prefix="associationStatus" sortable={!queue} />
          <FunctionField source="documents" sortable={false} render={(a: Association) => a.documents.length} />
          <WhenField source="submittedAt" sortable={!queue} />
        </Datagrid>
      </List>
    </>
  );
}

export default function AssociationList() {
  return <Associations queue={false} />;
}

/** The verification queue, oldest submission first. */
export function PendingAssociationList() {
  return <Associations queue />;
}
