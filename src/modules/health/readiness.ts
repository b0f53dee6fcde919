import type { Redis } from 'ioredis';
import { ping, type Db } from '../../db/client.js';
import { AppError } from '../../shared/errors.js';

export interface DependencyStatus {
  status: 'up' | 'down';
  /** How long the check took (up to the timeout when the dependency does not answer). */
  latencyMs: number;
}

// A dependency slower than this to answer a trivial request is as good as down for a client.
const CHECK_TIMEOUT_MS = 2000;

async function timed(check: () => Promise<unknown>): Promise<DependencyStatus & { error?: string }> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      check(),
      new Promise(
        (_, reject) =>
          (timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS)),
      ),
    ]);
    return { status: 'up', latencyMs: Math.round(performance.now() - started) };
  } catch (err) {
    return {
      status: 'down',
      latencyMs: Math.round(performance.now() - started),
      error: err instanceof Error ? err.message : String(err),
    };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Readiness: each dependency answers a trivial request (the database `select 1`, Redis `PING`
 * when configured). Ready answers each one's status and latency; a dependency down answers 503
 * naming it, so a load balancer stops sending traffic to this instance until it recovers.
 */
export function createReadiness(db: Db, kind: string, redis: Redis | null) {
  return async () => {
    const [database, cache] = await Promise.all([
      timed(() => ping(db)),
      redis
        ? timed(async () => {
            // A client that is reconnecting would queue the PING: not connected is down now.
            if (redis.status !== 'ready') throw new Error(`connection ${redis.status}`);
            await redis.ping();
          })
        : null,
    ]);
    const checks = { database, ...(cache && { redis: cache }) };
    const down = Object.entries(checks).filter(([, c]) => c.status === 'down');
    if (down.length > 0) {
      throw new AppError(
        503,
        'SERVICE_UNAVAILABLE',
        `Not ready: ${down.map(([name]) => name).join(' and ')} down`,
        down.map(([name, c]) => ({ field: name, message: `down after ${c.latencyMs} ms: ${c.error}` })),
      );
    }
    const view = ({ status, latencyMs }: DependencyStatus) => ({ status, latencyMs });
    return {
      status: 'ready' as const,
      database: kind,
      dependencies: { database: view(database), ...(cache && { redis: view(cache) }) },
    };
  };
}
