import { readFileSync } from 'node:fs';
import { validate } from 'dockerfile-utils';
import { spawnSync } from 'node:child_process';
import semver from 'semver';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { projectRoot } from './helpers/child-server.js';

// No container engine runs where the tests do: the image's recipe is linted and its production
// rules checked as text. `npm ci --omit=dev` with a prebuilt dist/ is what its runtime stage does.

const dockerfile = readFileSync(`${projectRoot}/Dockerfile`, 'utf8');
const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
const buildStage = dockerfile.slice(
  dockerfile.indexOf('\nFROM '),
  dockerfile.indexOf('\nFROM ', dockerfile.indexOf('\nFROM ') + 1),
);
const pkg = JSON.parse(readFileSync(`${projectRoot}/package.json`, 'utf8')) as {
  engines: { node: string };
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const ignoreLines = (file: string) =>
  readFileSync(`${projectRoot}/${file}`, 'utf8')
    .split('\n')
    .map((l) => l.trim());

describe('the Dockerfile', () => {
  it('passes the Dockerfile linter with nothing to report', () => {
    expect(validate(dockerfile).map((d) => `line ${d.range.start.line + 1}: ${d.message}`)).toEqual([]);
  });

  it('runs node as PID 1, as a non-root user, on production dependencies, with a health check', () => {
    expect(runtime).toMatch(/^CMD \["node", [^\n]*"dist\/src\/server\.js"\]$/m);
    expect(runtime).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/^RUN npm ci --omit=dev/m);
    expect(runtime).toMatch(/^HEALTHCHECK [\s\S]*\/api\/v1\/health/m);
    expect(runtime).not.toMatch(/npm (start|run)/);
  });

  it('builds the console with the API and ships it built, without its sources or Vite', () => {
    expect(buildStage).toMatch(/ AS build\n/);
    const buildAt = buildStage.search(/^RUN npm run build$/m);
    for (const dir of ['console', 'clients']) {
      const copy = buildStage.search(new RegExp(`^COPY ${dir} \\./${dir}$`, 'm'));
      expect(copy, `COPY ${dir}`).toBeGreaterThan(-1);
      expect(copy, `COPY ${dir} before the build`).toBeLessThan(buildAt);
    }
    expect(runtime).toMatch(/^COPY --from=build \/app\/console\/dist \.\/console\/dist$/m);
    expect(runtime).not.toMatch(/^COPY (--from=build \/app\/)?(console|clients)( |\/src)/m);
    const instructions = runtime
      .split('\n')
      .filter((l) => !l.startsWith('#'))
      .join('\n');
    expect(instructions).not.toMatch(/vite/i);
  });
});

describe('ignore files', () => {
  it('keep the built console out of git, and local builds and packages out of the image context', () => {
    expect(ignoreLines('.gitignore')).toContain('console/dist/');
    const docker = ignoreLines('.dockerignore');
    for (const entry of ['console/dist', 'console/dist.*', '**/node_modules', 'dist'])
      expect(docker, entry).toContain(entry);
  });
});

describe('package.json', () => {
  it('keeps build and type tooling out of the production dependencies', () => {
    for (const tool of ['esbuild', 'tsx', 'typescript', 'drizzle-kit', 'vitest', 'vite', '@vitejs/plugin-react']) {
      expect(pkg.dependencies, tool).not.toHaveProperty(tool);
      expect(pkg.devDependencies, tool).toHaveProperty(tool);
    }
  });

  it('builds the console with `npm run build`, and with `npm start` when it is missing or stale', () => {
    expect(pkg.scripts.build).toContain('node scripts/build-console.mjs');
    expect(pkg.scripts.start).toMatch(/node scripts\/build-console\.mjs --if-stale && exec node /);
  });
});

describe('Node.js versions', () => {
  const lts = readFileSync(`${projectRoot}/.nvmrc`, 'utf8').trim();

  it('builds the image on the LTS of .nvmrc, which the engines field admits with the Node running here', () => {
    expect(dockerfile).toMatch(new RegExp(`^ARG NODE_VERSION=${lts.replaceAll('.', '\\.')}$`, 'm'));
    expect(semver.satisfies(`${lts}.0`, pkg.engines.node), pkg.engines.node).toBe(true);
    expect(semver.satisfies(process.version, pkg.engines.node), process.version).toBe(true);
  });

  it('has CI run the suite once more under that LTS', () => {
    expect(readFileSync(`${projectRoot}/.ci/run`, 'utf8')).toMatch(/^env [^\n]*scripts\/with-node-lts\.sh npm test$/m);
  });
});

describe('docker-compose.yml', () => {
  type Service = {
    command?: string[];
    environment?: Record<string, string>;
    deploy?: { replicas?: number };
    ports?: string[];
    volumes?: string[];
  };
  const compose = parse(readFileSync(`${projectRoot}/docker-compose.yml`, 'utf8'), { merge: true }) as {
    services: Record<string, Service>;
  };
  const { api, worker, proxy } = compose.services;

  it('runs two API replicas without jobs behind the proxy, and one worker, sharing the database, Redis and bucket', () => {
    expect(api!.deploy?.replicas).toBe(2);
    expect(api!.environment).toMatchObject({ WORKERS: 'off', TRUST_PROXY: 'true' });
    expect(api!.ports).toBeUndefined();
    expect(worker!.command).toContain('dist/src/worker.js');
    for (const s of [api!, worker!])
      expect(Object.keys(s.environment ?? {})).toEqual(
        expect.arrayContaining(['DATABASE_URL', 'REDIS_URL', 'FILES_STORAGE', 'S3_ENDPOINT', 'S3_BUCKET']),
      );
    expect(proxy!.ports).toEqual(['3000:80']);
    expect(proxy!.volumes).toContain('./deploy/nginx.conf:/etc/nginx/conf.d/default.conf:ro');
  });

  it('has a proxy that follows the replicas, passes uploads and leaves the event stream unbuffered', () => {
    const nginx = readFileSync(`${projectRoot}/deploy/nginx.conf`, 'utf8');
    expect(nginx).toMatch(/server api:3000 resolve;/);
    expect(nginx).toMatch(/client_max_body_size 30m;/);
    expect(nginx).toMatch(/location \/api\/v1\/notifications\/stream \{[^}]*proxy_buffering off;/);
  });

  const cli = spawnSync('docker', ['compose', 'version'], { encoding: 'utf8' });
  it.skipIf(cli.status !== 0)('is valid for `docker compose config`', () => {
    const run = spawnSync('docker', ['compose', 'config', '--quiet'], { cwd: projectRoot, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });
});
