import CheckIcon from '@mui/icons-material/Check';
import CloseIcon from '@mui/icons-material/Close';
import { Box, Button, Stack, Typography } from '@mui/material';
import {
  Datagrid,
  FunctionField,
  List,
  NumberField,
  useLocaleState,
  useRecordContext,
  useTranslate,
} from 'react-admin';
import { WhenField, formatMoney } from '../../fields';
import { DecisionButton, useDecision } from './decision';
import { decide, type Deal } from './moderation.api';
import { Picture, Pictures } from './Picture';

const label = (field: string) => `console.moderation.deal.${field}`;

/** Deals waiting for a decision, oldest first. */
export default function DealQueue() {
  const translate = useTranslate();
  const [locale] = useLocaleState();
  return (
    <List
      sort={{ field: 'id', order: 'ASC' }}
      actions={false}
      empty={<Typography sx={{ p: 4 }}>{translate(label('empty'))}</Typography>}
    >
      <Datagrid rowClick={false} bulkActionButtons={false} expand={<DealPanel />}>
        <FunctionField
          label={label('picture')}
          sortable={false}
          render={(d: Deal) => (
            <Picture url={d.images[0]?.thumbnailUrl} alt={translate(label('photo'), { title: d.title, n: 1 })} />
          )}
        />
        <FunctionField
          label={label('title')}
          sortable={false}
          render={(d: Deal) => (
            <>
              <Typography variant="body2" sx={{ fontWeight: 600 }}>
                {d.title}
              </Typography>
              <Typography variant="caption" color="text.secondary">
                {translate(`console.moderation.dealKind.${d.kind}`)} ·{' '}
                {translate(`console.moderation.category.${d.category}`)}
              </Typography>
            </>
          )}
        />
        <FunctionField
          label={label('price')}
          sortable={false}
          render={(d: Deal) => (
            <>
              <Typography variant="body2">{formatMoney(d.price, d.currency, locale)}</Typography>
              <Typography variant="caption" color="text.secondary">
                <s>{formatMoney(d.originalValue, d.currency, locale)}</s> −{d.discountPercent} %
              </Typography>
            </>
          )}
        />
        <NumberField source="totalPlaces" label={label('places')} sortable={false} />
        <WhenField source="validFrom" label={label('validFrom')} sortable={false} />
        <WhenField source="validUntil" label={label('validUntil')} sortable={false} />
        <FunctionField
          label={label('pickup')}
          sortable={false}
          render={(d: Deal) => `${d.pickupStart}–${d.pickupEnd}`}
        />
        <WhenField source="createdAt" label={label('createdAt')} sortable={false} />
        <FunctionField label={label('actions')} sortable={false} render={(d: Deal) => <DealActions deal={d} />} />
      </Datagrid>
    </List>
  );
}

function DealActions({ deal: d }: { deal: Deal }) {
  const translate = useTranslate();
  const run = useDecision();
  const t = (key: string) => translate(label(key), { title: d.title });
  return (
    <Stack spacing={0.5} alignItems="flex-start">
      <Button
        size="small"
        color="success"
        startIcon={<CheckIcon />}
        aria-label={t('approveOne')}
        onClick={() => run(() => decide.approveDeal(d.id), label('approved'), { title: d.title })}
      >
        {translate('console.moderation.approve')}
      </Button>
      <DecisionButton
        label={translate('console.moderation.reject')}
        ariaLabel={t('rejectOne')}
        icon={<CloseIcon />}
        color="error"
        danger
        title={t('rejectTitle')}
        text={t('rejectText')}
        reason={{ required: true, min: 3, label: translate('console.moderation.reason') }}
        confirm={translate('console.moderation.reject')}
        onConfirm={(reason) => run(() => decide.rejectDeal(d.id, reason!), label('rejected'), { title: d.title })}
      />
    </Stack>
  );
}

function DealPanel() {
  const d = useRecordContext<Deal>();
  const translate = useTranslate();
  if (!d) return null;
  return (
    <Box sx={{ p: 2, display: 'grid', gap: 1 }}>
      <Typography variant="body2">{d.description || '—'}</Typography>
      <Typography variant="body2">
        {translate(label('terms'))} : {d.terms || '—'} · {translate(label('perClient'))} : {d.placesPerClient}
      </Typography>
      <Pictures urls={d.images.map((i) => i.url)} alt={(n) => translate(label('photo'), { title: d.title, n })} />
    </Box>
  );
}
