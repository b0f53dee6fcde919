import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from './helpers/app.js';

// Debian's browser; the test never downloads one.
const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

// The page must work when reached by a machine's network address over plain HTTP, where browsers
// apply every security header (on localhost some are relaxed, which hid the blank page).
const address = Object.values(networkInterfaces())
  .flat()
  .find((a) => a?.family === 'IPv4' && !a.internal)?.address;
const skipReason = !existsSync(CHROMIUM)
  ? `skipped: no browser at ${CHROMIUM} (apt-get install chromium)`
  : !address
    ? 'skipped: this machine has no non-loopback IPv4 address'
    : undefined;

// Chromium reports Cross-Origin-Opener-Policy as ignored on any plain-HTTP origin but localhost;
// the header still applies once a TLS proxy serves the page, and it blocks nothing here.
const HARMLESS = [/Cross-Origin-Opener-Policy header has been ignored, because the URL's origin was untrustworthy/];

let t: TestApp;
let browser: Browser;
let base: string;

beforeAll(async () => {
  if (skipReason) return;
  t = await buildTestApp();
  await t.app.listen({ host: '0.0.0.0', port: 0 });
  base = `http://${address}:${(t.app.server.address() as AddressInfo).port}`;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('the interactive reference over plain HTTP', () => {
  it.skipIf(skipReason !== undefined)(
    `renders every tag and operation with nothing blocked${skipReason ? ` (${skipReason})` : ''}`,
    async () => {
      const page = await browser.newPage();
      const problems: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error' && !HARMLESS.some((h) => h.test(m.text()))) problems.push(`console: ${m.text()}`);
      });
      page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
      page.on('requestfailed', (r) => problems.push(`failed: ${r.url()} ${r.failure()?.errorText}`));
      page.on('response', (r) => {
        if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`);
      });

      const res = await page.goto(`${base}/api/v1/docs`, { waitUntil: 'load' });
      expect(res?.status()).toBe(200);
      expect(res?.headers()['content-security-policy']).not.toContain('upgrade-insecure-requests');

      // Swagger UI builds the page from the document: a tag section and an operation summary show it ran.
      const login = page.locator('.opblock-summary', { hasText: 'Sign in with phone number and password' });
      await login.first().waitFor({ state: 'visible', timeout: 60_000 });
      const doc = t.app.swagger() as { tags: { name: string }[] };
      const shownTags = await page.locator('.opblock-tag-section h3').allInnerTexts();
      expect(shownTags.map((s) => s.trim())).toEqual(
        expect.arrayContaining(doc.tags.map((tag) => expect.stringContaining(tag.name))),
      );
      expect(await page.locator('.opblock').count()).toBeGreaterThan(50);
      expect(problems).toEqual([]);
      await page.close();
    },
    120_000,
  );
});
