import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paidOrder, shop } from '../../src/modules/escrow/escrow.test-support.js';
import { admin } from '../../src/modules/orders/orders.test-support.js';
import { createSignedIn } from '../helpers/factories.js';
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

// The platform's pages as an operator uses them: plans, promo codes, settings with their history,
// the top lists. Settings change here and the top lists are platform-wide: a database of its own.
const skip = consoleSkipReason !== undefined;
let rig: ConsoleRig;
let db: PrivateDatabase;
let boss: Awaited<ReturnType<typeof admin>>;
const unique = (prefix: string) =>
  `${prefix}${Math.random()
    .toString(36)
    .replace(/[^a-z]/g, '')
    .slice(0, 6)
    .toUpperCase()}`;

beforeAll(async () => {
  if (skip) return;
  db = await privateDatabase();
  rig = await startConsole(db.env);
  boss = await admin(rig.t);
}, 120_000);
afterAll(async () => {
  await rig?.close();
  await db?.drop();
});

const get = async (url: string, query: Record<string, unknown> = {}) => {
  const res = await call(rig.t.app, 'GET', url, { token: boss.token, query: query as never });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
};

/** A page of the console, an administrator (or the role given) signed in on it. */
async function signedIn(
  path: string,
  role: 'ADMIN' | 'SUPER_ADMIN' = 'ADMIN',
): Promise<{ page: Page; user: Awaited<ReturnType<typeof signInAs>> }> {
  const page = await openConsole(rig, `/console/${path}`);
  const user = await signInAs(rig, page, { role });
  return { page, user };
}

