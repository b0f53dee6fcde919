import { API_PREFIX, buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';

/**
 * A worker-only process (`npm run worker`): runs the job handlers and cron schedules, serves no API.
 * It listens on WORKER_PORT for health (orchestrators) and /metrics (job durations and failures
 * are counted in the process that runs the jobs). API instances then run with WORKERS=off.
 */
async function main(): Promise<void> {
  let config;
  try {
    config = { ...loadConfig(), WORKERS: 'on' as const };
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const app = await buildApp({ config, role: 'worker' });
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'worker shutting down: finishing running jobs');
    const timer = setTimeout(() => process.exit(1), 25_000).unref();
    app.close().then(
      () => {
        clearTimeout(timer);
        process.exit(0);
      },
      (err: unknown) => {
        app.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  await app.listen({ host: config.HOST, port: config.WORKER_PORT });
  app.log.info(`worker running jobs (health and metrics on port ${config.WORKER_PORT}${API_PREFIX}, database: ${app.database.kind})`);
}

main().catch((err: unknown) => {
  process.stderr.write(`Worker failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
