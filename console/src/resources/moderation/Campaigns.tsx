import CheckIcon from '@mui/icons-material/Check';
import CloseIcon from '@mui/icons-material/Close';
import { Button, Stack, Typography } from '@mui/material';
import { Datagrid, FunctionField, List, SelectInput, TextInput, useLocaleState, useTranslate } from 'react-admin';
import { StatusField, WhenField, formatMoney } from '../../fields';
import { DecisionButton, useDecision } from './decision';
import { decide, type Campaign } from './moderation.api';
import { Picture } from './Picture';

const STATUSES = ['DRAFT', 'PENDING_REVIEW', 'ACTIVE', 'REJECTED', 'PAUSED', 'COMPLETED'];
const label = (field: string) => `console.moderation.campaign.${field}`;

/** Campaigns waiting for a decision, oldest submission first. */
export function CampaignQueue() {
  const translate = useTranslate();
  return (
    <List
      sort={{ field: 'id', order: 'ASC' }}
      actions={false}
      empty={<Typography sx={{ p: 4 }}>{translate(label('empty'))}</Typography>}
    >
      <CampaignGrid />
    </List>
  );
}

/** Every campaign, by status or advertiser. */
export function CampaignList() {
  const translate = useTranslate();
  const filters = [
    <SelectInput
      key="status"
      source="status"
      label={label('status')}
      alwaysOn
      choices={STATUSES.map((id) => ({ id, name: translate(`console.moderation.campaignStatus.${id}`) }))}
    />,
    <TextInput key="advertiserId" source="advertiserId" label={label('advertiserId')} alwaysOn />,
  ];
  return (
    <List filters={filters} sort={{ field: 'id', order: 'DESC' }} actions={false}>
      <CampaignGrid showStatus />
    </List>
  );
}

function CampaignGrid({ showStatus = false }: { showStatus?: boolean }) {
  const translate = useTranslate();
  const [locale] = useLocaleState();
  return (
    <Datagrid rowClick={false} bulkActionButtons={false}>
      <FunctionField
        label={label('creative')}
        sortable={false}
        render={(c: Campaign) => (
          <Picture
            url={c.creative.imageUrl}
            size={160}
            wide
            alt={translate(label('creativeAlt'), { title: c.creative.title })}
          />
        )}
      />
      <FunctionField
        label={label('message')}
        sortable={false}
        render={(c: Campaign) => (
          <>
            <Typography variant="body2" sx={{ fontWeight: 600 }}>
              {c.creative.title}
            </Typography>
            <Typography variant="body2">{c.creative.text}</Typography>
            <Typography variant="caption" color="text.secondary">
              {c.name}
            </Typography>
          </>
        )}
      />
      <FunctionField
        label={label('target')}
        sortable={false}
        render={(c: Campaign) => (
          <>
            <Typography variant="body2">{translate(`console.moderation.placement.${c.placement}`)}</Typography>
            <Typography variant="caption" color="text.secondary" sx={{ wordBreak: 'break-all' }}>
              {c.target.url}
            </Typography>
          </>
        )}
      />
      <WhenField source="startsAt" label={label('startsAt')} sortable={false} />
      <WhenField source="endsAt" label={label('endsAt')} sortable={false} />
      <FunctionField
        label={label('budget')}
        sortable={false}
        render={(c: Campaign) => (
          <>
            <Typography variant="body2">{formatMoney(c.totalBudget, c.currency, locale)}</Typography>
            <Typography variant="caption" color="text.secondary">
              {translate(label('daily'), { amount: formatMoney(c.dailyBudget, c.currency, locale) })} · {c.pricingModel}{' '}
              {formatMoney(c.bid, c.currency, locale)}
            </Typography>
          </>
        )}
      />
      {showStatus ? (
        <StatusField source="status" prefix="moderation.campaignStatus" label={label('status')} sortable={false} />
      ) : null}
      {showStatus ? (
        <FunctionField
          label={label('rejectionReason')}
          sortable={false}
          render={(c: Campaign) => c.rejectionReason ?? ''}
        />
      ) : (
        <WhenField source="submittedAt" label={label('submittedAt')} sortable={false} />
      )}
      <FunctionField
        label={label('actions')}
        sortable={false}
        render={(c: Campaign) => (c.status === 'PENDING_REVIEW' ? <CampaignActions campaign={c} /> : null)}
      />
    </Datagrid>
  );
}

function CampaignActions({ campaign: c }: { campaign: Campaign }) {
  const translate = useTranslate();
  const run = useDecision();
  const t = (key: string) => translate(label(key), { name: c.name });
  return (
    <Stack spacing={0.5} alignItems="flex-start">
      <Button
        size="small"
        color="success"
        startIcon={<CheckIcon />}
        aria-label={t('approveOne')}
        onClick={() => run(() => decide.approveCampaign(c.id), label('approved'), { name: c.name })}
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
        onConfirm={(reason) => run(() => decide.rejectCampaign(c.id, reason!), label('rejected'), { name: c.name })}
      />
    </Stack>
  );
}
