import { Alert, MenuItem, Stack, TextField } from '@mui/material';
import { useState } from 'react';
import { Show, useLocaleState, useRecordContext, useTranslate } from 'react-admin';
import { api, session, unwrap, type User } from '../../api';
import { DecisionButton } from '../../decisions';
import { Facts, PageHeading, Section } from '../../details';
import { formatWhen } from '../../fields';
import { grantableRoles, refusalFor } from './roles';

const fullName = (u: User) =>
  [u.profile.firstName, u.profile.lastName].filter(Boolean).join(' ') || u.phoneNumber || u.id;

function StatusActions({ user }: { user: User }) {
  const translate = useTranslate();
  const name = fullName(user);
  const setStatus = (status: 'ACTIVE' | 'SUSPENDED', reason?: string) =>
    unwrap(
      api.PATCH('/api/v1/admin/users/{id}/status', { params: { path: { id: user.id } }, body: { status, reason } }),
    );
  return user.status === 'SUSPENDED' ? (
    <DecisionButton
      label={translate('console.users.reactivate')}
      title={translate('console.users.reactivateTitle', { name })}
      body={translate('console.users.reactivateBody')}
      reason={{ required: false }}
      color="success"
      action={(reason) => setStatus('ACTIVE', reason)}
      done={translate('console.users.reactivated')}
    />
  ) : (
    <DecisionButton
      label={translate('console.users.suspend')}
      title={translate('console.users.suspendTitle', { name })}
      body={translate('console.users.suspendBody')}
      reason={{ required: false }}
      color="error"
      action={(reason) => setStatus('SUSPENDED', reason)}
      done={translate('console.users.suspended')}
    />
  );
}

function RoleAction({ user }: { user: User }) {
  const translate = useTranslate();
  const roles = grantableRoles(session.user?.role).filter((r) => r !== user.role);
  const [role, setRole] = useState<string>('');
  const roleName = (r: string) => translate(`console.roles.${r}`);
  return (
    <DecisionButton
      label={translate('console.users.changeRole')}
      title={translate('console.users.changeRoleTitle', { name: fullName(user) })}
      body={
        role
          ? translate('console.users.changeRoleBody', { from: roleName(user.role), to: roleName(role) })
          : translate('console.users.chooseRole')
      }
      variant="outlined"
      ready={role !== ''}
      action={() =>
        unwrap(
          api.PATCH('/api/v1/admin/users/{id}/role', {
            params: { path: { id: user.id } },
            body: { role: role as User['role'] },
          }),
        )
      }
      done={translate('console.users.roleChanged')}
      onDone={() => setRole('')}
    >
      <TextField
        select
        label={translate('console.users.newRole')}
        value={role}
        onChange={(e) => setRole(e.target.value)}
        fullWidth
        margin="normal"
        required
      >
        {roles.map((r) => (
          <MenuItem key={r} value={r}>
            {roleName(r)}
          </MenuItem>
        ))}
      </TextField>
    </DecisionButton>
  );
}

function UserPage() {
  const user = useRecordContext<User>();
  const translate = useTranslate();
  const [locale] = useLocaleState();
  if (!user) return null;
  const f = (name: string) => translate(`resources.users.fields.${name}`);
  const when = (iso: string | null) => (iso ? formatWhen(iso, locale) : null);
  const refusal = refusalFor(session.user, user);
  return (
    <>
      <PageHeading>{fullName(user)}</PageHeading>
      <Section
        title={translate('console.users.account')}
        actions={
          !refusal && (
            <Stack direction="row" spacing={1}>
              <RoleAction user={user} />
              <StatusActions user={user} />
            </Stack>
          )
        }
      >
        {refusal && (
          <Alert severity="info" sx={{ mb: 2 }}>
            {translate(`console.users.refusal.${refusal}`)}
          </Alert>
        )}
        <Facts
          rows={[
            [f('role'), translate(`console.roles.${user.role}`)],
            [f('status'), translate(`console.userStatus.${user.status}`)],
            [f('phoneNumber'), user.phoneNumber],
            [f('email'), user.email],
            [f('isVerified'), translate(user.isVerified ? 'ra.boolean.true' : 'ra.boolean.false')],
            [f('createdAt'), when(user.createdAt)],
            [f('lastLoginAt'), when(user.lastLoginAt)],
          ]}
        />
      </Section>
    </>
  );
}

export default function UserShow() {
  return (
    <Show actions={false} component="div">
      <UserPage />
    </Show>
  );
}
