import { Box, LinearProgress, Typography } from '@mui/material';
import { CreateButton, Datagrid, FunctionField, List, TextField, TopToolbar, useTranslate } from 'react-admin';
import { StatusField, WhenField } from '../../fields';
import type { Announcement } from './announcements.api';

// While an announcement is being sent its progress is read again every few seconds; then no more.
const POLL_MS = 3000;
const sending = (a: Announcement) => a.status !== 'SENT';
const refetchInterval = (query: { state: { data?: { data?: Announcement[] } } }) =>
  query.state.data?.data?.some(sending) ? POLL_MS : false;

function Progress({ announcement: a }: { announcement: Announcement }) {
  const translate = useTranslate();
  if (a.recipients === null) return <Typography variant="body2">—</Typography>;
  const share = a.recipients === 0 ? 100 : Math.round((a.sent / a.recipients) * 100);
  return (
    <Box sx={{ minWidth: 140 }}>
      <Typography variant="body2">
        {translate('console.announcements.progress', { sent: a.sent, recipients: a.recipients })}
      </Typography>
      <LinearProgress
        variant="determinate"
        value={share}
        aria-label={translate('console.announcements.progressLabel', { title: a.title })}
      />
    </Box>
  );
}

export default function AnnouncementList() {
  const translate = useTranslate();
  return (
    <List
      actions={
        <TopToolbar>
          <CreateButton label="console.announcements.new" />
        </TopToolbar>
      }
      empty={false}
      queryOptions={{ refetchInterval }}
    >
      <Datagrid bulkActionButtons={false} rowClick={false}>
        <TextField source="title" sortable={false} />
        <TextField source="message" sortable={false} sx={{ display: 'block', maxWidth: 360 }} />
        <FunctionField
          source="role"
          sortable={false}
          render={(a: Announcement) =>
            a.role ? translate(`console.roles.${a.role}`) : translate('console.announcements.everyone')
          }
        />
        <StatusField source="status" prefix="announcementStatus" sortable={false} />
        <FunctionField source="sent" sortable={false} render={(a: Announcement) => <Progress announcement={a} />} />
        <WhenField source="createdAt" sortable={false} />
        <WhenField source="finishedAt" sortable={false} />
      </Datagrid>
    </List>
  );
}
