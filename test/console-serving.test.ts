import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { consoleDirectives, foreignOrigins } from '../src/http/console.js';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { projectRoot } from './helpers/child-server.js';
import { consoleSkipReason, startConsole } from './helpers/console.js';
import { addressOf } from './helpers/http.js';

// The operators' console as a Vite build leaves it: index.html naming hashed assets, an icon beside it.
const root = mkdtempSync(join(tmpdir(), 'foodsave-console-'));
const dir = join(root, 'dist');
const SCRIPT = 'index-B2x9Qa7c.js';
const page = (build: string) =>
  `<!doctype html><html><head><script type="module" crossorigin src="/console/assets/${SCRIPT}"></script></head><body data-build="${build}"></body></html>`;
const script = `console.log(${JSON.stringify('operators '.repeat(400))});\n`;
// Beside the build, where a path that leaves the directory would land.
const SECRET = 'not-for-browsers-3f1c';

const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "font-src 'self' data:",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "object-src 'none'",
].join(';');

let t: TestApp;
let port: number;
const logs: string[] = [];
let unbuilt: TestApp;

beforeAll(async () => {
  mkdirSync(join(dir, 'assets'), { recursive: true });
  writeFileSync(join(dir, 'index.html'), page('one'));
  writeFileSync(join(dir, 'assets', SCRIPT), script);
  writeFileSync(join(dir, 'assets', 'index-Cw3e81aa.css'), 'body{margin:0}');
  writeFileSync(join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  writeFileSync(join(dir, '.build-stamp'), 'stamp\n');
  writeFileSync(join(root, 'secret.txt'), SECRET);
  mkdirSync(join(root, 'empty'));
  [t, unbuilt] = await Promise.all([
    buildTestApp({ CONSOLE_DIR: dir }),
    buildTestApp({ CONSOLE_DIR: join(root, 'empty'), LOG_LEVEL: 'warn' }, { write: (line) => void logs.push(line) }),
  ]);
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  port = (t.app.server.address() as AddressInfo).port;
});
afterAll(async () => {
  await Promise.all([t?.close(), unbuilt?.close()]);
  rmSync(root, { recursive: true, force: true });
});

const get = (url: string, headers: Record<string, string> = {}, app = t.app, method: 'GET' | 'HEAD' = 'GET') =>
  app.inject({ method, url, headers, remoteAddress: addressOf(app) });

/** The request line sent as written: clients (and the injector) resolve `..` before sending, attackers do not. */
const rawGet = (path: string) =>
  new Promise<{ status: number; text: string }>((done, fail) => {
    const socket = connect(port, '127.0.0.1', () =>
      socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`),
    );
    let text = '';
    socket.on('data', (d) => (text += d.toString('latin1')));
    socket.on('end', () => done({ status: Number(text.split(' ')[1]), text }));
    socket.on('error', fail);
  });

describe('hashed assets', () => {
  it('are kept a year, typed, tagged, compressed, and answer 304 to their tag', async () => {
    const res = await get(`/console/assets/${SCRIPT}`, { 'accept-encoding': 'gzip' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(String(res.headers.vary).toLowerCase()).toContain('accept-encoding');
    expect(gunzipSync(res.rawPayload).toString()).toBe(script);
    const etag = String(res.headers.etag);
    expect(etag).toBe(`W/"${SCRIPT}"`);

    const again = await get(`/console/assets/${SCRIPT}`, { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers['cache-control']).toBe('public, max-age=31536000, immutable');

    const css = await get('/console/assets/index-Cw3e81aa.css');
    expect([css.statusCode, css.headers['content-type'], css.body]).toEqual([
      200,
      'text/css; charset=utf-8',
      'body{margin:0}',
    ]);
  });

  it('answer HEAD with the headers of GET and no body', async () => {
    const res = await get(`/console/assets/${SCRIPT}`, {}, t.app, 'HEAD');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.headers['content-length']).toBe(String(Buffer.byteLength(script)));
    expect(res.body).toBe('');
  });

  it('a missing one is a 404 in the error envelope, never the page', async () => {
    for (const url of [
      '/console/assets/index-gone0000.js',
      '/console/assets/',
      '/console/assets',
      '/console/assets/deep/er.js',
    ]) {
      const res = await get(url, { accept: 'text/html,*/*' });
      expect(res.statusCode, url).toBe(404);
      expect(res.json(), url).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
      expect(res.headers['cache-control'], url).toBe('no-store');
    }
  });
});

describe('the page', () => {
  it('answers /console, /console/ and client-side routes with index.html, revalidated, under the console policy', async () => {
    for (const url of [
      '/console',
      '/console/',
      '/console/products/123',
      '/console/orders?status=PAID',
      '/console/a/b/',
    ]) {
      const res = await get(url, { accept: 'text/html' });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type'], url).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control'], url).toBe('no-cache');
      expect(res.headers['content-security-policy'], url).toBe(CSP);
      expect(res.headers['x-frame-options'], url).toBe('DENY');
      expect(res.body, url).toBe(page('one'));
    }
  });

  it('is tagged, answers 304 while unchanged, and a new build is served at once', async () => {
    const first = await get('/console/products');
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^W\/"/);
    const same = await get('/console/', { 'if-none-match': etag });
    expect([same.statusCode, same.body]).toEqual([304, '']);

    writeFileSync(join(dir, 'index.html'), page('two'));
    try {
      const changed = await get('/console/', { 'if-none-match': etag });
      expect(changed.statusCode).toBe(200);
      expect(changed.body).toBe(page('two'));
      expect(changed.headers.etag).not.toBe(etag);
    } finally {
      writeFileSync(join(dir, 'index.html'), page('one'));
    }
  });

  it('answers HEAD', async () => {
    const res = await get('/console/products/123', {}, t.app, 'HEAD');
    expect([res.statusCode, res.headers['content-type'], res.body]).toEqual([200, 'text/html; charset=utf-8', '']);
  });

  it('serves the other files of the build, revalidated, and never its dotfiles', async () => {
    const icon = await get('/console/favicon.svg');
    expect([icon.statusCode, icon.headers['content-type'], icon.headers['cache-control']]).toEqual([
      200,
      'image/svg+xml',
      'no-cache',
    ]);
    expect((await get('/console/.build-stamp')).statusCode).toBe(404);
  });

  it('leaves the policy of the API and its reference page as it was', async () => {
    const docs = await get('/api/v1/docs/');
    const policy = String(docs.headers['content-security-policy']);
    expect(policy).toContain("frame-ancestors 'self'");
    expect(policy).not.toBe(CSP);
    expect(docs.headers['x-frame-options']).toBe('SAMEORIGIN');
  });
});

describe('paths that leave the directory', () => {
  const tries = [
    '/console/../secret.txt',
    '/console/assets/../../secret.txt',
    '/console/%2e%2e/secret.txt',
    '/console/%2E%2E/%2E%2E/package.json',
    '/console/..%2fsecret.txt',
    '/console/assets/..%2f..%2fsecret.txt',
    '/console/assets/%2e%2e%2f%2e%2e%2fsecret.txt',
    '/console/assets/..%5c..%5csecret.txt',
    '/console/..\\secret.txt',
    '/console/../../package.json',
  ];
  it.each(tries)('%s is refused', async (path) => {
    const res = await rawGet(path);
    expect(res.status, res.text).toBe(404);
    expect(res.text).not.toContain(SECRET);
    expect(res.text).not.toContain('"name": "foodsave-api"');
  });

  it('a doubly encoded dot-dot is a name like any other: the page, not a file outside', async () => {
    const res = await rawGet('/console/%252e%252e/secret.txt');
    expect(res.status).toBe(200);
    expect(res.text).toContain('data-build="one"');
    expect(res.text).not.toContain(SECRET);
  });
});

describe('without a build', () => {
  it('answers 503 saying how to build it, as a page to browsers and an envelope to the rest; the API works', async () => {
    const html = await get('/console/products/1', { accept: 'text/html,application/xhtml+xml' }, unbuilt.app);
    expect(html.statusCode).toBe(503);
    expect(html.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(html.headers['cache-control']).toBe('no-store');
    expect(html.headers['content-security-policy']).toBe(CSP);
    expect(html.body).toContain('npm run build');

    const json = await get('/console', {}, unbuilt.app);
    expect(json.statusCode).toBe(503);
    expect(json.json()).toMatchObject({
      success: false,
      error: { code: 'SERVICE_UNAVAILABLE', message: expect.stringContaining('npm run build') },
    });
    expect((await get(`/console/assets/${SCRIPT}`, {}, unbuilt.app)).statusCode).toBe(404);
    expect((await get('/api/v1/health', {}, unbuilt.app)).statusCode).toBe(200);
  });

  it('says so once in the log at start-up', () => {
    const lines = logs.filter((l) => l.includes('console not built'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('npm run build');
  });
});

describe('configuration', () => {
  it('CONSOLE_DIR defaults to console/dist of the installation, whatever the working directory', () => {
    expect(loadConfig({}).CONSOLE_DIR).toBe(resolve(projectRoot, 'console/dist'));
    expect(loadConfig({ CONSOLE_DIR: 'elsewhere/build' }).CONSOLE_DIR).toBe(resolve('elsewhere/build'));
  });

  it('lets pictures come from the origin of public files when it is not ours', () => {
    expect(foreignOrigins('/api/v1/files/public/')).toEqual([]);
    expect(foreignOrigins('https://cdn.example.com/foodsave/public/', 'https://cdn.example.com/x/')).toEqual([
      'https://cdn.example.com',
    ]);
    expect(consoleDirectives(['https://cdn.example.com'])['img-src']).toEqual([
      "'self'",
      'data:',
      'blob:',
      'https://cdn.example.com',
    ]);
  });
});

describe('the built console in a browser', () => {
  // The real build (CONSOLE_DIR's default, built by the global setup) under the policy above: React renders,
  // MUI's emotion injects its styles, and nothing is refused.
  it.skipIf(consoleSkipReason !== undefined)(
    `opens a deep link with nothing refused by its policy${consoleSkipReason ? ` (${consoleSkipReason})` : ''}`,
    async () => {
      const rig = await startConsole();
      try {
        const page = await rig.browser.newPage();
        const refused: string[] = [];
        const failed: string[] = [];
        await page.addInitScript(() => {
          document.addEventListener('securitypolicyviolation', (e) =>
            console.error(`CSP refused ${e.violatedDirective}: ${e.blockedURI}`),
          );
        });
        page.on('console', (m) => {
          if (/CSP refused|Content Security Policy/.test(m.text())) refused.push(m.text());
        });
        page.on('response', (r) => {
          if (new URL(r.url()).pathname.startsWith('/console') && r.status() >= 400)
            failed.push(`${r.status()} ${r.url()}`);
        });
        const res = await page.goto(`${rig.baseUrl}/console/products/123`);
        expect(res?.status()).toBe(200);
        expect(res?.headers()['content-security-policy']).toBe(CSP);
        await page.locator('#root > *').first().waitFor();
        expect(await page.locator('style[data-emotion]').count(), 'emotion styles applied').toBeGreaterThan(0);
        expect(refused).toEqual([]);
        expect(failed).toEqual([]);
      } finally {
        await rig.close();
      }
    },
    120_000,
  );
});
