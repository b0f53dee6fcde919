import type { FastifyBaseLogger } from 'fastify';
import { createHash } from 'node:crypto';
import PgBoss from 'pg-boss';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Config } from '../config.js';
import { afterCommit } from '../db/after-commit.js';
import { connectionOf, type Database, type Executor } from '../db/client.js';
import { isDatabaseUnavailable } from '../db/errors.js';
import type { Clock } from '../shared/clock.js';
import { pgliteBossDb, runnerBossDb, type BossDb } from './pglite-db.js';

/** A job as its handler sees it. */
export interface JobInfo {
  id: string;
  retryCount: number;
}
// Payloads are whatever the sender wrote as JSON; each handler knows its own shape.
export type JobHandler = (data: any, job: JobInfo) => Promise<void>;

export interface SendOptions {
  /** Write the job through this transaction: it commits or rolls back with the business rows. */
  tx?: Executor;
  startAfterSeconds?: number;
  /**
   * At most one job per name and key in each clock minute (pg-boss's `singletonSeconds: 60`): a second
   * send in the same minute is dropped and returns null. pg-boss's standard queues ignore a key alone.
   */
  singletonKey?: string;
  retryLimit?: number;
  retryDelaySeconds?: number;
}

export interface WorkOptions {
  retryLimit?: number;
  retryDelaySeconds?: number;
  /** Jobs of this name run at most this many at a time in one process. */
  concurrency?: number;
}

export interface Jobs {
  send(name: string, data: object, opts?: SendOptions): Promise<string | null>;
  work(name: string, handler: JobHandler, opts?: WorkOptions): void;
  schedule(name: string, cron: string, data?: object): void;
}

export interface QueueSettings {
  boss: PgBoss;
  /** The same database pg-boss uses, for the queries pg-boss has no call for (depth, drain). */
  db: BossDb;
  schema: string;
  clock: Clock;
  log: FastifyBaseLogger;
  /** Whether this process runs handlers and schedules (WORKERS=on). */
  workers: boolean;
  pollingIntervalSeconds: number;
  /** Jobs a worker takes per fetch. */
  batchSize: number;
  metrics?: Registry;
}

export const DEFAULT_RETRY_LIMIT = 5;
export const DEFAULT_RETRY_DELAY_SECONDS = 5;
const EXPIRE_IN_SECONDS = 300;
const DEAD = '.dead';

interface Registration {
  handler: JobHandler;
  opts: WorkOptions;
}

/** The name of the queue where jobs of `name` land after their last try. */
export const deadLetterOf = (name: string) => `${name}${DEAD}`;

/**
 * Durable jobs on pg-boss. Handlers and schedules are registered while the app is built; `start()`
 * creates their queues (every process, so an API-only instance can enqueue) and, with workers on,
 * starts polling. A handler that throws is retried with exponential backoff and, after its last
 * try, moved to `<name>.dead`.
 */
export class JobQueue implements Jobs {
  private readonly handlers = new Map<string, Registration>();
  private readonly schedules: { name: string; cron: string; data: object }[] = [];
  private readonly workerIds = new Map<string, string[]>();
  private started = false;
  // How far the application clock was ahead of real time when waiting jobs were last moved.
  private clockOffsetMs: number;
  private readonly duration?: Histogram;
  private readonly failures?: Counter;

  constructor(private readonly s: QueueSettings) {
    this.clockOffsetMs = s.clock.now().getTime() - Date.now();
    if (s.metrics) {
      this.duration = new Histogram({
        name: 'jobs_duration_seconds',
        help: 'Time a job handler ran, by job name and outcome',
        labelNames: ['name', 'outcome'],
        buckets: [0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30],
        registers: [s.metrics],
      });
      this.failures = new Counter({
        name: 'jobs_failed_total',
        help: 'Job runs that threw, by job name (each try counts)',
        labelNames: ['name'],
        registers: [s.metrics],
      });
      const depth = async () => this.depth();
      new Gauge({
        name: 'jobs_queued',
        help: 'Jobs waiting or running, by job name and state (created, retry, active)',
        labelNames: ['name', 'state'],
        registers: [s.metrics],
        async collect() {
          this.reset();
          for (const r of await depth()) this.set({ name: r.name, state: r.state }, r.count);
        },
      });
    }
  }

  work(name: string, handler: JobHandler, opts: WorkOptions = {}): void {
    if (this.started) throw new Error(`job handler "${name}" registered after the queue started`);
    if (this.handlers.has(name)) throw new Error(`job handler "${name}" registered twice`);
    this.handlers.set(name, { handler, opts });
  }

  schedule(name: string, cron: string, data: object = {}): void {
    if (this.started) throw new Error(`schedule "${name}" registered after the queue started`);
    this.schedules.push({ name, cron, data });
  }

