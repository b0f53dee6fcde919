import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAssociation } from '../../src/modules/associations/associations.test-support.js';
import { businessPart, idPart, pdf, postMultipart } from '../../src/modules/kyc/kyc.test-support.js';
import { uuidv7 } from '../../src/shared/ids.js';
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
import { createSignedIn, createStore, createSupplier, createUser, DEFAULT_PASSWORD } from '../helpers/factories.js';
import { call } from '../helpers/http.js';

// The operators' pages for suppliers, KYC, associations and users, driven as an operator would, each
// outcome read back through the API: the supplier told of its rejection, a verified supplier public,
// a suspended account refused at sign-in, an administrator's account out of an ADMIN's reach.
const skip = consoleSkipReason !== undefined;
let rig: ConsoleRig;
let superAdmin: Awaited<ReturnType<typeof createSignedIn>>;

beforeAll(async () => {
  if (skip) return;
  rig = await startConsole();
  superAdmin = await createSignedIn(rig.t.app, { role: 'SUPER_ADMIN' });
}, 120_000);
afterAll(async () => {
  await rig?.close();
});

const tag = () => uuidv7().slice(-6);
const api = (method: string, url: string, opts: Parameters<typeof call>[3] = {}) =>
  call(rig.t.app, method, url, { token: superAdmin.token, ...opts });

