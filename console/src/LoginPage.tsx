import { Alert, Box, Button, Card, CardContent, TextField, Typography } from '@mui/material';
import { useState, type FormEvent } from 'react';
import { useLogin, useTranslate } from 'react-admin';
import { isRefusal } from './authProvider';

/** Phone and password; an account that is not an administrator's gets a page saying so. */
export function LoginPage() {
  const login = useLogin();
  const translate = useTranslate();
  const [error, setError] = useState<string>();
  const [refused, setRefused] = useState(false);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setBusy(true);
    setError(undefined);
    try {
      await login({ username: String(form.get('phone')), password: String(form.get('password')) });
    } catch (err) {
      if (isRefusal(err)) setRefused(true);
      else setError(err instanceof Error ? err.message : translate('console.login.failed'));
    } finally {
      setBusy(false);
    }
  }

  return (
    <Box component="main" sx={{ minHeight: '100vh', display: 'grid', placeItems: 'center', bgcolor: 'grey.100' }}>
      <Card sx={{ width: 380, maxWidth: '92vw' }}>
        <CardContent>
          <Typography component="h1" variant="h5" gutterBottom>
            {translate(refused ? 'console.refusal.title' : 'console.title')}
          </Typography>
          {refused ? (
            <>
              <Typography role="alert" sx={{ mb: 2 }}>
                {translate('console.refusal.body')}
              </Typography>
              <Button variant="outlined" onClick={() => setRefused(false)}>
                {translate('console.refusal.again')}
              </Button>
            </>
          ) : (
            <Box component="form" onSubmit={submit} sx={{ display: 'grid', gap: 2 }}>
              {error && <Alert severity="error">{error}</Alert>}
              <TextField
                name="phone"
                label={translate('console.login.phone')}
                autoComplete="username"
                type="tel"
                required
                autoFocus
              />
              <TextField
                name="password"
                label={translate('console.login.password')}
                autoComplete="current-password"
                type="password"
                required
              />
              <Button type="submit" variant="contained" disabled={busy}>
                {translate('console.login.submit')}
              </Button>
            </Box>
          )}
        </CardContent>
      </Card>
    </Box>
  );
}
