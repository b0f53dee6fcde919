import { Box, Card, CardContent, Stack, Tab, Tabs, Typography } from '@mui/material';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Loading, Title, useRefresh, useTranslate } from 'react-admin';
import { CacheInvalidation } from './CacheInvalidation';
import { SETTINGS_GROUPS, type Settings } from './setting-fields';
import { getSettings } from './settings.api';
import { SettingsAudit } from './SettingsAudit';
import { SettingsGroupForm } from './SettingsGroupForm';

/** The platform settings by group, each change confirmed, and their history below. */
export default function SettingsPage() {
  const translate = useTranslate();
  const refresh = useRefresh();
  const queryClient = useQueryClient();
  const [tab, setTab] = useState(0);
  const settings = useQuery({ queryKey: ['settings', 'all'], queryFn: getSettings });

  function saved(next: Settings) {
    queryClient.setQueryData(['settings', 'all'], next);
    // The new audit rows.
    refresh();
  }

  const group = SETTINGS_GROUPS[tab]!;
  return (
    <Box sx={{ mt: 2 }}>
      <Title title={translate('resources.settings.name', { smart_count: 2 })} />
      <Stack direction="row" sx={{ justifyContent: 'space-between', alignItems: 'center', mb: 1 }}>
        <Typography component="h1" variant="h5">
          {translate('console.settings.title')}
        </Typography>
        <CacheInvalidation />
      </Stack>
      <Card>
        <Tabs
          value={tab}
          onChange={(_, value: number) => setTab(value)}
          aria-label={translate('console.settings.groupsLabel')}
        >
          {SETTINGS_GROUPS.map((g, i) => (
            <Tab
              key={g}
              id={`settings-tab-${g}`}
              aria-controls={`settings-panel-${g}`}
              value={i}
              label={translate(`console.settings.groups.${g}`)}
            />
          ))}
        </Tabs>
        <CardContent role="tabpanel" id={`settings-panel-${group}`} aria-labelledby={`settings-tab-${group}`}>
          <Typography component="h2" variant="subtitle1" color="text.secondary" gutterBottom>
            {translate(`console.settings.groupIntro.${group}`)}
          </Typography>
          {settings.data ? (
            <SettingsGroupForm key={group} group={group} values={settings.data[group]} saved={saved} />
          ) : (
            <Loading />
          )}
        </CardContent>
      </Card>
      <Typography component="h2" variant="h6" sx={{ mt: 4 }}>
        {translate('console.settings.history')}
      </Typography>
      <SettingsAudit />
    </Box>
  );
}
