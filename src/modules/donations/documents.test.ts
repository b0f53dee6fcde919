import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createSignedIn } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { assertMoneyInvariants } from '../../../test/helpers/money-invariants.js';
import { donationDocuments } from '../../db/schema/donations.js';
import { uuidv7 } from '../../shared/ids.js';
import { createAssociation } from '../associations/associations.test-support.js';
import { deliverWebhook } from '../payments/payments.test-support.js';
import { HOUR, supplierWithStore } from '../products/products.test-support.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const standardFontDataUrl = `${join(dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json')), 'standard_fonts')}/`;

/** The text of every page of a PDF, as pdfjs reads it (the file must open). */
async function pdfText(bytes: Buffer): Promise<string> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const doc = await pdfjs.getDocument({
    data: new Uint8Array(bytes),
    useSystemFonts: false,
    isEvalSupported: false,
    standardFontDataUrl,
  }).promise;
  let text = '';
  for (let i = 1; i <= doc.numPages; i++) {
    const content = await (await doc.getPage(i)).getTextContent();
    text += content.items.map((it) => ('str' in it ? it.str : '')).join(' ') + '\n';
  }
  await doc.destroy();
  return text;
}

async function download(url: string): Promise<Buffer> {
  const res = await t.app.inject({ method: 'GET', url });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toContain('application/pdf');
  return res.rawPayload;
}

async function paidDonation(donor: { token: string }, associationId: string, amount: number, anonymous = false) {
  const res = await call(t.app, 'POST', '/donations/financial', {
    token: donor.token,
    body: { associationId, amount, paymentMethod: 'wave', anonymous },
    headers: { 'idempotency-key': uuidv7() },
  });
  expect(res.status).toBe(201);
  const p = (await t.app.services.payments.find(t.app.ctx.db, res.body.data.payment.transactionId))!;
  await deliverWebhook(
    t,
    t.mobilemoney.event('checkout.session.completed', t.mobilemoney.complete(p.providerSessionId!)),
  );
  return res.body.data.donation.id as string;
}

const receipt = (token: string, id: string) => call(t.app, 'POST', `/donations/${id}/receipt`, { token });
const certificate = (token: string, id: string) => call(t.app, 'POST', `/donations/${id}/certificate`, { token });

describe('receipts of financial donations', () => {
  it('is a numbered PDF naming donor, association and amount, the same each time, verifiable by its code', async () => {
    const donor = await createSignedIn(t.app, { firstName: 'Awa', lastName: 'Diop' });
    const association = await createAssociation(t.app, { name: 'Banque alimentaire de Thiès' });
    const id = await paidDonation(donor, association.association.id, 7500);

    const first = await receipt(donor.token, id);
    expect(first.status).toBe(200);
    const year = t.clock.now().getUTCFullYear();
    expect(first.body.data).toMatchObject({ kind: 'RECEIPT', donationId: id });
    expect(first.body.data.number).toMatch(new RegExp(`^REC-${year}-\\d{6}$`));
    const text = await pdfText(await download(first.body.data.url));
    expect(text).toContain(first.body.data.number);
    expect(text).toContain('Banque alimentaire de Thiès');
    expect(text).toContain('7500 XOF');
    expect(text).toContain('Awa Diop');
    expect(text).toContain(first.body.data.verificationCode);

    // Again, by the donor or the association: the same document.
    const again = await receipt(association.token, id);
    expect(again.body.data).toMatchObject({
      number: first.body.data.number,
      verificationCode: first.body.data.verificationCode,
      sizeBytes: first.body.data.sizeBytes,
    });
    expect((await download(again.body.data.url)).equals(await download(first.body.data.url))).toBe(true);

    const verified = await call(t.app, 'GET', `/donations/verify/${first.body.data.verificationCode}`);
    expect(verified.status).toBe(200);
    expect(verified.body.data).toMatchObject({
      valid: true,
      number: first.body.data.number,
      kind: 'RECEIPT',
      association: { id: association.association.id, name: 'Banque alimentaire de Thiès' },
      donor: 'Awa Diop',
      amount: 7500,
      currency: 'XOF',
      weightKg: null,
    });
    expect((await call(t.app, 'GET', '/donations/verify/ABCD-EFGH-JKMN')).status).toBe(404);
    await assertMoneyInvariants(t.app);
  });

  it('names nobody on an anonymous donation, and is refused to others and before payment', async () => {
    const donor = await createSignedIn(t.app, { firstName: 'Moussa', lastName: 'Sow' });
    const association = await createAssociation(t.app);
    const id = await paidDonation(donor, association.association.id, 2000, true);
    const doc = (await receipt(donor.token, id)).body.data;
    const text = await pdfText(await download(doc.url));
    expect(text).toContain('anonymous');
    expect(text).not.toContain('Moussa');
    const verified = (await call(t.app, 'GET', `/donations/verify/${doc.verificationCode}`)).body.data;
    expect(verified.donor).toBe('anonymous');
    expect(JSON.stringify(verified)).not.toContain(donor.user.id);

    const stranger = await createSignedIn(t.app);
    expect((await receipt(stranger.token, id)).status).toBe(404);
    expect((await receipt(donor.token, uuidv7())).status).toBe(404);
    expect((await receipt(donor.token, 'nope')).status).toBe(400);
    expect((await certificate(donor.token, id)).body.error.code).toBe('DOCUMENT_NOT_AVAILABLE');
    const unpaid = await call(t.app, 'POST', '/donations/financial', {
      token: donor.token,
      body: { associationId: association.association.id, amount: 1000, paymentMethod: 'wave' },
      headers: { 'idempotency-key': uuidv7() },
    });
    const refused = await receipt(donor.token, unpaid.body.data.donation.id);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('DOCUMENT_NOT_AVAILABLE');
    await assertMoneyInvariants(t.app);
  });

  it('numbers receipts without gaps when two are generated at once, and once per donation', async () => {
    const donor = await createSignedIn(t.app);
    const association = await createAssociation(t.app);
    const [a, b] = [
      await paidDonation(donor, association.association.id, 1000),
      await paidDonation(donor, association.association.id, 2000),
    ];
    const [ra, rb, ra2] = await Promise.all([
      receipt(donor.token, a),
      receipt(donor.token, b),
      receipt(association.token, a),
    ]);
    expect([ra.status, rb.status, ra2.status]).toEqual([200, 200, 200]);
    expect(ra2.body.data.number).toBe(ra.body.data.number);
    const seq = (n: string) => Number(n.split('-')[2]);
    expect(Math.abs(seq(ra.body.data.number) - seq(rb.body.data.number))).toBe(1);
    // Every receipt of the year so far: 1..n, no gap, no repeat.
    const year = t.clock.now().getUTCFullYear();
    const all = (
      await t.app.ctx.db
        .select({ sequence: donationDocuments.sequence, kind: donationDocuments.kind, year: donationDocuments.year })
        .from(donationDocuments)
        .where(eq(donationDocuments.kind, 'RECEIPT'))
    )
      .filter((r) => r.year === year)
      .map((r) => r.sequence)
      .sort((x, y) => x - y);
    expect(all).toEqual(Array.from({ length: all.length }, (_, i) => i + 1));
    expect(await t.app.ctx.db.select().from(donationDocuments).where(eq(donationDocuments.donationId, a))).toHaveLength(
      1,
    );
    await assertMoneyInvariants(t.app);
  });
});

describe('certificates of food donations', () => {
  it('is issued once collected, with the items and weight, and verifies', async () => {
    const supplier = await supplierWithStore(t);
    const association = await createAssociation(t.app, { name: 'Restos du Plateau' });
    const start = new Date(t.clock.now().getTime() + HOUR);
    const created = await call(t.app, 'POST', '/donations/food', {
      token: supplier.token,
      body: {
        associationId: association.association.id,
        items: [{ name: 'Sacs de riz', quantity: 3, unitWeightGrams: 5000 }],
        pickupWindowStart: start.toISOString(),
        pickupWindowEnd: new Date(start.getTime() + 4 * HOUR).toISOString(),
      },
    });
    const id = created.body.data.id;
    expect((await certificate(supplier.token, id)).body.error.code).toBe('DOCUMENT_NOT_AVAILABLE');
    await call(t.app, 'PATCH', `/donations/${id}/status`, { token: association.token, body: { status: 'ACCEPTED' } });
    await call(t.app, 'POST', `/donations/${id}/schedule-pickup`, {
      token: association.token,
      body: { pickupAt: start.toISOString() },
    });
    expect(
      (await call(t.app, 'POST', `/donations/${id}/confirm-pickup`, { token: association.token })).body.data.status,
    ).toBe('COLLECTED');

    const cert = await certificate(supplier.token, id);
    expect(cert.status).toBe(200);
    expect(cert.body.data.number).toMatch(/^CERT-\d{4}-\d{6}$/);
    const text = await pdfText(await download(cert.body.data.url));
    expect(text).toContain(cert.body.data.number);
    expect(text).toContain('Restos du Plateau');
    expect(text).toContain('Sacs de riz');
    expect(text).toContain('15 kg');
    expect((await certificate(association.token, id)).body.data.number).toBe(cert.body.data.number);
    expect((await receipt(supplier.token, id)).body.error.code).toBe('DOCUMENT_NOT_AVAILABLE');
    expect((await certificate((await createSignedIn(t.app)).token, id)).status).toBe(404);

    const verified = (await call(t.app, 'GET', `/donations/verify/${cert.body.data.verificationCode}`)).body.data;
    expect(verified).toMatchObject({
      kind: 'CERTIFICATE',
      number: cert.body.data.number,
      weightKg: 15,
      amount: null,
      association: { name: 'Restos du Plateau' },
    });

    const stats = (await call(t.app, 'GET', '/donations/my-stats', { token: supplier.token })).body.data;
    expect(stats).toMatchObject({
      donations: 1,
      food: { collected: 1, kg: 15 },
      financial: [],
      impact: { kgSaved: 15, mealsEquivalent: Math.floor(15000 / 420), co2eAvoidedKg: 37.5 },
    });
  });
});
