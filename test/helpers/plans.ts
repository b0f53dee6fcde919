import { connectionOf, type Executor } from '../../src/db/client.js';

type Captured = { text: string; values: unknown[] };

/** Runs `run`, returning every statement it sent through node-postgres. */
async function capture(run: () => Promise<unknown>): Promise<Captured[]> {
  const pg = (await import('pg')).default;
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  const seen: Captured[] = [];
  proto.query = function (this: unknown, ...args: unknown[]) {
    const [q, v] = args as [{ text?: string; values?: unknown[] } | string, unknown];
    if (typeof q === 'object' && q.text) seen.push({ text: q.text, values: q.values ?? (Array.isArray(v) ? v : []) });
    return original.apply(this, args);
  };
  try {
    await run();
  } finally {
    proto.query = original;
  }
  return seen;
}

/**
 * The PostgreSQL plan of every statement `run` sends, explained on the connection of `tx` (so it
 * sees the transaction's uncommitted rows).
 */
export async function explainEach(tx: Executor, run: () => Promise<unknown>): Promise<string[]> {
  const client = connectionOf(tx) as { query: (q: object) => Promise<{ rows: { 'QUERY PLAN': string }[] }> };
  const plans: string[] = [];
  for (const c of await capture(run)) {
    const res = await client.query({ text: `explain ${c.text}`, values: c.values });
    plans.push(res.rows.map((r) => r['QUERY PLAN']).join('\n'));
  }
  return plans;
}