  async send(name: string, data: object, opts: SendOptions = {}): Promise<string | null> {
    if (!this.handlers.has(name)) throw new Error(`no job handler is registered for "${name}"`);
    const options: PgBoss.SendOptions = {};
    if (opts.singletonKey !== undefined)
      Object.assign(options, { singletonKey: opts.singletonKey, singletonSeconds: 60 });
    if (opts.retryLimit !== undefined) options.retryLimit = opts.retryLimit;
    if (opts.retryDelaySeconds !== undefined) options.retryDelay = opts.retryDelaySeconds;
    // Counted by the database's clock, as pg-boss counts retries; `drain()` maps a moved application clock onto it.
    if (opts.startAfterSeconds) options.startAfter = opts.startAfterSeconds;
    if (opts.tx) options.db = txBossDb(opts.tx);
    const id = await this.s.boss.send(name, data, options);
    // A job for later has nothing for the workers now: waking them would only cost a fetch.
    if (opts.startAfterSeconds) return id;
    if (opts.tx) afterCommit(opts.tx, () => this.wake(name));
    else this.wake(name);
    return id;
  }

  async start(): Promise<void> {
    this.started = true;
    const { boss } = this.s;
    await boss.start();
    // One read of the queues on a restart: creating and updating each queue every start took a
    // second of the embedded database's single thread, for queues that are already as wanted.
    const existing = new Map((await boss.getQueues()).map((q) => [q.name, q]));
    for (const [name, { opts }] of this.handlers) {
      const dead = deadLetterOf(name);
      if (!existing.has(dead)) await boss.createQueue(dead);
      const queue: PgBoss.Queue = {
        name,
        retryLimit: opts.retryLimit ?? DEFAULT_RETRY_LIMIT,
        retryDelay: opts.retryDelaySeconds ?? DEFAULT_RETRY_DELAY_SECONDS,
        retryBackoff: true,
        expireInSeconds: EXPIRE_IN_SECONDS,
        deadLetter: dead,
      };
      const now = existing.get(name);
      if (!now) await boss.createQueue(name, queue);
      // A queue made by an earlier version keeps its row: bring its retry policy up to date.
      else if (
        (['retryLimit', 'retryDelay', 'retryBackoff', 'expireInSeconds', 'deadLetter'] as const).some(
          (k) => now[k] !== queue[k],
        )
      ) {
        await boss.updateQueue(name, queue);
      }
    }
    for (const { name, cron, data } of this.schedules) await boss.schedule(name, cron, data);
    if (!this.s.workers) return;
    for (const [name, reg] of this.handlers) {
      const ids: string[] = [];
      for (let i = 0; i < Math.max(1, reg.opts.concurrency ?? 1); i++)
        ids.push(await this.startWorker(name, reg.handler));
      this.workerIds.set(name, ids);
    }
  }

  /** Stops polling and waits for the jobs running in this process, then closes pg-boss. */
  async stop(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    await this.s.boss.stop({ graceful: true, wait: true, timeout: 20_000 });
  }

