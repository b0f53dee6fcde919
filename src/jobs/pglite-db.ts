import type { PGlite, Transaction } from '@electric-sql/pglite';

/** pg-boss's database interface (`db` option, and the per-call `{ db }` of send/insert). */
export interface BossDb {
  executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

type Runner = Pick<Transaction, 'query' | 'exec'>;

/**
 * pg-boss on the embedded PGlite. pg-boss sends two kinds of calls: one statement with values,
 * and scripts without values (install, migrations, maintenance: several statements, often their own
 * BEGIN ... COMMIT). PGlite's `query` takes one statement, so scripts go through `exec`, inside a
 * PGlite transaction: a failing script then rolls back instead of leaving the only session in an
 * aborted transaction that every later query would fail on.
 */
export function pgliteBossDb(client: PGlite): BossDb {
  return {
    async executeSql(text, values) {
      if (values === undefined) return client.transaction((tx) => runScript(tx, text));
      return client.query(text, values);
    },
  };
}

/** The same adapter on a transaction already open (the application's `tx`). */
export function runnerBossDb(runner: Runner): BossDb {
  return {
    async executeSql(text, values) {
      if (values === undefined) return runScript(runner, text);
      return runner.query(text, values);
    },
  };
}

async function runScript(runner: Runner, text: string): Promise<{ rows: unknown[] }> {
  const results = await runner.exec(text);
  // The answer of a script is the last statement that returned rows (a SELECT or a RETURNING).
  const withRows = results.filter((r) => r.fields.length > 0);
  return { rows: withRows.at(-1)?.rows ?? [] };
}
