import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bareEnv, killLeftovers, projectRoot, READY_TIMEOUT_MS, spawnServer, type ChildServer } from './helpers/child-server.js';
import { uniquePhone } from './helpers/factories.js';

// The whole purchase as a person makes it with the sandbox provider: a real server process, the
// order made over HTTP, the sandbox's checkout page opened in a real browser, Pay clicked, and the
// payment settled by the webhook the page sends. Debian's browser; the test never downloads one.
const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const skipReason = existsSync(CHROMIUM) ? undefined : `skipped: no browser at ${CHROMIUM} (apt-get install chromium)`;

const dir = mkdtempSync(join(tmpdir(), 'foodsave-sandbox-'));
let server: ChildServer | undefined;
let browser: Browser | undefined;

beforeAll(async () => {
  if (skipReason) return;
  const env = bareEnv({ DATA_DIR: join(dir, 'data'), MOBILEMONEY_PROVIDER: 'sandbox' });
  // The seed's stores and products; only one process may hold the embedded database, so it runs first.
  await promisify(execFile)('npm', ['run', '-s', 'seed'], { cwd: projectRoot, env });
  server = await spawnServer({ env });
  await server.waitReady();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}, 3 * READY_TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  killLeftovers();
  rmSync(dir, { recursive: true, force: true });
});

async function api(method: string, path: string, opts: { token?: string; body?: unknown } = {}) {
  const res = await fetch(`${server!.api}${path}`, {
    method,
    headers: { ...(opts.body !== undefined && { 'content-type': 'application/json' }), ...(opts.token && { authorization: `Bearer ${opts.token}` }) },
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

/** Registers a client over HTTP; the SMS code is read from the server's log (the log-only SMS adapter). */
async function registerClient(): Promise<string> {
  const phoneNumber = uniquePhone();
  const reg = await api('POST', '/auth/register', { body: { phoneNumber, password: 'Mango-Season-24', role: 'CLIENT', firstName: 'Awa', lastName: 'Diop' } });
  expect(reg.status, JSON.stringify(reg.body)).toBe(201);
  const pattern = new RegExp(`"to":"\\${phoneNumber}".*?code is (\\d+)`);
  let code: string | undefined;
  for (let i = 0; i < 300 && !code; i++) {
    code = pattern.exec(server!.output())?.[1];
    if (!code) await new Promise((r) => setTimeout(r, 100));
  }
  expect(code, 'the registration code in the server log').toBeDefined();
  const verified = await api('POST', '/auth/verify-otp', { body: { phoneNumber, code, purpose: 'registration' } });
  expect(verified.status, JSON.stringify(verified.body)).toBe(200);
  return verified.body.data.accessToken as string;
}

describe('a purchase through the sandbox checkout page', () => {
  it.skipIf(skipReason !== undefined)(`pays an order in a browser and the webhook credits it${skipReason ? ` (${skipReason})` : ''}`, async () => {
    const token = await registerClient();
    // A seeded product whose pickup window spans the day (10:00-22:00 in Dakar) and lasts three days.
    const found = await api('GET', '/products/search?q=conserves');
    const product = (found.body.data as { id: string; name: string }[]).find((p) => p.name === 'Conserves de tomate');
    expect(product, JSON.stringify(found.body)).toBeDefined();
    const order = await api('POST', '/orders', { token, body: { items: [{ productId: product!.id, quantity: 1 }], paymentMethod: 'wave' } });
    expect(order.status, JSON.stringify(order.body)).toBe(201);
    const launchUrl = order.body.data.payment.redirectUrl as string;
    expect(launchUrl).toContain('/payments/sandbox/checkout/cos-sbx-');

    const page = await browser!.newPage();
    await page.goto(launchUrl, { waitUntil: 'load' });
    await Promise.all([page.waitForURL(/\/payments\/mobilemoney\/success\?ref=/), page.getByRole('button', { name: /pay/i }).first().click()]);
    // The return page reads the state from the database, which the webhook has settled.
    expect(await page.locator('[data-status]').getAttribute('data-status')).toBe('SUCCEEDED');
    await page.close();

    const status = await api('GET', `/payments/status/${order.body.data.id}`, { token });
    expect(status.body.data.payment).toMatchObject({ status: 'SUCCEEDED', transactionId: order.body.data.payment.transactionId });
    const detail = await api('GET', `/orders/${order.body.data.id}`, { token });
    expect(detail.body.data).toMatchObject({ status: 'PENDING', paymentStatus: 'PAID' });
  }, 180_000);
});
