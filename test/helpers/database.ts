import pg from 'pg';
import { randomBytes } from 'node:crypto';

export interface PrivateDatabase {
  /** Pass to buildTestApp: every app built with it shares this database. */
  env: Record<string, string>;
  /** Drops the database; call once its apps are closed. */
  drop(): Promise<void>;
}

/**
 * A database of its own for a suite that changes what every suite reads, such as the platform
 * settings: on PostgreSQL the test files of a run share one database and run in parallel. The
 * embedded database is already private to each app, so there this gives nothing to change.
 */
export async function privateDatabase(): Promise<PrivateDatabase> {
  const base = process.env.DATABASE_URL;
  if (!base) return { env: {}, drop: async () => undefined };
  const name = `foodsave_private_${randomBytes(8).toString('hex')}`;
  const run = async (statement: string) => {
    const client = new pg.Client({ connectionString: base });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await run(`CREATE DATABASE ${name}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  return { env: { DATABASE_URL: url.toString() }, drop: () => run(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