// A browser's page per case, on machines shared by several runs.
describe.skipIf(skip)(
  `the platform's pages${consoleSkipReason ? ` (${consoleSkipReason})` : ''}`,
  { timeout: 120_000 },
  () => {
    it('creates a plan, changes it and deletes it once confirmed', async () => {
      const code = unique('PRO');
      const { page } = await signedIn('plans');
      await page.getByRole('cell', { name: 'FREE', exact: true }).waitFor();
      await page.getByRole('link', { name: 'Créer', exact: true }).click();
      await page.getByLabel(/^Code\b/).fill(code.toLowerCase());
      await page.getByLabel(/^Nom\b/).fill('Pro Dakar');
      await page.getByLabel('Prix par période').fill('7500');
      await page.getByLabel('Produits au maximum').fill('150');
      await page.getByLabel('Remise sur la commission').fill('1.5');
      await page.getByLabel('Avantages').fill('Statistiques');
      await page.getByLabel('Avantages').press('Enter');
      await expectAccessible(page);
      await page.getByRole('button', { name: 'Enregistrer' }).click();
      await page.getByRole('cell', { name: code, exact: true }).waitFor();

      const plan = () =>
        get('/admin/subscriptions/plans').then((plans) => plans.find((p: { code: string }) => p.code === code));
      expect(await plan()).toMatchObject({
        name: 'Pro Dakar',
        priceAmount: 7500,
        periodDays: 30,
        maxProducts: 150,
        commissionDiscountBps: 150,
        features: ['Statistiques'],
        isActive: true,
      });
      await expectAccessible(page);
      await screenshot(page, 'plans');

      await page.getByRole('link', { name: 'Éditer le plan Pro Dakar' }).click();
      await page.getByLabel('Prix par période').fill('9000');
      await page.getByLabel('Produits au maximum').fill('');
      await page.getByRole('button', { name: 'Enregistrer' }).click();
      await page.getByRole('cell', { name: code, exact: true }).waitFor();
      await expect.poll(plan).toMatchObject({ priceAmount: 9000, maxProducts: null, commissionDiscountBps: 150 });

      await page.getByRole('button', { name: 'Supprimer le plan Pro Dakar' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByText(`Le plan Pro Dakar (${code}) sera supprimé`).waitFor();
      await dialog.getByRole('button', { name: 'Confirmer' }).click();
      await expect.poll(plan).toBeUndefined();
      await page.context().close();
    });

    it('creates 20 promo codes in bulk, shows them to copy or download, then disables and deletes codes', async () => {
      const prefix = unique('RAM');
      const { page } = await signedIn('promo-codes');
      await page.getByRole('link', { name: 'Créer des codes en lot' }).click();
      await page.getByLabel('Nombre de codes').fill('20');
      await page.getByLabel('Préfixe').fill(prefix);
      await page.getByLabel('Description').fill('Ramadan');
      await page.getByLabel('Remise (pourcentage)').fill('15');
      await page.getByLabel('Utilisations par fournisseur').fill('1');
      await expectAccessible(page);
      await page.getByRole('button', { name: 'Créer les codes' }).click();
      await page.getByRole('heading', { name: '20 codes créés' }).waitFor();
      const shown = await page.getByRole('list', { name: 'Codes créés' }).getByRole('listitem').allTextContents();
      expect(shown).toHaveLength(20);

      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Télécharger (CSV)' }).click(),
      ]);
      const file = (await readFile((await download.path())!, 'utf8')).trim().split('\n');
      expect(file).toEqual(['code', ...shown]);
      const batchId = download.suggestedFilename().replace(/^promo-codes-|\.csv$/g, '');

      // Through the API: the batch holds exactly these 20 codes, on the terms asked.
      const batch = await call(rig.t.app, 'GET', '/admin/subscriptions/promo-codes', {
        token: boss.token,
        query: { batchId, limit: 100 } as never,
      });
      expect(batch.body.meta.total).toBe(20);
      expect(batch.body.data.map((p: { code: string }) => p.code).sort()).toEqual([...shown].sort());
      for (const p of batch.body.data) {
        expect(p.code).toMatch(new RegExp(`^${prefix}-[A-Z2-9]{10}$`));
        expect(p).toMatchObject({
          batchId,
          description: 'Ramadan',
          discountBps: 1500,
          discountAmount: null,
          maxUsesPerSupplier: 1,
          disabled: false,
        });
      }

      await page.getByRole('link', { name: 'Voir le lot dans la liste' }).click();
      await page.getByText('1-10 sur 20').waitFor();
      await expectAccessible(page);
      await screenshot(page, 'promo-codes');
      // Sorted by the server: the first page by code is the API's.
      await page.getByRole('button', { name: /^Trier par code/ }).click();
      const byCode = await get('/admin/subscriptions/promo-codes', { batchId, sort: 'code', limit: 10 });
      await page.getByRole('row').nth(1).getByText(byCode[0].code).waitFor();

      // Two codes of the page shown.
      const [first, second] = byCode as { id: string; code: string }[];
      await page.getByRole('button', { name: `Désactiver le code ${first!.code}` }).click();
      await page.getByRole('dialog').getByText('ne sera plus accepté').waitFor();
      await page.getByRole('dialog').getByRole('button', { name: 'Confirmer' }).click();
      const one = async (id: string) =>
        (await get('/admin/subscriptions/promo-codes', { batchId, limit: 100 })).find(
          (p: { id: string }) => p.id === id,
        );
      await expect.poll(() => one(first!.id)).toMatchObject({ disabled: true });

      await page.getByRole('button', { name: `Supprimer le code ${second!.code}` }).click();
      await page.getByRole('dialog').getByText('sera supprimé définitivement').waitFor();
      await page.getByRole('dialog').getByRole('button', { name: 'Confirmer' }).click();
      await expect.poll(() => one(second!.id)).toBeUndefined();
      await page.context().close();
    });

    it('changes a setting once confirmed and shows its audit row', async () => {
      const { page, user } = await signedIn('settings');
      const timeout = page.getByLabel('Délai de paiement');
      await expect.poll(() => timeout.inputValue()).toBe('15');
      await expectAccessible(page);
      await timeout.fill('25');
      await page.getByLabel('Commission par défaut').fill('12.5');
      await page.getByRole('button', { name: 'Enregistrer…' }).click();

      const dialog = page.getByRole('dialog', { name: 'Appliquer ces 2 changements ?' });
      await dialog.getByRole('row', { name: 'Délai de paiement 15 minutes 25 minutes' }).waitFor();
      await dialog.getByRole('row', { name: 'Commission par défaut 10 % 12,5 %' }).waitFor();
      await dialog.getByLabel('Raison (facultative)').fill('Paiements lents le week-end');
      await expectAccessible(page);
      await screenshot(page, 'settings');
      await dialog.getByRole('button', { name: 'Appliquer' }).click();
      await page.getByRole('cell', { name: '15 minutes → 25 minutes' }).waitFor();

      const audit = await get('/admin/settings/audit', { key: 'business' });
      expect(audit).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            key: 'business.paymentTimeoutMinutes',
            oldValue: 15,
            newValue: 25,
            actorId: user.id,
            reason: 'Paiements lents le week-end',
          }),
          expect.objectContaining({
            key: 'business.defaultCommissionBps',
            oldValue: 1000,
            newValue: 1250,
            actorId: user.id,
          }),
        ]),
      );
      expect((await get('/admin/settings/business')).paymentTimeoutMinutes).toBe(25);

      // A payment method's fee, typed as a percentage, kept in basis points.
      await page.getByRole('tab', { name: 'Moyens de paiement' }).click();
      await page.getByLabel('Wave · Frais').fill('1.75');
      await page.getByRole('button', { name: 'Enregistrer…' }).click();
      await page.getByRole('dialog').getByRole('row', { name: 'Wave · Frais 1 % 1,75 %' }).waitFor();
      await page.getByRole('dialog').getByRole('button', { name: 'Appliquer' }).click();
      await page.getByRole('cell', { name: '1 % → 1,75 %' }).waitFor();
      expect((await get('/admin/settings/mobilemoney')).wave.feeBps).toBe(175);
      const wave = await get('/admin/settings/audit', { key: 'mobilemoney.wave.feeBps' });
      expect(wave[0]).toMatchObject({ oldValue: 100, newValue: 175, actorId: user.id, reason: null });

      // The history filtered by one key.
      await page.getByLabel('Réglage', { exact: true }).click();
      await page.getByRole('option', { name: 'Wave · Frais' }).click();
      await page.getByRole('cell', { name: '15 minutes → 25 minutes' }).waitFor({ state: 'detached' });
      await page.getByRole('cell', { name: '1 % → 1,75 %' }).waitFor();

      // Refused before sending: out of the key's bounds.
      await page.getByRole('tab', { name: 'Règles commerciales' }).click();
      await page.getByLabel('Délai de paiement').fill('2000');
      await page.getByRole('button', { name: 'Enregistrer…' }).click();
      await page.getByText('Entre 1 et 1 440 min').waitFor();
      await page.getByLabel('Délai de paiement').fill('25');
      await page.getByRole('heading', { name: 'Historique des modifications' }).scrollIntoViewIfNeeded();
      await expectAccessible(page);
      await page.context().close();
    });

    it('offers clearing the caches to a super administrator and not to an administrator', async () => {
      const { page: adminPage } = await signedIn('settings');
      await expect.poll(() => adminPage.getByLabel('Délai de paiement').inputValue()).not.toBe('');
      expect(await adminPage.getByRole('button', { name: 'Vider les caches' }).count()).toBe(0);
      await adminPage.context().close();

      let drops = 0;
      rig.t.app.ctx.caches.register(unique('probe-'), () => drops++);
      const { page } = await signedIn('settings', 'SUPER_ADMIN');
      await page.getByRole('button', { name: 'Vider les caches' }).click();
      await page.getByRole('dialog').getByText('relus depuis la base de données').waitFor();
      await page.getByRole('dialog').getByRole('button', { name: 'Vider les caches' }).click();
      await page.getByText(/Caches vidés .*settings/).waitFor();
      expect(drops).toBeGreaterThanOrEqual(1);
      await page.context().close();
    });

    it('shows the top searches and products of a period as the API counts them', async () => {
      const { t } = rig;
      const word = unique('zq').toLowerCase();
      const s = await shop(t, boss.token, { product: { name: `Thiéboudienne ${word}` } });
      await paidOrder(t, s, { lines: [{ productId: s.products[0]!.id, quantity: 3 }], complete: true });
      for (const q of [`thieboudienne ${word}`, `Thiéboudienne ${word}`, `${word} introuvable`])
        await call(t.app, 'GET', '/products/search', { query: { q } as never });

      const { page } = await signedIn('analytics-top');
      const searches = page.getByRole('table', { name: 'Recherches les plus fréquentes' });
      await searches.getByRole('row', { name: `thieboudienne ${word}` }).waitFor();
      const top = await get('/admin/analytics/top-searches', { period: 'week', limit: 20 });
      const row = top.top.find((r: { query: string }) => r.query === `thieboudienne ${word}`);
      expect(row).toMatchObject({ searches: 2, zeroResultSearches: 0 });
      await expect(searches.getByRole('row', { name: `thieboudienne ${word}` }).textContent()).resolves.toContain(
        String(row.searches),
      );
      await page
        .getByRole('table', { name: 'Recherches sans résultat' })
        .getByRole('row', { name: `${word} introuvable` })
        .waitFor();

      const products = await get('/admin/analytics/top-products', { period: 'week', limit: 20 });
      const sold = products.byUnits.find((p: { name: string }) => p.name === `Thiéboudienne ${word}`);
      expect(sold).toMatchObject({ unitsSold: 3, orders: 1 });
      const byUnits = page
        .getByRole('table', { name: 'Produits les plus vendus (unités)' })
        .getByRole('row', { name: new RegExp(`Thiéboudienne ${word}`) });
      await expect(byUnits.getByRole('cell').allTextContents()).resolves.toEqual(
        expect.arrayContaining([String(sold.unitsSold), String(sold.orders)]),
      );

      // A day range: the same days for both lists.
      const today = t.clock.now().toISOString().slice(0, 10);
      await page.getByLabel('Période').click();
      await page.getByRole('option', { name: 'Choisir les dates' }).click();
      await page.getByLabel(/^Du\b/).fill(today);
      await page.getByLabel('Au (inclus)').fill(today);
      await page.getByRole('button', { name: 'Afficher' }).click();
      await searches.getByRole('row', { name: `thieboudienne ${word}` }).waitFor();
      await expectAccessible(page);
      await screenshot(page, 'analytics-top');
      await page.context().close();
    });

    it('sends an announcement to one role once confirmed, and shows its progress until sent', async () => {
      const { t } = rig;
      const association = await createSignedIn(t.app, { role: 'ASSOCIATION' });
      const client = await createSignedIn(t.app, { role: 'CLIENT' });
      const title = `Collecte ${unique('')}`;
      const { page } = await signedIn('announcements');
      await page.getByRole('link', { name: 'Nouvelle annonce' }).click();
      await page.getByLabel(/^Titre\b/).fill(title);
      await page.getByLabel(/^Message\b/).fill('Les collectes du samedi commencent à 9 h.');
      await page.getByLabel(/^Destinataires\b/).click();
      await page.getByRole('option', { name: 'Association' }).click();
      await expectAccessible(page);
      await page.getByRole('button', { name: 'Envoyer…' }).click();

      // The confirmation names the audience and counts it as the API will.
      const reach = (
        await call(t.app, 'GET', '/admin/users', {
          token: boss.token,
          query: { role: 'ASSOCIATION', status: 'ACTIVE', verified: true, limit: 1 } as never,
        })
      ).body.meta.total;
      const dialog = page.getByRole('dialog', { name: `Envoyer « ${title} » ?` });
      await dialog.getByText(`les utilisateurs du rôle Association : ${reach} compte`).waitFor();
      await dialog.getByRole('button', { name: 'Envoyer' }).click();
      await page.getByRole('cell', { name: title }).waitFor();

      // The jobs send it; the list, polling while it is not sent, shows the end without a reload.
      await t.app.jobs.drain();
      const sent = (await get('/admin/announcements')).find((a: { title: string }) => a.title === title);
      expect(sent).toMatchObject({ role: 'ASSOCIATION', status: 'SENT', recipients: reach, sent: reach });
      const row = page.getByRole('row', { name: new RegExp(title) });
      await row.getByText('Envoyée').waitFor();
      await row.getByText(`${reach} sur ${reach}`).waitFor();

      const inbox = async (token: string) =>
        (await call(t.app, 'GET', '/notifications', { token })).body.data as { type: string; title: string }[];
      expect(
        (await inbox(association.token)).filter((n) => n.type === 'system_announcement' && n.title === title),
      ).toHaveLength(1);
      expect((await inbox(client.token)).filter((n) => n.type === 'system_announcement')).toEqual([]);
      await expectAccessible(page);
      await screenshot(page, 'announcements');
      await page.context().close();
    });
  },
);
