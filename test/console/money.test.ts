import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { escrow as escrowAccount, refundsPending, supplierPayable } from '../../src/modules/ledger/accounts.js';
import { admin, paidOrder, shop } from '../../src/modules/escrow/escrow.test-support.js';
import {
  expectFitsPhone,
  clickUntilShown,
  consoleSkipReason,
  expectAccessible,
  openConsole,
  screenshot,
  signInAs,
  startConsole,
  type ConsoleRig,
} from '../helpers/console.js';
import { privateDatabase, type PrivateDatabase } from '../helpers/database.js';
import { createSignedIn } from '../helpers/factories.js';
import { call } from '../helpers/http.js';
import { assertMoneyInvariants } from '../helpers/money-invariants.js';

// The money pages as an operator uses them: escrows decided through their confirmations, payouts,
// payment statistics and the financial report with its CSV. The report and the statistics are
// platform-wide figures compared with the API's: a database of its own.
const skip = consoleSkipReason !== undefined;
let rig: ConsoleRig;
let db: PrivateDatabase;
let adminToken: string;

beforeAll(async () => {
  if (skip) return;
  db = await privateDatabase();
  rig = await startConsole(db.env);
  adminToken = (await admin(rig.t)).token;
}, 120_000);
afterAll(async () => {
  await rig?.close();
  await db?.drop();
});

/** Spaces of any kind (Intl puts narrow no-break spaces in amounts) as one plain space. */
const plain = (text: string | null) => (text ?? '').replace(/\s+/g, ' ').trim();
const xof = (n: number) => plain(new Intl.NumberFormat('fr-SN', { style: 'currency', currency: 'XOF' }).format(n));

/** A page signed in as an administrator, opened at `path` (the session survives the load through its cookie). */
async function signedIn(path: string): Promise<Page> {
  const page = await openConsole(rig);
  await signInAs(rig, page);
  await page.getByRole('heading', { name: 'Tableau de bord', level: 1 }).waitFor();
  await page.goto(`${rig.baseUrl}/console${path}`);
  return page;
}

/** A held order of a new shop, paid through the provider's signed webhook; `complete` collects it. */
async function heldOrder(opts: { complete?: boolean } = {}) {
  const s = await shop(rig.t, adminToken);
  const client = await createSignedIn(rig.t.app, { firstName: 'Awa', lastName: `Diop ${s.profile.id.slice(-4)}` });
  const { order } = await paidOrder(rig.t, s, { client, complete: opts.complete });
  return { s, order, clientName: `Awa Diop ${s.profile.id.slice(-4)}` };
}

const escrowOf = async (orderId: string) =>
  (await call(rig.t.app, 'GET', `/admin/payments/escrow/${orderId}`, { token: adminToken })).body.data;

/** Every Idempotency-Key the page sent with an escrow decision, in order. */
function keysSent(page: Page): string[] {
  const keys: string[] = [];
  page.on('request', (r) => {
    if (r.method() === 'POST' && r.url().includes('/api/v1/admin/payments/escrow/'))
      keys.push(r.headers()['idempotency-key'] ?? '');
  });
  return keys;
}

