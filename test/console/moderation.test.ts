import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { advertiser, campaignBody } from '../../src/modules/advertising/advertising.test-support.js';
import { dealBody } from '../../src/modules/deals/deals.test-support.js';
import {
  admin,
  form,
  image,
  productBody,
  supplierWithStore,
} from '../../src/modules/products/products.test-support.js';
import { buyer, reviewOk } from '../../src/modules/reviews/reviews.test-support.js';
import { shop } from '../../src/modules/escrow/escrow.test-support.js';
import { newClient } from '../../src/modules/orders/orders.test-support.js';
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

// The moderation queues as an operator works them; each decision is checked through the API. The
// queues are platform-wide (oldest first): a database of their own, so other files' products do
// not push these off the first page.
const skip = consoleSkipReason !== undefined;
let rig: ConsoleRig;
let db: PrivateDatabase;
let boss: { token: string };

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

type Seller = Awaited<ReturnType<typeof supplierWithStore>>;

/** A product waiting for review, with one picture. */
async function pendingProduct(s: Seller, name: string) {
  const { t } = rig;
  const created = await call(t.app, 'POST', '/products', {
    token: s.token,
    body: productBody(t, s.store.id, { name }),
  });
  expect(created.body.data.status).toBe('PENDING_REVIEW');
  const id = created.body.data.id as string;
  const added = await call(t.app, 'POST', `/products/${id}/images`, {
    token: s.token,
    body: form([['images', await image(120, 90, 'jpeg'), 'p.jpg']]),
  });
  expect(added.status).toBe(200);
  return id;
}

/** The console, signed in as an administrator, on one of its pages. */
async function consoleAt(path: string): Promise<Page> {
  const page = await openConsole(rig);
  await signInAs(rig, page);
  await page.getByRole('heading', { level: 1, name: 'Tableau de bord' }).waitFor();
  await page.goto(`${rig.baseUrl}/console/${path}`);
  return page;
}

const row = (page: Page, text: string) => page.locator('tr', { hasText: text });

/** axe-core once the page has stopped loading (a list read again shows a spinner for a moment). */
async function accessibleWhenSettled(page: Page) {
  await expect.poll(() => page.locator('[role="progressbar"]').count()).toBe(0);
  await expectAccessible(page);
}
const publicProduct = async (id: string) => (await call(rig.t.app, 'GET', `/products/${id}`)).status;

