import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, newClient, orderOk, shopWithProducts } from '../src/modules/orders/orders.test-support.js';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { freePort } from './helpers/child-server.js';
import { call } from './helpers/http.js';
import { assertMoneyInvariants } from './helpers/money-invariants.js';

// The whole purchase as a person makes it with the sandbox provider: the API listening on a real
// port, the order made over HTTP, the sandbox's checkout page opened in a real browser, Pay
// clicked, and the payment settled by the webhook the page sends. Debian's browser; the test never
// downloads one.
const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const skipReason = existsSync(CHROMIUM) ? undefined : `skipped: no browser at ${CHROMIUM} (apt-get install chromium)`;

let t: TestApp;
let browser: Browser | undefined;

beforeAll(async () => {
  if (skipReason) return;
  // The launch URL is built from PUBLIC_BASE_URL, so the port is chosen before the app is built.
  const port = await freePort();
  t = await buildTestApp({ MOBILEMONEY_PROVIDER: 'sandbox', PUBLIC_BASE_URL: `http://127.0.0.1:${port}` });
  await t.app.listen({ host: '127.0.0.1', port });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('a purchase through the sandbox checkout page', () => {
  it.skipIf(skipReason !== undefined)(
    `pays an order in a browser and the webhook credits it${skipReason ? ` (${skipReason})` : ''}`,
    async () => {
      const shop = await shopWithProducts(t, (await admin(t)).token);
      const client = await newClient(t);
      const order = await orderOk(t, client.token, [{ productId: shop.products[0]!.id }]);
      const launchUrl = (order as unknown as { payment: { redirectUrl: string } }).payment.redirectUrl;
      expect(launchUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1\/payments\/sandbox\/checkout\/cos-sbx-/);

      const page = await browser!.newPage();
      await page.goto(launchUrl, { waitUntil: 'load' });
      await Promise.all([
        page.waitForURL(/\/payments\/mobilemoney\/success\?ref=/),
        page.getByRole('button', { name: /pay/i }).first().click(),
      ]);
      // The return page reads the state from the database, which the webhook has settled.
      expect(await page.locator('[data-status]').getAttribute('data-status')).toBe('SUCCEEDED');
      await page.close();

      const status = await call(t.app, 'GET', `/payments/status/${order.id}`, { token: client.token });
      expect(status.body.data.payment).toMatchObject({
        status: 'SUCCEEDED',
        transactionId: order.payment.transactionId,
      });
      const detail = await call(t.app, 'GET', `/orders/${order.id}`, { token: client.token });
      expect(detail.body.data).toMatchObject({ status: 'PENDING', paymentStatus: 'PAID' });
      await assertMoneyInvariants(t.app);
    },
    120_000,
  );
});
