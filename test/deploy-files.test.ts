import { readFileSync } from 'node:fs';
import { validate } from 'dockerfile-utils';
import { describe, expect, it } from 'vitest';
import { projectRoot } from './helpers/child-server.js';

// No container engine runs where the tests do: the image's recipe is linted and its production
// rules checked as text. `npm ci --omit=dev` with a prebuilt dist/ is what its runtime stage does.

const dockerfile = readFileSync(`${projectRoot}/Dockerfile`, 'utf8');
const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
const pkg = JSON.parse(readFileSync(`${projectRoot}/package.json`, 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };

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
});

describe('package.json', () => {
  it('keeps build and type tooling out of the production dependencies', () => {
    for (const tool of ['esbuild', 'tsx', 'typescript', 'drizzle-kit', 'vitest']) {
      expect(pkg.dependencies, tool).not.toHaveProperty(tool);
      expect(pkg.devDependencies, tool).toHaveProperty(tool);
    }
  });
});