  /**
   * Runs every job that is due by the application clock, and what those jobs enqueue, until none
   * is left waiting or running (jobs waiting for a later retry stay). For tests and benchmarks. The
   * bound is wide: a jump of days makes every release, payout and notice due at once, and CI runs
   * the files in parallel (15 s ran out there, on runs that take 20 s on a quiet machine).
   */
  async drain(timeoutMs = 60_000): Promise<void> {
    if (!this.s.workers) throw new Error('drain() needs a process with workers (WORKERS=on)');
    const names = [...this.handlers.keys()];
    const deadline = Date.now() + timeoutMs;
    const { schema } = this.s;
    for (;;) {
      await this.followClock(names);
      const { rows } = await this.s.db.executeSql(
        `SELECT name, bool_or(state <> 'active') AS due FROM ${schema}.job
         WHERE name = ANY($1) AND (state = 'active' OR (state IN ('created', 'retry') AND start_after <= now()))
         GROUP BY name`,
        [names],
      );
      if (rows.length === 0) return;
      if (Date.now() > deadline) throw new Error(`jobs still waiting after ${timeoutMs} ms`);
      // Wake only the workers that have something to fetch: on PGlite every fetch holds the one
      // thread, and waking them all each turn starved the handlers' own network I/O (an SMTP send).
      for (const r of rows as { name: string; due: boolean }[]) if (r.due) this.wake(r.name);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /**
   * pg-boss keeps due times on the database's clock. When the application clock has been moved
   * (tests), waiting jobs are brought forward by as much, so "an hour later" makes due what was due
   * within the hour, retries included.
   */
  private async followClock(names: string[]): Promise<void> {
    const offset = this.s.clock.now().getTime() - Date.now();
    const moved = offset - this.clockOffsetMs;
    if (Math.abs(moved) < 50) return;
    this.clockOffsetMs = offset;
    await this.s.db.executeSql(
      `UPDATE ${this.s.schema}.job SET start_after = start_after - $2 * interval '1 millisecond'
       WHERE name = ANY($1) AND state IN ('created', 'retry') AND start_after > now()`,
      [names, moved],
    );
  }

  /** Jobs waiting or running per name and state. */
  async depth(): Promise<{ name: string; state: string; count: number }[]> {
    const { rows } = await this.s.db.executeSql(
      `SELECT name, state::text AS state, count(*)::int AS count FROM ${this.s.schema}.job
       WHERE state IN ('created', 'retry', 'active') AND name NOT LIKE '\\_\\_pgboss\\_\\_%' GROUP BY 1, 2`,
      [],
    );
    return rows as { name: string; state: string; count: number }[];
  }

  /** Registered job names, dead-letter queues excluded. */
  names(): string[] {
    return [...this.handlers.keys()];
  }

  private wake(name: string): void {
    for (const id of this.workerIds.get(name) ?? []) this.s.boss.notifyWorker(id);
  }

  private async startWorker(name: string, handler: JobHandler): Promise<string> {
    const { boss, log } = this.s;
    let self = '';
    // A worker takes up to `batchSize` jobs per fetch and runs them one after the other: one
    // round trip for many jobs. Each job fails alone (its retry is recorded at once); pg-boss then
    // completes the rest of the batch.
    self = await boss.work<object>(
      name,
      { includeMetadata: true, batchSize: this.s.batchSize, pollingIntervalSeconds: this.s.pollingIntervalSeconds },
      async (jobs) => {
        for (const job of jobs) {
          const end = this.duration?.startTimer({ name });
          try {
            await handler(job.data, { id: job.id, retryCount: job.retryCount });
            end?.({ outcome: 'completed' });
          } catch (err) {
            end?.({ outcome: 'failed' });
            this.failures?.inc({ name });
            log.warn({ err, job: { name, id: job.id, retryCount: job.retryCount } }, 'job failed');
            const e = err instanceof Error ? err : new Error(String(err));
            await boss.fail(name, job.id, { message: e.message, stack: e.stack });
          }
        }
        // A worker that found jobs looks for the next ones at once instead of sleeping a poll.
        boss.notifyWorker(self);
      },
    );
    return self;
  }
}

/** pg-boss's `db` interface on an open application transaction (PGlite or node-postgres). */
function txBossDb(tx: Executor): BossDb {
  const client = connectionOf(tx) as
    | {
        query(
          q: string | { name?: string; text: string; values?: unknown[] },
          values?: unknown[],
        ): Promise<{ rows: unknown[] }>;
        exec?: unknown;
      }
    | undefined;
  if (!client || typeof client.query !== 'function')
    throw new Error('jobs: cannot reach the connection of this transaction');
  if (typeof client.exec === 'function') return runnerBossDb(client as Parameters<typeof runnerBossDb>[0]);
  // pg-boss's statements with values are the same few texts (its insert, for one): named, the
  // connection parses and plans each once instead of on every order (about 0.4 ms of 0.5).
  return {
    executeSql: (text, values) =>
      client.query(values === undefined ? text : { name: statementName(text), text, values }),
  };
}

const statementNames = new Map<string, string>();
/** A name per statement text (a connection refuses one name for two texts). */
function statementName(text: string): string {
  let name = statementNames.get(text);
  if (!name) statementNames.set(text, (name = `boss_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`));
  return name;
}

export interface QueueSource {
  config: Config;
  database: Database;
  clock: Clock;
  log: FastifyBaseLogger;
  metrics?: Registry;
}

/**
 * pg-boss on the application's database: on PostgreSQL through its own small pool (so polling never
 * waits behind API requests), on the embedded PGlite through the adapter of its `db` interface.
 * Maintenance and cron run only where workers run.
 */
export function createJobQueue({ config, database, clock, log, metrics }: QueueSource): JobQueue {
  const workers = config.WORKERS === 'on';
  const common = {
    schema: config.JOBS_SCHEMA,
    migrate: true,
    supervise: workers,
    schedule: workers,
    // How often an instance checks the cron schedules; one instance per period does, across all.
    cronMonitorIntervalSeconds: config.JOBS_CRON_CHECK_SECONDS,
    cronWorkerIntervalSeconds: Math.min(5, config.JOBS_CRON_CHECK_SECONDS),
  };
  let db: BossDb;
  let boss: PgBoss;
  if (database.pglite) {
    db = pgliteBossDb(database.pglite);
    boss = new PgBoss({ ...common, db: db as PgBoss.Db });
  } else {
    boss = new PgBoss({
      ...common,
      connectionString: config.DATABASE_URL!,
      max: config.JOBS_POOL_MAX,
      application_name: 'foodsave-jobs',
    });
    // pg-boss's own pool, reached through its public `getDb()`, serves the queries it has no call for.
    db = (boss as unknown as { getDb(): BossDb }).getDb();
  }
  // An unreachable database fails every poll: said once a minute as a warning (the requests' outage
  // is logged by the error handler), not as an error per poll.
  let quietUntil = 0;
  boss.on('error', (err) => {
    if (!isDatabaseUnavailable(err)) return log.error({ err }, 'job queue error');
    if (clock.now().getTime() < quietUntil) return;
    quietUntil = clock.now().getTime() + 60_000;
    log.warn({ err }, 'job queue: database unreachable, jobs wait until it is back');
  });
  return new JobQueue({
    boss,
    db,
    schema: config.JOBS_SCHEMA,
    clock,
    log,
    workers,
    pollingIntervalSeconds: config.JOBS_POLL_SECONDS,
    batchSize: config.JOBS_BATCH_SIZE,
    metrics,
  });
}
