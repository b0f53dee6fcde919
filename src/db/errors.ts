/** The database's error behind `err` (drivers and drizzle wrap it in `cause`), if any. */
export function databaseError(err: unknown): { code: string; constraint?: string } | undefined {
  for (
    let e = err as { code?: unknown; constraint?: unknown; cause?: unknown } | undefined, i = 0;
    e && i < 4;
    e = e.cause as typeof e, i++
  ) {
    if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code))
      return { code: e.code, constraint: typeof e.constraint === 'string' ? e.constraint : undefined };
  }
  return undefined;
}

/** A unique index refused the row (that index only, when named). */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = databaseError(err);
  return e?.code === '23505' && (constraint === undefined || e.constraint === constraint);
}

// SQLSTATEs of a server that cannot serve now: too many connections, shutting down (admin_shutdown,
// crash_shutdown), starting or stopping (cannot_connect_now); class 08 is "connection exception".
const UNAVAILABLE_SQLSTATES = new Set(['53300', '57P01', '57P02', '57P03']);
// The socket's errors when the server or the way to it is gone.
const UNAVAILABLE_SOCKET = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
// node-postgres says a lost connection or a pool that waited too long only in words; PGlite and a
// pool are closed while a request runs during shutdown.
const UNAVAILABLE_MESSAGE = new RegExp(
  '^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error' +
    '|Client was closed|Cannot use a pool after calling end|PGlite is closed)',
);

/**
 * The database could not be reached (refused, lost, shut down, a pool that found no connection in
 * time), rather than refusing the statement: trying again later can succeed.
 */
type Failure = { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown } | undefined;
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e = err as Failure, i = 0; e && i < 4; e = e.cause as Failure, i++) {
    const code = typeof e.code === 'string' ? e.code : '';
    if (UNAVAILABLE_SQLSTATES.has(code) || code.startsWith('08') || UNAVAILABLE_SOCKET.has(code)) return true;
    if (typeof e.message === 'string' && UNAVAILABLE_MESSAGE.test(e.message)) return true;
    // A connection tried on every address of a host fails with all of them (AggregateError).
    if (Array.isArray(e.errors) && e.errors.some((inner) => isDatabaseUnavailable(inner))) return true;
  }
  return false;
}
