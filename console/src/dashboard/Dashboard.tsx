import { Card, CardContent, CardHeader, Grid, Typography } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { Loading, Title, useTranslate } from 'react-admin';
import { api, unwrap } from '../api';

type Figure = number | null | { [name: string]: Figure };

function Figures({ values }: { values: Record<string, Figure> }) {
  return (
    <dl style={{ margin: 0, display: 'grid', gridTemplateColumns: 'auto auto', gap: '4px 16px' }}>
      {Object.entries(values).map(([name, value]) => (
        <div key={name} style={{ display: 'contents' }}>
          <dt>{name}</dt>
          <dd style={{ margin: 0, textAlign: 'right' }}>{typeof value === 'object' && value !== null ? <Figures values={value} /> : (value ?? '—')}</dd>
        </div>
      ))}
    </dl>
  );
}

export default function Dashboard() {
  const translate = useTranslate();
  const stats = useQuery({ queryKey: ['dashboard', 'stats'], queryFn: () => unwrap(api.GET('/api/v1/admin/dashboard/stats')) });
  if (!stats.data) return <Loading />;
  return (
    <>
      <Title title={translate('ra.page.dashboard')} />
      <Grid container spacing={2} sx={{ mt: 1 }}>
        {Object.entries(stats.data.sections).map(([section, values]) => (
          <Grid key={section} size={{ xs: 12, md: 6, lg: 4 }}>
            <Card>
              <CardHeader title={<Typography component="h2" variant="h6">{section}</Typography>} />
              <CardContent>
                <Figures values={values as Record<string, Figure>} />
              </CardContent>
            </Card>
          </Grid>
        ))}
      </Grid>
    </>
  );
}
