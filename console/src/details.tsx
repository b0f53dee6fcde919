import { Box, Card, CardContent, Stack, Typography } from '@mui/material';
import { useId, type ReactNode } from 'react';

/** A part of a record's page: a level-2 heading, its actions, its content. */
export function Section({ title, actions, children }: { title: string; actions?: ReactNode; children: ReactNode }) {
  const id = useId();
  return (
    <Card component="section" aria-labelledby={id} sx={{ mb: 2 }}>
      <CardContent>
        <Stack direction="row" spacing={1} sx={{ alignItems: 'center', flexWrap: 'wrap', mb: 1 }} useFlexGap>
          <Typography id={id} component="h2" variant="h6" sx={{ flexGrow: 1 }}>
            {title}
          </Typography>
          {actions}
        </Stack>
        {children}
      </CardContent>
    </Card>
  );
}

/** Labels and values as a description list; empty values show a dash. */
export function Facts({ rows }: { rows: [label: string, value: ReactNode][] }) {
  return (
    <Box
      component="dl"
      sx={{
        display: 'grid',
        gridTemplateColumns: { xs: '1fr', sm: 'minmax(160px, max-content) 1fr' },
        gap: '6px 24px',
        m: 0,
      }}
    >
      {rows.map(([label, value]) => (
        <Box key={label} sx={{ display: 'contents' }}>
          <Typography component="dt" variant="body2" color="text.secondary">
            {label}
          </Typography>
          <Typography component="dd" variant="body2" sx={{ m: 0, overflowWrap: 'anywhere' }}>
            {value === null || value === undefined || value === '' ? '—' : value}
          </Typography>
        </Box>
      ))}
    </Box>
  );
}

/** The page's own heading (the app bar's title is not one). */
export function PageHeading({ children, aside }: { children: ReactNode; aside?: ReactNode }) {
  return (
    <Stack direction="row" spacing={1} sx={{ alignItems: 'center', flexWrap: 'wrap', my: 2 }} useFlexGap>
      <Typography component="h1" variant="h5">
        {children}
      </Typography>
      {aside}
    </Stack>
  );
}
