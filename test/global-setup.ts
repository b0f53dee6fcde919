import pg from 'pg';

/**
 * On a real PostgreSQL server the whole run gets its own database, made here and dropped at the
 * end, so runs never see each other's rows. Test files still share it and run in parallel.
 */
export default async function setup() {
  const base = process.env.DATABASE_URL;
  if (!base) return undefined;
  const name = `foodsave_test_${Date.now()}_${process.pid}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  process.env.DATABASE_URL = url.toString();
  return async () => {
    const client = new pg.Client({ connectionString: base });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await client.end();
  };
}
