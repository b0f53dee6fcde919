// `npm run seed`: fills the database with the demo accounts, suppliers and stores (src/seed/),
// on the same database `npm start` uses (DATABASE_URL, or the embedded one in DATA_DIR).
// The embedded database must not be open in another process (its lock makes the seed refuse): stop the server first.
import { buildApp } from '../src/app.js';
import { ConfigError, loadConfig } from '../src/config.js';
import { formatReport, runSeed } from '../src/seed/seed.js';
import { StartupError } from '../src/shared/startup-error.js';

function where(config: { DATABASE_URL?: string; DATA_DIR: string }): string {
  if (!config.DATABASE_URL) return `the embedded database in ${config.DATA_DIR}`;
  const url = new URL(config.DATABASE_URL);
  return `PostgreSQL at ${url.host}${url.pathname}`;
}

async function main(): Promise<number> {
  let config;
  try {
    // The report is the output; the application's own log shows only problems unless asked for.
    config = loadConfig({ ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' });
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      return 1;
    }
    throw err;
  }
  if (config.NODE_ENV === 'production') {
    process.stderr.write('The demo data has published passwords: it is not seeded when NODE_ENV=production.\n');
    return 1;
  }
  process.stdout.write(`Seeding ${where(config)}\n`);
  const app = await buildApp({ config });
  try {
    await app.ready();
    process.stdout.write(formatReport(await runSeed(app)));
  } finally {
    await app.close();
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    // A database in use or out of reach is said in one line, as the server says it.
    const known = err instanceof StartupError;
    process.stderr.write(
      `Seeding failed: ${err instanceof Error ? (known ? err.message : (err.stack ?? err.message)) : String(err)}\n`,
    );
    process.exit(1);
  },
);
