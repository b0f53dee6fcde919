import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { buildTestApp, type TestApp } from './app.js';
import { createUser, type UserOptions } from './factories.js';

// The console as an operator uses it: the API listening on a real port serves the built console
// (built by the global set-up when stale), Debian's chromium opens it. The browser is never
// downloaded; CI installs the chromium package.
const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--lang=fr-FR',
];
export const consoleSkipReason = existsSync(CHROMIUM)
  ? undefined
  : `skipped: no browser at ${CHROMIUM} (apt-get install chromium)`;

/** Where screenshots go: docs/console with `npm run console:screenshots`, a scratch folder otherwise. */
const SHOTS = process.env.CONSOLE_SCREENSHOTS_DIR ?? join('test-results', 'console');

export interface ConsoleRig {
  t: TestApp;
  browser: Browser;
  baseUrl: string;
  close(): Promise<void>;
}

export async function startConsole(env: Record<string, string> = {}): Promise<ConsoleRig> {
  const t = await buildTestApp(env);
  const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  return {
    t,
    browser,
    baseUrl: address,
    async close() {
      await browser.close();
      await t.close();
    },
  };
}

/** A fresh browser context (its own cookies) on the sign-in page; page errors fail the test. */
export async function openConsole(rig: ConsoleRig, path = '/console/'): Promise<Page> {
  const context = await rig.browser.newContext({ locale: 'fr-FR', viewport: { width: 1366, height: 900 } });
  const page = await context.newPage();
  page.on('pageerror', (err) => {
    throw err;
  });
  await page.goto(`${rig.baseUrl}${path}`);
  return page;
}

/** An administrator (or the role given) signed in through the console's own form. */
export async function signInAs(rig: ConsoleRig, page: Page, opts: UserOptions = { role: 'ADMIN' }) {
  const user = await createUser(rig.t.app, { role: 'ADMIN', ...opts });
  await page.getByLabel('Numéro de téléphone').fill(user.phoneNumber!);
  await page.getByLabel('Mot de passe').fill(user.password);
  await page.getByRole('button', { name: 'Se connecter' }).click();
  return user;
}

const axeSource = (createRequire(import.meta.url)('axe-core') as { source: string }).source;

/** axe-core on the page as it stands: no serious or critical violation (WCAG 2.x A and AA). */
export async function expectAccessible(page: Page): Promise<void> {
  // Evaluated through the DevTools protocol: the console's CSP forbids inline scripts.
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const result = await (
      window as unknown as {
        axe: {
          run: (
            ctx: unknown,
            opts: unknown,
          ) => Promise<{ violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[] }>;
        };
      }
    ).axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
    });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.slice(0, 3).map((n) => n.target.join(' ')),
    }));
  });
  expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
}

/**
 * Turns the window into a phone's (390 pixels) and waits until the page keeps that width: the layout
 * follows a render later (the menu turns into a drawer), and a wide table must scroll in its own box.
 */
export async function expectFitsPhone(page: Page): Promise<void> {
  await page.setViewportSize({ width: 390, height: 844 });
  await expect
    .poll(() => page.evaluate(() => document.documentElement.scrollWidth), { timeout: 10_000 })
    .toBeLessThanOrEqual(390);
}

/** A screenshot of the page, named for docs/console.md. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`) });
}

/**
 * Clicks a list row until the page it opens shows: react-admin re-renders a list when a debounced filter's answer
 * arrives, and a click landing on the row being replaced is lost (the operator would click again too).
 */
export async function clickUntilShown(target: Locator, shown: Locator, tries = 5): Promise<void> {
  for (let i = 1; ; i++) {
    await target.click();
    try {
      await shown.waitFor({ timeout: 6_000 });
      return;
    } catch (err) {
      // Gone from the page: the click was taken and the next page is only slow to come.
      if (!(await target.isVisible())) return shown.waitFor();
      if (i >= tries) throw err;
    }
  }
}
