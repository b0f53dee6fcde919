import { API_PREFIX, buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { StartupError } from './shared/startup-error.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const app = await buildApp({ config });
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    // Stop waiting after 25 s so an orchestrator's kill timeout is not reached with work half done.
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
  await app.listen({ host: config.HOST, port: config.PORT });
  app.log.info(`API on http://localhost:${config.PORT}${API_PREFIX} (docs at ${API_PREFIX}/docs, database: ${app.database.kind})`);
}

main().catch((err: unknown) => {
  // What the operator can fix is said in one line; anything else keeps its stack trace.
  const known = err instanceof StartupError || err instanceof ConfigError;
  process.stderr.write(`Failed to start: ${err instanceof Error ? (known ? err.message : (err.stack ?? err.message)) : String(err)}\n`);
  process.exit(1);
});
