/** The database's error behind `err` (drivers and drizzle wrap it in `cause`), if any. */
export function databaseError(err: unknown): { code: string; constraint?: string } | undefined {
  for (let e = err as { code?: unknown; constraint?: unknown; cause?: unknown } | undefined, i = 0; e && i < 4; e = e.cause as typeof e, i++) {
    if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) return { code: e.code, constraint: typeof e.constraint === 'string' ? e.constraint : undefined };
  }
  return undefined;
}

/** A unique index refused the row (that index only, when named). */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = databaseError(err);
  return e?.code === '23505' && (constraint === undefined || e.constraint === constraint);
}
