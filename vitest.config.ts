import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    // Vitest's default is one worker per core but one; most files wait on sockets and child servers.
    maxWorkers: 2,
    // A worker runs its files one after the other in one process: the app's modules are imported once
    // per worker instead of once per file (about 2 s each). Each file builds apps of its own; what
    // modules keep between apps must be the same for all of them (caches of pure functions, the
    // process's own metrics), and a closed app must leave nothing behind.
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
