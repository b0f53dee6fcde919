import SendIcon from '@mui/icons-material/Send';
import { Alert, Box, Card, CardContent, Typography } from '@mui/material';
import { useState } from 'react';
import {
  Confirm,
  Form,
  SaveButton,
  SelectInput,
  TextInput,
  Title,
  maxLength,
  required,
  useNotify,
  useRedirect,
  useTranslate,
} from 'react-admin';
import { reachableCount, sendAnnouncement, type AnnouncementRole } from './announcements.api';

const ROLES: AnnouncementRole[] = [
  'CLIENT',
  'SUPPLIER_FOOD',
  'SUPPLIER_DEALS',
  'ASSOCIATION',
  'ADVERTISER',
  'ADMIN',
  'SUPER_ADMIN',
];
const EVERYONE = 'ALL';

interface Draft {
  title: string;
  message: string;
  role: AnnouncementRole | undefined;
  reach: number;
  done: (errors?: Record<string, string>) => void;
}

/** Who receives it and how many accounts that is today, said before anything is sent. */
function ConfirmSend({ draft }: { draft: Draft }) {
  const translate = useTranslate();
  const notify = useNotify();
  const redirect = useRedirect();
  const [busy, setBusy] = useState(false);
  const audience = draft.role
    ? translate('console.announcements.toRole', { role: translate(`console.roles.${draft.role}`) })
    : translate('console.announcements.toEveryone');

  async function send() {
    setBusy(true);
    try {
      await sendAnnouncement({ title: draft.title, message: draft.message, ...(draft.role && { role: draft.role }) });
      draft.done();
      notify('console.announcements.queued', { type: 'success' });
      redirect('list', 'announcements');
    } catch (err) {
      setBusy(false);
      notify(err instanceof Error ? err.message : 'ra.notification.http_error', { type: 'error' });
      const details = (err as { details?: { field: string; message: string }[] }).details ?? [];
      draft.done(
        details.length
          ? Object.fromEntries(details.map((d) => [d.field.replace(/^body\./, ''), d.message]))
          : undefined,
      );
    }
  }

  return (
    <Confirm
      isOpen
      loading={busy}
      title={translate('console.announcements.confirmTitle', { title: draft.title })}
      content={translate('console.announcements.confirmContent', { audience, smart_count: draft.reach })}
      confirm={translate('console.announcements.send')}
      onConfirm={send}
      onClose={() => draft.done()}
    />
  );
}

/** A message to every user or to one role, confirmed with its audience, then queued by the API. */
export default function AnnouncementCreate() {
  const translate = useTranslate();
  const notify = useNotify();
  const [draft, setDraft] = useState<Draft>();

  async function review(values: Record<string, unknown>): Promise<Record<string, string> | undefined> {
    const role = values.role === EVERYONE ? undefined : (values.role as AnnouncementRole);
    let reach: number;
    try {
      reach = await reachableCount(role);
    } catch (err) {
      notify(err instanceof Error ? err.message : 'ra.notification.http_error', { type: 'error' });
      return undefined;
    }
    return new Promise((resolve) =>
      setDraft({
        title: String(values.title ?? '').trim(),
        message: String(values.message ?? '').trim(),
        role,
        reach,
        done: (errors) => {
          setDraft(undefined);
          resolve(errors);
        },
      }),
    );
  }

  const choices = [
    { id: EVERYONE, name: translate('console.announcements.everyone') },
    ...ROLES.map((id) => ({ id, name: translate(`console.roles.${id}`) })),
  ];
  return (
    <Box sx={{ mt: 2, maxWidth: 760 }}>
      <Title title={translate('console.announcements.new')} />
      <Typography component="h1" variant="h5" gutterBottom>
        {translate('console.announcements.new')}
      </Typography>
      <Card>
        <CardContent>
          <Alert severity="info" sx={{ mb: 2 }}>
            {translate('console.announcements.intro')}
          </Alert>
          <Form record={{ role: EVERYONE }} onSubmit={review} resource="announcements">
            <TextInput source="title" validate={[required(), maxLength(100)]} fullWidth />
            <TextInput
              source="message"
              validate={[required(), maxLength(500)]}
              multiline
              minRows={3}
              fullWidth
              helperText={translate('console.announcements.messageHelp')}
            />
            <SelectInput source="role" choices={choices} validate={required()} />
            <Box>
              <SaveButton label={translate('console.announcements.review')} icon={<SendIcon />} />
            </Box>
            {draft && <ConfirmSend draft={draft} />}
          </Form>
        </CardContent>
      </Card>
    </Box>
  );
}
