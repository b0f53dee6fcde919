import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  admin,
  markOrderPaidForTest,
  newClient,
  orderOk,
  shopWithProducts,
} from '../../src/modules/orders/orders.test-support.js';
import {
  consoleSkipReason,
  expectAccessible,
  openConsole,
  screenshot,
  signInAs,
  startConsole,
  type ConsoleRig,
} from '../helpers/console.js';
import { privateDatabase, type PrivateDatabase } from '../helpers/database.js';
import { call } from '../helpers/http.js';

// Signing in and out of the console, the refusal of other roles, and the dashboard's charts drawn
// with the API's numbers (platform-wide figures: a database of its own).
const skip = consoleSkipReason !== undefined;
let rig: ConsoleRig;
let db: PrivateDatabase;

beforeAll(async () => {
  if (skip) return;
  db = await privateDatabase();
  rig = await startConsole(db.env);
}, 120_000);
afterAll(async () => {
  await rig?.close();
  await db?.drop();
});

describe.skipIf(skip)(`the console's session${consoleSkipReason ? ` (${consoleSkipReason})` : ''}`, () => {
  it('signs an administrator in, keeps the session across a reload, and signs out for good', async () => {
    const page = await openConsole(rig);
    await expect(page.getByRole('heading', { name: 'FoodSave · Console' })).toBeDefined();
    await page.getByLabel('Numéro de téléphone').waitFor();
    await expectAccessible(page);
    await screenshot(page, 'sign-in');
    await signInAs(rig, page, { role: 'ADMIN', firstName: 'Aminata', lastName: 'Ndiaye' });
    await page.getByRole('heading', { name: 'Tableau de bord', level: 1 }).waitFor();

    // The refresh token is an httpOnly cookie for the session routes alone; nothing in storage.
    const cookies = await page.context().cookies();
    const refresh = cookies.find((c) => c.name === 'console_refresh');
    expect(refresh).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/api/v1/auth/console' });
    const stored = await page.evaluate(
      () => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }),
    );
    expect(stored).not.toContain(refresh!.value);
    expect(stored).not.toMatch(/eyJ[\w-]+\.eyJ/);

    await page.reload();
    await page.getByRole('heading', { name: 'Tableau de bord', level: 1 }).waitFor();
    await page.getByText('Aminata Ndiaye').click();
    await page.getByRole('menuitem', { name: 'Déconnexion' }).click();
    await page.getByLabel('Numéro de téléphone').waitFor();
    // The session is over on the server: the cookie no longer opens it.
    await page.goto(`${rig.baseUrl}/console/users`);
    await page.getByLabel('Numéro de téléphone').waitFor();
    const again = await page.request.post(`${rig.baseUrl}/api/v1/auth/console/refresh`, {
      headers: { cookie: `console_refresh=${refresh!.value}` },
    });
    expect(again.status()).toBe(401);
    await page.context().close();
  });

  it('shows other roles a refusal page and opens no session', async () => {
    const page = await openConsole(rig);
    await signInAs(rig, page, { role: 'SUPPLIER_FOOD' });
    await page.getByRole('heading', { name: 'Accès réservé aux administrateurs' }).waitFor();
    await expectAccessible(page);
    await screenshot(page, 'refusal');
    expect((await page.context().cookies()).find((c) => c.name === 'console_refresh')).toBeUndefined();
    await page.context().close();
  });

  it('switches to English and back', async () => {
    const page = await openConsole(rig);
    await signInAs(rig, page);
    await page.getByRole('heading', { name: 'Tableau de bord', level: 1 }).waitFor();
    await page.getByRole('button', { name: /Français/i }).click();
    await page.getByRole('menuitem', { name: 'English' }).click();
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    await page.getByRole('button', { name: /English/i }).click();
    await page.getByRole('menuitem', { name: 'Français' }).click();
    await page.getByRole('heading', { name: 'Tableau de bord', level: 1 }).waitFor();
    await page.context().close();
  });

  it("draws the dashboard's charts with the API's numbers", async () => {
    const { t } = rig;
    const boss = await admin(t);
    const shop = await shopWithProducts(t, boss.token, 2);
    for (const product of shop.products) {
      const client = await newClient(t);
      const order = await orderOk(t, client.token, [{ productId: product.id }]);
      await markOrderPaidForTest(t, order.id);
    }
    const page = await openConsole(rig);
    await signInAs(rig, page);
    await page.locator('svg[data-chart]').first().waitFor();
    await page.locator('svg[data-chart]').nth(3).waitFor();
    await expectAccessible(page);
    await screenshot(page, 'dashboard');

    const today = t.clock.now().toISOString().slice(0, 10);
    const bar = (series: string) =>
      page.locator(`rect[data-series="${series}"][data-label="${today}"]`).getAttribute('data-value');
    const window = {
      from: new Date(t.clock.now().getTime() - 30 * 86_400_000).toISOString(),
      to: t.clock.now().toISOString(),
    };
    const payments = (
      await call(t.app, 'GET', '/admin/payments/statistics', { token: boss.token, query: { ...window, period: 'day' } })
    ).body.data;
    const paidToday = payments.perPeriod.find((p: { period: string }) => p.period === today).succeeded.count;
    expect(paidToday).toBeGreaterThanOrEqual(2);
    expect(Number(await bar('Paiements réussis'))).toBe(paidToday);
    const money = (
      await call(t.app, 'GET', '/admin/reports/financial', { token: boss.token, query: { ...window, groupBy: 'day' } })
    ).body.data;
    expect(Number(await bar('Volume'))).toBe(money.periods.find((p: { period: string }) => p.period === today).gmv);
    const growth = (
      await call(t.app, 'GET', '/admin/analytics/user-growth', {
        token: boss.token,
        query: { ...window, groupBy: 'day' },
      })
    ).body.data;
    expect(Number(await bar('Inscriptions'))).toBe(
      growth.periods.find((p: { period: string }) => p.period === today).total,
    );

    // Each queue's count links to its page; advertising revenue has its card beside the commission's.
    const sections = (await call(t.app, 'GET', '/admin/dashboard/stats', { token: boss.token })).body.data.sections;
    const stats = sections.moderation;
    expect(await page.getByText('Publicité (30 j)').isVisible()).toBe(true);
    expect(sections.money.advertising).toHaveProperty('last30Days');
    const queues = page.getByRole('navigation', { name: 'À traiter' });
    await expect(queues.getByRole('link', { name: /Produits/ }).textContent()).resolves.toContain(
      String(stats.products),
    );
    await page.context().close();
  });
});
