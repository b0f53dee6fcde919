/**
 * A reason the server cannot start that the operator can fix (a database that does not answer,
 * a data directory in use): `src/server.ts` prints its message alone, on one line, and exits
 * with status 1, as it does for a configuration error, instead of a stack trace.
 */
export class StartupError extends Error {}