/** A specimen identity document, as a JPEG a phone would send. */
const specimen = () => {
  const text = (y: number, words: string) =>
    `<text x="180" y="${y}" font-family="sans-serif" font-size="18" fill="#222">${words}</text>`;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="480" height="300"><rect width="480" height="300" rx="18" fill="#e8f0e3"/>
    <rect x="24" y="70" width="130" height="160" rx="8" fill="#b9c7b0"/><circle cx="89" cy="130" r="34" fill="#8a9a80"/>
    <rect x="44" y="175" width="90" height="45" rx="20" fill="#8a9a80"/>
    <text x="24" y="46" font-family="sans-serif" font-size="22" font-weight="bold" fill="#1d3b17">PASSEPORT · SPÉCIMEN</text>
    ${text(100, 'Nom : DIOP')}${text(135, 'Prénom : Awa')}${text(170, 'Né(e) le : 01.01.1990')}${text(205, 'N° : A00000000')}</svg>`;
  return sharp(Buffer.from(svg)).jpeg().toBuffer();
};

/** A pending supplier that sent its KYC through the API: a JPEG identity document and a PDF registration. */
async function supplierWithKyc(businessName: string) {
  const supplier = await createSupplier(rig.t.app, {
    verification: 'PENDING',
    kycStatus: 'NOT_SUBMITTED',
    businessName,
  });
  const parts = [idPart(await specimen()), businessPart(pdf()), { name: 'documentType', value: 'PASSPORT' }];
  const sent = await postMultipart(rig.t.app, '/suppliers/profile/kyc', supplier.token, parts);
  expect(sent.status).toBe(201);
  return { ...supplier, attemptId: sent.body.data.id as string };
}

/** Signed in as an ADMIN (or the role given) on the path. */
async function consoleAt(path: string, role: 'ADMIN' | 'SUPER_ADMIN' = 'ADMIN') {
  const page = await openConsole(rig);
  const user = await signInAs(rig, page, { role });
  await page.getByRole('heading', { level: 1, name: 'Tableau de bord' }).waitFor();
  await page.goto(`${rig.baseUrl}/console${path}`);
  return { page, user };
}

/** axe-core once the page has settled: the app bar's loading indicator (an unnamed progress bar) gone. */
async function checkAccessible(page: Page) {
  await page.locator('[role="progressbar"]').first().waitFor({ state: 'detached' });
  await expectAccessible(page);
}

/** Confirms the open dialog, after giving the reason (refused without it when it is required). */
async function confirm(page: Page, reason?: string, required = true) {
  const dialog = page.getByRole('dialog');
  if (reason !== undefined) {
    if (required) await expect(dialog.getByRole('button', { name: 'Confirmer' }).isDisabled()).resolves.toBe(true);
    await dialog.getByLabel(/^Motif/).fill(reason);
  }
  await dialog.getByRole('button', { name: 'Confirmer' }).click();
  await dialog.waitFor({ state: 'hidden' });
}

// A browser on a shared machine: each test drives several pages.
describe.skipIf(skip)(
  `suppliers, KYC, associations and users in the console${consoleSkipReason ? ` (${consoleSkipReason})` : ''}`,
  { timeout: 120_000 },
  () => {
    it('lists suppliers with filters, opens one with its stores and changes its commission after confirming', async () => {
      const name = `Boulangerie Thiès ${tag()}`;
      const supplier = await createSupplier(rig.t.app, {
        verification: 'PENDING',
        kycStatus: 'PENDING',
        businessName: name,
        city: 'Thiès',
      });
      const open = await createStore(rig.t.app, supplier, { name: `Thiès Centre ${tag()}` });
      const closed = await createStore(rig.t.app, supplier, { name: `Thiès Gare ${tag()}`, isActive: false });

      const { page } = await consoleAt('/suppliers');
      // Sorted on the server: newest first, then by name from the column's header.
      const town = `Kaolack ${tag()}`;
      await createSupplier(rig.t.app, { businessName: `Alpha ${town}` });
      rig.t.clock.advance(1000);
      await createSupplier(rig.t.app, { businessName: `Zeta ${town}` });
      await page.getByPlaceholder('Nom, téléphone ou e-mail').fill(town);
      const firstCell = () => page.getByRole('row').nth(1).getByRole('cell').first().textContent();
      // Zeta is the newest supplier of all, first before the filter applies too: wait for the filtered
      // list (its two rows) before sorting, or the sort is lost when the filter lands.
      await expect.poll(() => page.getByRole('row').count()).toBe(3);
      await expect.poll(firstCell).toBe(`Zeta ${town}`);
      await page.getByRole('button', { name: 'Commerce' }).click();
      await expect.poll(firstCell).toBe(`Alpha ${town}`);

      const search = page.getByPlaceholder('Nom, téléphone ou e-mail');
      await search.fill(name);
      await page.getByRole('cell', { name }).waitFor();
      // The whole search shows: a shop's name and its city fit the box, no first letters scrolled away.
      expect(await search.evaluate((el: HTMLInputElement) => el.scrollWidth <= el.clientWidth)).toBe(true);
      await expect.poll(() => page.getByRole('row').count()).toBe(2);
      await checkAccessible(page);
      await screenshot(page, 'suppliers');
      // On a phone the list and its search box keep to the screen; the table scrolls in its own box.
      const laptop = page.viewportSize()!;
      await expectFitsPhone(page);
      await screenshot(page, 'suppliers-phone');
      await page.setViewportSize(laptop);

      await clickUntilShown(page.getByRole('cell', { name }), page.getByRole('heading', { level: 1, name }));
      // Not public yet, both stores are listed, the inactive one too.
      await page.getByRole('cell', { name: open.name }).waitFor();
      await page.getByRole('cell', { name: closed.name }).waitFor();
      await checkAccessible(page);
      await screenshot(page, 'supplier');

      await page.getByRole('button', { name: 'Modifier la commission' }).click();
      await page
        .getByRole('dialog')
        .getByLabel(/Nouveau taux/)
        .fill('7,5');
      await page
        .getByRole('dialog')
        .getByText(/à 7,5\s%/)
        .waitFor();
      await confirm(page);
      await page.getByText(/Taux actuel : 7,5\s%/).waitFor();
      const seen = (await api('GET', `/admin/suppliers/${supplier.profile.id}`)).body.data;
      expect(seen.commissionRateBps).toBe(750);
      expect(seen.commissionHistory).toHaveLength(1);
      await page.context().close();
    });

    it("rejects a supplier's KYC with a reason, and the supplier is told why", async () => {
      const name = `Épicerie Rufisque ${tag()}`;
      const supplier = await supplierWithKyc(name);
      const { page } = await consoleAt('/kyc-attempts');
      const refused: string[] = [];
      const watch = (p: Page) =>
        p.on('console', (m) => /Content Security Policy/i.test(m.text()) && refused.push(m.text()));
      watch(page);
      await clickUntilShown(
        page.getByRole('cell', { name }),
        page.getByRole('heading', { level: 1, name: `Dossier KYC de ${name}` }),
      );

      // The identity document is shown (its signed link loads under the console's policy), the PDF opens in a new tab.
      const picture = page.getByRole('img', { name: `Pièce d’identité envoyé par ${name}` });
      await expect
        .poll(() => picture.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth))
        .toBeGreaterThan(0);
      const pdfLink = page.getByRole('link', { name: /Registre du commerce \(PDF, nouvel onglet\)/ });
      await expect(pdfLink.getAttribute('target')).resolves.toBe('_blank');
      const pdfUrl = await pdfLink.getAttribute('href');
      expect(pdfUrl).toMatch(/^\/api\/v1\/files\/private\/kyc\/.+\.pdf\?expires=\d+&signature=/);
      const file = await page.request.get(`${rig.baseUrl}${pdfUrl}`);
      expect(file.status()).toBe(200);
      expect(file.headers()['content-type']).toBe('application/pdf');
      // Opened as a top-level page of our origin, the PDF is the browser's viewer's, under the file's own headers.
      const [tab] = await Promise.all([page.waitForEvent('popup'), pdfLink.click()]);
      watch(tab);
      await tab.waitForLoadState();
      expect(tab.url()).toBe(`${rig.baseUrl}${pdfUrl}`);
      await tab.close();
      expect(refused).toEqual([]);
      await checkAccessible(page);
      await screenshot(page, 'kyc-attempt');

      const reason = 'La photo de la pièce est illisible';
      await page.getByRole('button', { name: 'Refuser' }).click();
      await confirm(page, reason);
      await page.getByText('Documents refusés').waitFor();

      const attempt = (await api('GET', `/admin/kyc/attempts/${supplier.attemptId}`)).body.data;
      expect(attempt).toMatchObject({ status: 'REJECTED', reviewReason: reason });
      await expect
        .poll(async () => {
          await rig.t.app.jobs.drain();
          const own = await call(rig.t.app, 'GET', '/notifications', { token: supplier.token });
          return own.body.data.find((n: { type: string }) => n.type === 'kyc_rejected')?.body;
        })
        .toContain(reason);
      await page.context().close();
    });

    it('approves a KYC submission, then verifies the supplier, who becomes public', async () => {
      const name = `Pâtisserie Saint-Louis ${tag()}`;
      const supplier = await supplierWithKyc(name);
      const { page } = await consoleAt(`/kyc-attempts/${supplier.attemptId}/show`);
      await page.getByRole('button', { name: 'Approuver' }).click();
      await confirm(page);
      await page.getByRole('link', { name: 'Ouvrir la fiche du commerçant' }).click();
      await page.getByRole('heading', { level: 1, name }).waitFor();
      await page.getByRole('button', { name: 'Vérifier' }).click();
      await confirm(page);
      await page.getByRole('button', { name: 'Retirer la vérification' }).waitFor();

      const pub = await call(rig.t.app, 'GET', `/suppliers/${supplier.profile.id}`);
      expect(pub.status).toBe(200);
      expect(pub.body.data.verifiedAt).toEqual(expect.any(String));
      const seen = (await api('GET', `/admin/suppliers/${supplier.profile.id}`)).body.data;
      expect(seen).toMatchObject({ verificationStatus: 'VERIFIED', kycStatus: 'APPROVED' });
      await page.context().close();
    });

    it('finds a user by phone and by email, suspends the account and reactivates it', async () => {
      const last = `Sarr${tag()}`;
      const user = await createUser(rig.t.app, { firstName: 'Mariama', lastName: last });
      const signIn = () =>
        call(rig.t.app, 'POST', '/auth/login', { body: { phoneNumber: user.phoneNumber, password: DEFAULT_PASSWORD } });
      const { page } = await consoleAt('/users');
      const search = page.getByPlaceholder('Téléphone, e-mail ou nom');
      // The number as people write it, with spaces.
      const phone = user.phoneNumber!;
      await search.fill(`${phone.slice(0, 3)} ${phone.slice(3, 6)} ${phone.slice(6, 9)} ${phone.slice(9)}`);
      await page.getByRole('cell', { name: `Mariama ${last}` }).waitFor();
      await expect.poll(() => page.getByRole('row').count()).toBe(2);
      await search.fill('');
      await search.fill(user.email!.toUpperCase());
      await page.getByRole('cell', { name: user.email! }).waitFor();
      await expect.poll(() => page.getByRole('row').count()).toBe(2);
      await checkAccessible(page);
      await screenshot(page, 'users');

      await clickUntilShown(
        page.getByRole('cell', { name: `Mariama ${last}` }),
        page.getByRole('heading', { level: 1, name: `Mariama ${last}` }),
      );
      await checkAccessible(page);
      await screenshot(page, 'user');

      await page.getByRole('button', { name: 'Suspendre' }).click();
      await confirm(page, 'Fraude signalée par un commerçant', false);
      await page.getByRole('button', { name: 'Réactiver' }).waitFor();
      const refused = await signIn();
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('ACCOUNT_SUSPENDED');

      await page.getByRole('button', { name: 'Réactiver' }).click();
      await confirm(page);
      await page.getByRole('button', { name: 'Suspendre' }).waitFor();
      expect((await signIn()).status).toBe(200);
      await page.context().close();
    });

    it('does not offer an ADMIN the administrator roles, and shows the refusal when the API says no anyway', async () => {
      const client = await createUser(rig.t.app, { firstName: 'Ousmane', lastName: `Fall${tag()}` });
      const { page } = await consoleAt(`/users/${client.id}/show`);
      await page.getByRole('button', { name: 'Changer le rôle' }).click();
      await page
        .getByRole('dialog')
        .getByLabel(/Nouveau rôle/)
        .click();
      const options = await page.getByRole('option').allTextContents();
      expect(options).toContain('Annonceur');
      expect(options).not.toContain('Super-administrateur');
      expect(options).not.toContain('Administrateur');
      await page.keyboard.press('Escape');
      await page.getByRole('dialog').getByRole('button', { name: 'Annuler' }).click();

      // Another administrator's account: nothing to press, and why.
      const other = await createUser(rig.t.app, { role: 'ADMIN' });
      await page.goto(`${rig.baseUrl}/console/users/${other.id}/show`);
      await page.getByText('Seul un super-administrateur peut modifier le compte d’un administrateur.').waitFor();
      await expect(page.getByRole('button', { name: 'Suspendre' }).count()).resolves.toBe(0);
      await expect(page.getByRole('button', { name: 'Changer le rôle' }).count()).resolves.toBe(0);

      // The client becomes an administrator while the page is open: the API refuses, the page says so.
      await page.goto(`${rig.baseUrl}/console/users/${client.id}/show`);
      await page.getByRole('button', { name: 'Suspendre' }).waitFor();
      expect((await api('PATCH', `/admin/users/${client.id}/role`, { body: { role: 'ADMIN' } })).status).toBe(200);
      await page.getByRole('button', { name: 'Suspendre' }).click();
      await confirm(page);
      await page.getByText('Only a super administrator can change an administrator account').waitFor();
      expect((await api('GET', `/admin/users/${client.id}`)).body.data.status).toBe('ACTIVE');
      await page.context().close();

      // A super administrator is offered both.
      const boss = await consoleAt(`/users/${client.id}/show`, 'SUPER_ADMIN');
      await boss.page.getByRole('button', { name: 'Changer le rôle' }).click();
      await boss.page
        .getByRole('dialog')
        .getByLabel(/Nouveau rôle/)
        .click();
      await expect(boss.page.getByRole('option').allTextContents()).resolves.toContain('Super-administrateur');
      await boss.page.context().close();
    });

    it('verifies an association from the queue and rejects another with a reason', async () => {
      const stamp = tag();
      const first = await createAssociation(rig.t.app, { verification: 'PENDING', name: `Daara de Pikine ${stamp}` });
      const second = await createAssociation(rig.t.app, {
        verification: 'PENDING',
        name: `Entraide Guédiawaye ${stamp}`,
      });
      for (const a of [first, second]) {
        const parts = [
          { name: 'kind', value: 'STATUTES' },
          { name: 'document', filename: 'statuts.pdf', contentType: 'application/pdf', data: pdf('Statuts') },
        ];
        expect((await postMultipart(rig.t.app, '/associations/me/documents', a.token, parts)).status).toBe(201);
      }
      const { page } = await consoleAt('/associations-pending');
      await page.getByPlaceholder(/Nom, n° d’enregistrement/).fill(stamp);
      await page.getByRole('cell', { name: first.association.name }).click();
      await page.getByRole('link', { name: /Statuts \(application\/pdf, nouvel onglet\)/ }).waitFor();
      await page.getByText(/inscrites en 30 jours/).waitFor();
      await checkAccessible(page);
      await screenshot(page, 'associations');
      await page.getByRole('button', { name: 'Vérifier' }).click();
      await confirm(page);
      await page.getByText('Association vérifiée').waitFor();
      expect((await call(rig.t.app, 'GET', `/associations/${first.association.id}`)).status).toBe(200);
      // Verified, it leaves the queue (and its open row with it).
      await page.getByRole('cell', { name: first.association.name }).waitFor({ state: 'detached' });

      await page.getByRole('cell', { name: second.association.name }).click();
      await page.getByRole('button', { name: 'Refuser' }).click();
      await confirm(page, 'Le récépissé ne correspond pas au nom déclaré');
      await page.getByText('Association refusée').waitFor();
      const rejected = (await api('GET', '/admin/associations', { query: { search: second.association.name } })).body
        .data[0];
      expect(rejected).toMatchObject({
        status: 'REJECTED',
        rejectionReason: 'Le récépissé ne correspond pas au nom déclaré',
      });
      await page.context().close();
    });
  },
);