describe.skipIf(skip)(`the moderation queues${consoleSkipReason ? ` (${consoleSkipReason})` : ''}`, () => {
  it('approves a product, which becomes public through the API', async () => {
    const s = await supplierWithStore(rig.t, { businessName: 'Boulangerie Médina' });
    const id = await pendingProduct(s, 'Pain de mie complet');
    expect(await publicProduct(id)).toBe(404);
    const newcomer = await supplierWithStore(rig.t, { verification: 'PENDING', businessName: 'Fromagerie de Ngor' });
    await pendingProduct(newcomer, 'Fromage frais de chèvre');

    const page = await consoleAt('moderation-products');
    const line = row(page, 'Pain de mie complet');
    await line.getByRole('img', { name: 'Photo 1 de « Pain de mie complet »' }).waitFor();
    await expect(line.getByText('Boulangerie Médina').textContent()).resolves.toBe('Boulangerie Médina');
    await expect(line.getByText(s.store.name, { exact: false }).count()).resolves.toBe(1);
    await row(page, 'Fromage frais de chèvre').getByText('Non vérifié').waitFor();
    await accessibleWhenSettled(page);
    await screenshot(page, 'moderation-products');

    await line.getByRole('button', { name: 'Approuver « Pain de mie complet »' }).click();
    await page.getByText('« Pain de mie complet » est approuvé et visible du public.').waitFor();
    await expect.poll(() => publicProduct(id)).toBe(200);
    expect((await call(rig.t.app, 'GET', `/products/${id}`)).body.data).toMatchObject({
      id,
      name: 'Pain de mie complet',
    });
    await line.waitFor({ state: 'detached' });
    await page.context().close();
  });

  it('rejects a product only with a reason, which the supplier reads through the API', async () => {
    const s = await supplierWithStore(rig.t);
    const id = await pendingProduct(s, 'Yaourt au bissap');
    const page = await consoleAt('moderation-products');
    await row(page, 'Yaourt au bissap').getByRole('button', { name: 'Refuser « Yaourt au bissap »' }).click();
    const dialog = page.getByRole('dialog', { name: 'Refuser « Yaourt au bissap »' });
    const confirm = dialog.getByRole('button', { name: 'Refuser' });
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByLabel('Motif du refus').fill('La photo ne montre pas le produit');
    await confirm.click();
    await page.getByText('« Yaourt au bissap » est refusé.').waitFor();

    const own = async () =>
      (await call(rig.t.app, 'GET', '/products/my-products', { token: s.token })).body.data.find(
        (p: { id: string }) => p.id === id,
      );
    await expect.poll(own).toMatchObject({ status: 'REJECTED', rejectionReason: 'La photo ne montre pas le produit' });
    expect(await publicProduct(id)).toBe(404);

    // The full list shows it with its status, filtered by its supplier from the supplier's link.
    await page.goto(`${rig.baseUrl}/console/products`);
    await page.getByRole('textbox', { name: 'Nom ou description' }).fill('bissap');
    await row(page, 'Yaourt au bissap').getByText('Refusé').waitFor();
    await accessibleWhenSettled(page);
    await page.context().close();
  });

  it('approves several products at once, and shows the refusal when one was decided meanwhile', async () => {
    const s = await supplierWithStore(rig.t);
    const names = ['Croissants x6', 'Pains au chocolat x6', 'Baguettes tradition x3'];
    const ids = [];
    for (const name of names) ids.push(await pendingProduct(s, name));
    const page = await consoleAt('moderation-products');
    for (const name of names) await page.getByRole('checkbox', { name: `Sélectionner « ${name} »` }).check();
    await page.getByRole('button', { name: 'Approuver la sélection (3)' }).click();
    await page.getByRole('dialog', { name: 'Approuver 3 produits' }).getByRole('button', { name: 'Approuver' }).click();
    await page.getByText('3 produits approuvés.').waitFor();
    for (const id of ids) await expect.poll(() => publicProduct(id)).toBe(200);

    // All or none: one of the selection approved behind the page's back refuses the whole batch.
    const late = [await pendingProduct(s, 'Brioche tressée'), await pendingProduct(s, 'Pain aux olives')];
    await page.reload();
    for (const name of ['Brioche tressée', 'Pain aux olives'])
      await page.getByRole('checkbox', { name: `Sélectionner « ${name} »` }).check();
    expect((await call(rig.t.app, 'PATCH', `/admin/products/${late[0]}/approve`, { token: boss.token })).status).toBe(
      200,
    );
    await page.getByRole('button', { name: 'Approuver la sélection (2)' }).click();
    await page.getByRole('dialog', { name: 'Approuver 2 produits' }).getByRole('button', { name: 'Approuver' }).click();
    await page.getByText(/1 of the 2 products cannot be approved; none was/).waitFor();
    expect(await publicProduct(late[1]!)).toBe(404);
    await page.context().close();
  });

  it('approves a deal with its picture, which becomes public', async () => {
    const { t } = rig;
    const s = await supplierWithStore(t, { role: 'SUPPLIER_DEALS' });
    const created = await call(t.app, 'POST', '/supplier/deals', {
      token: s.token,
      body: dealBody(t, s.store.id, { title: 'Panier du marché Kermel' }),
    });
    expect(created.body.data.status).toBe('PENDING_REVIEW');
    const id = created.body.data.id as string;
    const pictured = await call(t.app, 'POST', `/supplier/deals/${id}/images`, {
      token: s.token,
      body: form([['images', await image(160, 120, 'png'), 'd.png']]),
    });
    expect(pictured.status).toBe(200);
    expect((await call(t.app, 'GET', `/deals/${id}`)).status).toBe(404);

    const page = await consoleAt('moderation-deals');
    const line = row(page, 'Panier du marché Kermel');
    await line.getByRole('img', { name: 'Photo 1 de « Panier du marché Kermel »' }).waitFor();
    await accessibleWhenSettled(page);
    await screenshot(page, 'moderation-deals');
    await line.getByRole('button', { name: 'Approuver « Panier du marché Kermel »' }).click();
    await page.getByText('« Panier du marché Kermel » est approuvé et visible du public.').waitFor();
    await expect.poll(async () => (await call(t.app, 'GET', `/deals/${id}`)).body.data?.status).toBe('ACTIVE');
    await page.context().close();
  });

  it('approves a campaign and rejects another with a reason, its creative shown', async () => {
    const { t } = rig;
    const owner = await advertiser(t);
    const png = (await image(300, 100, 'png')).toString('base64');
    const ids: string[] = [];
    const campaigns: [string, string][] = [
      ['Bissap été', 'Le bissap de Dakar'],
      ['Gingembre hiver', 'Le gingembre de Thiès'],
    ];
    for (const [name, title] of campaigns) {
      const creative = { title, text: 'Frais, local, sans sucre ajouté', image: `data:image/png;base64,${png}` };
      const body = campaignBody(t, { name, creative });
      const created = await call(t.app, 'POST', '/advertising/campaigns', { token: owner.token, body });
      expect(created.status).toBe(201);
      expect(
        (await call(t.app, 'POST', `/advertising/campaigns/${created.body.data.id}/submit`, { token: owner.token }))
          .status,
      ).toBe(200);
      ids.push(created.body.data.id);
    }
    const page = await consoleAt('moderation-campaigns');
    await row(page, 'Bissap été').getByRole('img', { name: 'Visuel de la campagne « Le bissap de Dakar »' }).waitFor();
    await accessibleWhenSettled(page);
    await screenshot(page, 'moderation-campaigns');
    await row(page, 'Bissap été').getByRole('button', { name: 'Approuver « Bissap été »' }).click();
    await page.getByText(/La campagne « Bissap été » est approuvée/).waitFor();

    await row(page, 'Gingembre hiver').getByRole('button', { name: 'Refuser « Gingembre hiver »' }).click();
    const dialog = page.getByRole('dialog', { name: 'Refuser la campagne « Gingembre hiver »' });
    await dialog.getByLabel('Motif du refus').fill('Allégation de santé non prouvée');
    await dialog.getByRole('button', { name: 'Refuser' }).click();
    await page.getByText('La campagne « Gingembre hiver » est refusée.').waitFor();

    const status = async (id: string) =>
      (await call(t.app, 'GET', `/advertising/campaigns/${id}`, { token: owner.token })).body.data;
    await expect.poll(() => status(ids[0]!)).toMatchObject({ status: 'ACTIVE' });
    await expect
      .poll(() => status(ids[1]!))
      .toMatchObject({ status: 'REJECTED', rejectionReason: 'Allégation de santé non prouvée' });

    await page.goto(`${rig.baseUrl}/console/campaigns`);
    await row(page, 'Gingembre hiver').getByText('Allégation de santé non prouvée').waitFor();
    await accessibleWhenSettled(page);
    await page.context().close();
  });

  it('clears the reports of a review after confirmation, and deletes another', async () => {
    const { t } = rig;
    const s = await shop(t, boss.token, { products: 2 });
    const author = await buyer(t, s);
    const kept = await reviewOk(t, author.token, {
      productId: s.products[0]!.id,
      rating: 5,
      comment: 'Pain encore tiède, très bon',
    });
    const removed = await reviewOk(t, author.token, {
      productId: s.products[1]!.id,
      rating: 1,
      comment: 'Arnaque totale, fuyez',
    });
    for (let n = 0; n < 3; n++) {
      const reporter = await newClient(t);
      for (const r of [kept, removed]) {
        const res = await call(t.app, 'POST', `/reviews/${r.id}/report`, {
          token: reporter.token,
          body: { reason: n ? 'spam' : 'offensive', comment: n ? undefined : 'Faux avis' },
        });
        expect(res.status).toBe(200);
      }
    }
    const visible = async (productId: string) =>
      (await call(t.app, 'GET', `/reviews/product/${productId}`)).body.data.map((r: { id: string }) => r.id);
    expect(await visible(s.products[0]!.id)).not.toContain(kept.id);

    const page = await consoleAt('reported-reviews');
    const line = row(page, 'Pain encore tiède, très bon');
    await line.getByText('3 signalements').waitFor();
    await accessibleWhenSettled(page);
    await screenshot(page, 'moderation-reviews');

    await line.getByRole('button', { name: /^Lever les signalements de l’avis/ }).click();
    const clear = page.getByRole('dialog', { name: /^Lever les signalements/ });
    await clear.getByText('Les signalements sont clos et l’avis redevient visible du public.').waitFor();
    await clear.getByRole('button', { name: 'Lever les signalements' }).click();
    await page.getByText(/^Les signalements de l’avis de .* sont levés\.$/).waitFor();
    await expect.poll(() => visible(s.products[0]!.id)).toContain(kept.id);

    await row(page, 'Arnaque totale, fuyez')
      .getByRole('button', { name: /^Supprimer l’avis/ })
      .click();
    const remove = page.getByRole('dialog', { name: /^Supprimer l’avis/ });
    await remove.getByLabel('Motif (facultatif, gardé au journal)').fill('Diffamation');
    await remove.getByRole('button', { name: 'Supprimer' }).click();
    await page.getByText(/^L’avis de .* est supprimé\.$/).waitFor();
    const reported = async () =>
      (await call(t.app, 'GET', '/admin/reviews/reported', { token: boss.token })).body.data.map(
        (r: { id: string }) => r.id,
      );
    await expect.poll(reported).toEqual([]);
    expect(await visible(s.products[1]!.id)).not.toContain(removed.id);
    await page.context().close();
  });
});
