import {
  Card,
  CardContent,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';
import type { ReactNode } from 'react';
import { useTranslate } from 'react-admin';

export interface Column<T> {
  label: string;
  value: (row: T) => ReactNode;
  numeric?: boolean;
}

/** A ranked table under its own heading (its accessible name), with a line when it is empty. */
export function TopTable<T>({
  id,
  title,
  rows,
  columns,
  rowKey,
}: {
  id: string;
  title: string;
  rows: T[];
  columns: Column<T>[];
  rowKey: (row: T) => string;
}) {
  const translate = useTranslate();
  return (
    <Card sx={{ height: '100%' }}>
      <CardContent>
        <Typography id={id} component="h2" variant="h6" gutterBottom>
          {title}
        </Typography>
        <TableContainer>
          <Table size="small" aria-labelledby={id}>
            <TableHead>
              <TableRow>
                <TableCell>#</TableCell>
                {columns.map((c) => (
                  <TableCell key={c.label} align={c.numeric ? 'right' : 'left'}>
                    {c.label}
                  </TableCell>
                ))}
              </TableRow>
            </TableHead>
            <TableBody>
              {rows.length === 0 && (
                <TableRow>
                  <TableCell colSpan={columns.length + 1}>{translate('console.analyticsTop.empty')}</TableCell>
                </TableRow>
              )}
              {rows.map((row, i) => (
                <TableRow key={rowKey(row)}>
                  <TableCell>{i + 1}</TableCell>
                  {columns.map((c) => (
                    <TableCell key={c.label} align={c.numeric ? 'right' : 'left'}>
                      {c.value(row)}
                    </TableCell>
                  ))}
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </TableContainer>
      </CardContent>
    </Card>
  );
}
