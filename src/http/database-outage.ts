import type { FastifyBaseLogger } from 'fastify';

/** What an answer during an outage tells the client to wait before trying again, in seconds. */
export const OUTAGE_RETRY_AFTER_S = 5;
const PROBE_MS = 1000;

/**
 * A database that cannot be reached, as the requests see it: one warning when the first request
 * fails for it and one when the database answers again (a ping every second meanwhile), whatever
 * the number of requests answered 503 in between. Tracks time on the process's own clock: it
 * measures the outage, not the application's time.
 */
export function createDatabaseOutage(log: FastifyBaseLogger, ping: () => Promise<unknown>) {
  let since: number | undefined;
  let failed = 0;
  let probe: NodeJS.Timeout | undefined;
  let probing = false;

  const check = async () => {
    if (probing) return;
    probing = true;
    try {
      await ping();
    } catch {
      return;
    } finally {
      probing = false;
    }
    clearInterval(probe);
    log.warn({ outageMs: Math.round(performance.now() - since!), failedRequests: failed }, 'database reachable again');
    since = undefined;
  };

  return {
    /** A request failed because the database could not be reached. */
    failed(err: unknown) {
      failed = since === undefined ? 1 : failed + 1;
      if (since !== undefined) return;
      since = performance.now();
      log.warn({ err }, `database unreachable: requests answer 503 until it is back`);
      probe = setInterval(() => void check(), PROBE_MS).unref();
    },
    stop() {
      clearInterval(probe);
    },
  };
}
