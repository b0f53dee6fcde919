import DeleteIcon from '@mui/icons-material/Delete';
import FlagIcon from '@mui/icons-material/Flag';
import VisibilityIcon from '@mui/icons-material/Visibility';
import { Box, Chip, Stack, Typography } from '@mui/material';
import { Datagrid, FunctionField, List, useTranslate } from 'react-admin';
import { WhenField } from '../../fields';
import { DecisionButton, useDecision } from './decision';
import { decide, type ReportedReview } from './moderation.api';
import { Picture } from './Picture';

const label = (field: string) => `console.moderation.review.${field}`;

/** Reviews with open reports, most reported first: clear the reports or delete the review. */
export default function ReportedReviews() {
  const translate = useTranslate();
  return (
    <List
      sort={{ field: 'id', order: 'ASC' }}
      actions={false}
      empty={<Typography sx={{ p: 4 }}>{translate(label('empty'))}</Typography>}
    >
      <Datagrid rowClick={false} bulkActionButtons={false}>
        <FunctionField
          label={label('rating')}
          sortable={false}
          render={(r: ReportedReview) => (
            <span role="img" aria-label={translate(label('stars'), { rating: r.rating })}>
              <span aria-hidden="true">
                {'★'.repeat(r.rating)}
                {'☆'.repeat(5 - r.rating)}
              </span>
            </span>
          )}
        />
        <FunctionField
          label={label('review')}
          sortable={false}
          render={(r: ReportedReview) => (
            <Box sx={{ maxWidth: 360 }}>
              {r.title && (
                <Typography variant="body2" sx={{ fontWeight: 600 }}>
                  {r.title}
                </Typography>
              )}
              <Typography variant="body2">{r.comment ?? '—'}</Typography>
              <Typography variant="caption" color="text.secondary">
                {r.authorName} · {translate(`console.moderation.reviewTarget.${r.targetType}`)}
              </Typography>
              {r.images.length > 0 && (
                <Stack direction="row" spacing={0.5} sx={{ mt: 0.5 }}>
                  {r.images.map((i, n) => (
                    <Picture
                      key={i.id}
                      url={i.thumbnailUrl}
                      size={40}
                      alt={translate(label('photo'), { author: r.authorName, n: n + 1 })}
                    />
                  ))}
                </Stack>
              )}
            </Box>
          )}
        />
        <FunctionField
          label={label('reports')}
          sortable={false}
          render={(r: ReportedReview) => <Reports review={r} />}
        />
        <WhenField source="createdAt" label={label('createdAt')} sortable={false} />
        <FunctionField
          label={label('actions')}
          sortable={false}
          render={(r: ReportedReview) => <ReviewActions review={r} />}
        />
      </Datagrid>
    </List>
  );
}

function Reports({ review: r }: { review: ReportedReview }) {
  const translate = useTranslate();
  return (
    <Stack spacing={0.5} alignItems="flex-start">
      <Stack direction="row" spacing={1}>
        <Chip
          size="small"
          variant="outlined"
          icon={<FlagIcon />}
          label={translate(label('openReports'), { smart_count: r.openReports })}
        />
        {r.hidden && <Chip size="small" label={translate(label('hidden'))} />}
      </Stack>
      <Box component="ul" sx={{ m: 0, pl: 2 }}>
        {r.reports.map((report) => (
          <li key={report.id}>
            <Typography variant="caption">
              {translate(`console.moderation.reportReason.${report.reason}`)}
              {report.comment ? ` : ${report.comment}` : ''}
            </Typography>
          </li>
        ))}
      </Box>
    </Stack>
  );
}

function ReviewActions({ review: r }: { review: ReportedReview }) {
  const translate = useTranslate();
  const run = useDecision();
  const t = (key: string) => translate(label(key), { author: r.authorName });
  const reason = { required: false, label: translate('console.moderation.optionalReason') };
  return (
    <Stack spacing={0.5} alignItems="flex-start">
      <DecisionButton
        label={translate(label('clear'))}
        ariaLabel={t('clearOne')}
        icon={<VisibilityIcon />}
        title={t('clearTitle')}
        text={t('clearText')}
        reason={reason}
        confirm={translate(label('clear'))}
        onConfirm={(why) => run(() => decide.clearReport(r.id, why), label('cleared'), { author: r.authorName })}
      />
      <DecisionButton
        label={translate('ra.action.delete')}
        ariaLabel={t('deleteOne')}
        icon={<DeleteIcon />}
        color="error"
        danger
        title={t('deleteTitle')}
        text={t('deleteText')}
        reason={reason}
        confirm={translate('ra.action.delete')}
        onConfirm={(why) => run(() => decide.deleteReview(r.id, why), label('deleted'), { author: r.authorName })}
      />
    </Stack>
  );
}
