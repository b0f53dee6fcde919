import { ConfigError, loadConfig, type Config } from './config.js';
import { createLogOutput } from './shared/log-output.js';
import { StartupError } from './shared/startup-error.js';

/**
 * Starts the API (`npm start`) or a worker-only process (`npm run worker`): load the configuration,
 * build the app, listen, and drain on SIGTERM/SIGINT. Configuration and start-up errors the operator
 * can fix are said in one line; anything else keeps its stack trace.
 */
export function runProcess(role: 'api' | 'worker'): void {
  main(role).catch((err: unknown) => {
    const known = err instanceof StartupError || err instanceof ConfigError;
    const text = err instanceof Error ? (known ? err.message : (err.stack ?? err.message)) : String(err);
    process.stderr.write(`${role === 'worker' ? 'Worker failed' : 'Failed'} to start: ${text}\n`);
    process.exit(1);
  });
}

async function main(role: 'api' | 'worker'): Promise<void> {
  let config: Config;
  try {
    // A worker-only process runs the jobs whatever WORKERS says (it is for API instances).
    config = role === 'worker' ? { ...loadConfig(), WORKERS: 'on' } : loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  // The application's modules load once the configuration is known good: a wrong variable is said
  // without the second or more their loading takes.
  const { API_PREFIX, buildApp } = await import('./app.js');
  // A log reader that stalls or goes away must neither hold nor stop the process (see LogOutput);
  // nor may a write of Node's own (a warning) to a closed pipe, which would throw.
  const logOutput = createLogOutput(1);
  process.on('exit', () => logOutput.flushSync());
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
  const app = await buildApp({ config, role, logStream: logOutput });
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info(
      { signal },
      role === 'worker'
        ? 'worker shutting down: finishing running jobs'
        : 'shutting down: finishing in-flight requests',
    );
    // Stop waiting after 25 s so an orchestrator's kill timeout is not reached with work half done.
    const timer = setTimeout(() => process.exit(1), 25_000).unref();
    // A keep-alive connection whose request ends after the close began would stay open until its
    // keep-alive timeout (72 s) and hold the exit: closed as soon as it is idle.
    setInterval(() => app.server.closeIdleConnections(), 100).unref();
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
  if (role === 'worker') {
    // Health for orchestrators and /metrics: job durations and failures are counted where jobs run.
    await app.listen({ host: config.HOST, port: config.WORKER_PORT });
    app.log.info(
      `worker running jobs (health and metrics on port ${config.WORKER_PORT}${API_PREFIX}, database: ${app.database.kind})`,
    );
  } else {
    await app.listen({ host: config.HOST, port: config.PORT });
    app.log.info(
      `API on http://localhost:${config.PORT}${API_PREFIX} (docs at ${API_PREFIX}/docs, database: ${app.database.kind})`,
    );
  }
}