async function decide(page: Page, button: string, reason: string) {
  await page.getByRole('button', { name: button, exact: true }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Motif (obligatoire)').fill(reason);
  return dialog;
}

describe.skipIf(skip)(`the money pages${consoleSkipReason ? ` (${consoleSkipReason})` : ''}`, () => {
  it('resolves a dispute for the client through the console, and the ledger has the refund', async () => {
    const { s, order, clientName } = await heldOrder();
    const page = await signedIn('/escrows');
    const keys = keysSent(page);
    const row = page.getByRole('row').filter({ hasText: clientName });
    await row.waitFor();
    await expectAccessible(page);
    await screenshot(page, 'escrow');
    // Columns sort on the server: the amount, as the API's `sort` parameter.
    const sorted = page.waitForRequest(
      (r) =>
        r.url().includes('/api/v1/admin/payments/escrow?') && new URL(r.url()).searchParams.get('sort') === 'amount',
    );
    await page.getByRole('columnheader', { name: 'Montant' }).getByRole('button').click();
    await sorted;
    await row.waitFor();
    // The supplier found by name, and the state, narrow the list to this order.
    await page.getByLabel('Commerçant').fill(s.profile.businessName);
    await page.getByRole('option', { name: s.profile.businessName }).click();
    await page.getByRole('combobox', { name: 'État' }).click();
    const filtered = page.waitForResponse(
      (r) =>
        r.url().includes('/api/v1/admin/payments/escrow?') && new URL(r.url()).searchParams.get('state') === 'HELD',
    );
    await page.getByRole('option', { name: 'Retenu' }).click();
    await filtered;
    await expect
      .poll(() => new URL(page.url()).searchParams.get('filter'), { timeout: 15_000 })
      .toContain(s.profile.id);
    await expect.poll(() => page.getByRole('row').count(), { timeout: 15_000 }).toBe(2);
    // The menu's closing backdrop would take a click made while it fades.
    await page.getByRole('listbox').waitFor({ state: 'detached' });
    await row.click();
    await page.getByRole('heading', { name: `Séquestre de la commande ${order.id}`, level: 1 }).waitFor();

    let dialog = await decide(page, 'Ouvrir un litige', 'Le client dit que le panier était incomplet');
    expect(plain(await dialog.locator('[data-confirm-amount]').textContent())).toContain(
      `${xof(order.itemsTotal)} restent en séquestre`,
    );
    await dialog.getByRole('button', { name: 'Ouvrir un litige' }).click();
    await page.locator('[data-escrow-state="DISPUTED"]').waitFor();

    dialog = await decide(page, 'Trancher pour le client', 'Panier incomplet confirmé par la boutique');
    const says = plain(await dialog.locator('[data-confirm-amount]').textContent());
    expect(says).toBe(`${xof(order.itemsTotal)} seront remboursés à ${clientName} par le prestataire de paiement.`);
    await dialog.getByRole('button', { name: 'Trancher pour le client' }).click();
    await page.locator('[data-escrow-state="RESOLVED_CLIENT"]').waitFor();
    await page.getByRole('table', { name: 'Écritures du grand livre' }).getByText('Remboursement décidé').waitFor();
    await page.context().close();

    // Each decision went with a key of its own.
    expect(keys).toHaveLength(2);
    expect(new Set(keys).size).toBe(2);
    await rig.t.app.jobs.drain();
    const detail = await escrowOf(order.id);
    expect(detail.escrow).toMatchObject({
      state: 'RESOLVED_CLIENT',
      dispute: { reason: 'Le client dit que le panier était incomplet', resolvedAt: expect.any(String) },
    });
    // The administrators' decisions, newest first, each with the reason typed in its dialog.
    expect(detail.audit.map((a: { action: string; reason: string }) => [a.action, a.reason])).toEqual([
      ['escrow.resolve_client', 'Panier incomplet confirmé par la boutique'],
      ['escrow.dispute_open', 'Le client dit que le panier était incomplet'],
    ]);
    const paymentId = detail.payments[0].transactionId;
    const refund = detail.ledger.find((x: { kind: string }) => x.kind === 'refund_started');
    expect(refund.lines).toEqual(
      expect.arrayContaining([
        { account: escrowAccount(order.id), amount: order.itemsTotal },
        { account: refundsPending(paymentId), amount: -order.itemsTotal },
      ]),
    );
    expect(await rig.t.app.services.ledger.balance(rig.t.app.ctx.db, escrowAccount(order.id))).toBe(0);
    await assertMoneyInvariants(rig.t.app);
  }, 120_000);

  it('releases a collected order once, though the first answer was lost and the operator tried again', async () => {
    const { s, order } = await heldOrder({ complete: true });
    const before = await escrowOf(order.id);
    const page = await signedIn(`/escrows/${order.id}/show`);
    const keys = keysSent(page);
    // The first release reaches the API (the money moves) but its answer never comes back.
    let dropped = false;
    await page.route('**/api/v1/admin/payments/escrow/*/release', async (route) => {
      if (dropped) return route.continue();
      dropped = true;
      await route.fetch();
      await route.abort('connectionreset');
    });

    const dialog = await decide(page, 'Libérer', 'Commande retirée, versement anticipé');
    const says = plain(await dialog.locator('[data-confirm-amount]').textContent());
    expect(says).toBe(
      `${xof(before.escrow.net)} iront à ${s.profile.businessName} ; la plateforme garde ${xof(before.escrow.commission)} de commission.`,
    );
    await dialog.getByRole('button', { name: 'Libérer' }).click();
    await dialog.getByRole('alert').getByText('La réponse n’est pas arrivée', { exact: false }).waitFor();
    const replayed = page.waitForResponse((r) => r.url().endsWith('/release') && r.request().method() === 'POST');
    await dialog.getByRole('button', { name: 'Réessayer' }).click();
    expect((await replayed).headers()['idempotent-replayed']).toBe('true');
    await page.locator('[data-escrow-state="RELEASED"]').waitFor();

    await rig.t.app.jobs.drain();
    await page.reload();
    await page
      .getByRole('table', { name: 'Versement' })
      .getByText(/En cours|Versé/)
      .waitFor();
    await expectAccessible(page);
    await screenshot(page, 'escrow-order');
    await page.context().close();

    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
    const detail = await escrowOf(order.id);
    expect(detail.escrow).toMatchObject({ state: 'RELEASED', payout: { amount: before.escrow.net } });
    expect(detail.ledger.filter((x: { kind: string }) => x.kind === 'escrow_released')).toHaveLength(1);
    expect(detail.payouts).toHaveLength(1);
    expect(await rig.t.app.services.ledger.balance(rig.t.app.ctx.db, supplierPayable(s.profile.id))).toBe(
      -before.escrow.net,
    );
    await assertMoneyInvariants(rig.t.app);
  }, 120_000);

  it("shows the API's refusal: an order not collected is not released", async () => {
    const { order } = await heldOrder();
    const page = await signedIn(`/escrows/${order.id}/show`);
    const dialog = await decide(page, 'Libérer', 'Essai de libération trop tôt');
    await dialog.getByRole('button', { name: 'Libérer' }).click();
    const message = 'The order is PENDING: money is released only for a collected (COMPLETED) order';
    await dialog.getByRole('alert').getByText(message).waitFor();
    // The notification says it too.
    await page.getByText(message).nth(1).waitFor();
    await page.context().close();
    expect((await escrowOf(order.id)).escrow.state).toBe('HELD');
    await assertMoneyInvariants(rig.t.app);
  }, 120_000);

  it('lists payouts with their payee', async () => {
    const { s, order } = await heldOrder({ complete: true });
    await call(rig.t.app, 'POST', `/admin/payments/escrow/${order.id}/release`, {
      token: adminToken,
      body: { reason: 'Retirée, versée' },
    });
    await rig.t.app.jobs.drain();
    const page = await signedIn('/payouts');
    await page.getByRole('row').filter({ hasText: s.profile.businessName }).waitFor();
    await expectAccessible(page);
    await screenshot(page, 'payouts');
    await clickUntilShown(
      page.getByRole('row').filter({ hasText: s.profile.businessName }),
      page.getByRole('heading', { name: `Séquestre de la commande ${order.id}`, level: 1 }),
    );
    await page.context().close();
  }, 120_000);

  it('shows payment statistics as the API counts them', async () => {
    await heldOrder();
    const page = await signedIn('/payment-statistics');
    const total = page.locator('[data-total-count]');
    await total.waitFor();
    await page.locator('svg[data-chart]').nth(1).waitFor();
    await expectAccessible(page);
    await screenshot(page, 'payments-statistics');
    const to = new Date(Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`) + 86_400_000);
    const from = new Date(to.getTime() - 30 * 86_400_000);
    const stats = (
      await call(rig.t.app, 'GET', '/admin/payments/statistics', {
        token: adminToken,
        query: { from: from.toISOString(), to: to.toISOString() },
      })
    ).body.data;
    expect(stats.totals.count).toBeGreaterThan(0);
    expect(plain(await total.textContent())).toBe(plain(new Intl.NumberFormat('fr-SN').format(stats.totals.count)));
    await page.context().close();
  }, 120_000);

  it('shows the financial report and downloads it as CSV', async () => {
    await heldOrder();
    const page = await signedIn('/financial-report?groupBy=day');
    const table = page.getByRole('table', { name: 'Rapport financier' });
    await table.getByRole('rowheader', { name: 'Total' }).waitFor();
    await expectAccessible(page);
    await screenshot(page, 'financial-report');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Télécharger en CSV' }).click(),
    ]);
    // The API's name: the range's first day and the day after its last (its `to` is excluded).
    const today = new Date().toISOString().slice(0, 10);
    const tomorrow = new Date(Date.parse(`${today}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    expect(download.suggestedFilename()).toMatch(
      new RegExp(`^financial-report-\\d{4}-\\d{2}-\\d{2}-${tomorrow}-day\\.csv$`),
    );
    const lines = readFileSync((await download.path())!, 'utf8').split('\r\n');
    expect(lines[0]).toBe('period,currency,gmv,commission,refunds,payouts,advertising,heldInEscrow');
    // The day's line says what the API's JSON says for the same range.
    const from = download.suggestedFilename().slice('financial-report-'.length, 'financial-report-'.length + 10);
    const report = (
      await call(rig.t.app, 'GET', '/admin/reports/financial', {
        token: adminToken,
        query: { from: `${from}T00:00:00.000Z`, to: `${tomorrow}T00:00:00.000Z`, groupBy: 'day' },
      })
    ).body.data;
    const day = report.periods.find((p: { period: string }) => p.period === today);
    expect(day.gmv).toBeGreaterThan(0);
    expect(lines).toContain(
      [today, 'XOF', day.gmv, day.commission, day.refunds, day.payouts, day.advertising, day.heldInEscrow].join(','),
    );
    // The page's table shows the same day.
    await expect(plain(await table.getByRole('row').filter({ hasText: today }).textContent())).toContain(xof(day.gmv));
    // On a phone the page keeps the screen's width: the table scrolls in its own box.
    await expectFitsPhone(page);
    await page.context().close();
  }, 120_000);
});
