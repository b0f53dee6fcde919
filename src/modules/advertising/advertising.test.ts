import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createSignedIn } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { uuidv7 } from '../../shared/ids.js';
import { listAdminActions } from '../audit/audit.service.js';
import { image, publishProduct, supplierWithStore } from '../products/products.test-support.js';
import * as repo from './advertising.repository.js';
import { DAY, activeCampaign, advertiser, campaignBody, profileBody, topUp } from './advertising.test-support.js';

let t: TestApp;
let adminToken: string;
let adminId: string;
beforeAll(async () => {
  t = await buildTestApp();
  const a = await createSignedIn(t.app, { role: 'ADMIN' });
  adminToken = a.token;
  adminId = a.user.id;
});
afterAll(() => t.close());

const notificationsOf = async (token: string) =>
  (await call(t.app, 'GET', '/notifications', { token })).body.data as {
    type: string;
    data: Record<string, unknown>;
  }[];

describe('advertiser profile', () => {
  it('is created once by an advertiser, read and changed', async () => {
    const s = await createSignedIn(t.app, { role: 'ADVERTISER' });
    expect((await call(t.app, 'GET', '/advertising/profile', { token: s.token })).status).toBe(404);
    const created = await call(t.app, 'POST', '/advertising/profile', {
      token: s.token,
      body: profileBody({ contactPhone: '+221 77 123 45 67', billingTaxId: '0012345 2G3' }),
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({
      userId: s.user.id,
      companyName: 'Jus de Bissap SARL',
      contactPhone: '+221771234567',
      billingTaxId: '0012345 2G3',
    });
    const again = await call(t.app, 'POST', '/advertising/profile', { token: s.token, body: profileBody() });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('ALREADY_EXISTS');
    const changed = await call(t.app, 'PUT', '/advertising/profile', {
      token: s.token,
      body: { companyName: 'Bissap & Co', website: null },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({
      companyName: 'Bissap & Co',
      website: null,
      billingAddress: '12 rue Carnot, Dakar',
    });
    expect((await call(t.app, 'GET', '/advertising/profile', { token: s.token })).body.data.companyName).toBe(
      'Bissap & Co',
    );
  });

  it('refuses no token and bad input', async () => {
    const client = await createSignedIn(t.app);
    expect((await call(t.app, 'GET', '/advertising/profile')).status).toBe(401);
    expect(
      (await call(t.app, 'PUT', '/advertising/profile', { token: client.token, body: { companyName: 'Nope' } })).status,
    ).toBe(404);
    const s = await createSignedIn(t.app, { role: 'ADVERTISER' });
    for (const [body, field] of [
      [profileBody({ website: 'http://plain.example' }), 'body.website'],
      [profileBody({ contactPhone: '12' }), 'body.contactPhone'],
      [profileBody({ extra: 1 }), 'body.extra'],
      [{ ...profileBody(), companyName: undefined }, 'body.companyName'],
    ] as const) {
      const bad = await call(t.app, 'POST', '/advertising/profile', { token: s.token, body });
      expect(bad.status, field).toBe(400);
      expect(JSON.stringify(bad.body.error.details)).toContain(field);
    }
    expect((await call(t.app, 'PUT', '/advertising/profile', { token: s.token, body: {} })).status).toBe(400);
  });
});

describe('any account may advertise', () => {
  it('a supplier creates a profile, stays a supplier, and the profile opens the campaign routes to it', async () => {
    for (const role of ['SUPPLIER_FOOD', 'CLIENT', 'ASSOCIATION'] as const) {
      const s = await createSignedIn(t.app, { role });
      expect((await call(t.app, 'GET', '/advertising/campaigns', { token: s.token })).status, role).toBe(403);
      const created = await call(t.app, 'POST', '/advertising/profile', { token: s.token, body: profileBody() });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect(created.body.data.userId).toBe(s.user.id);
      expect((await call(t.app, 'GET', '/auth/me', { token: s.token })).body.data.role).toBe(role);
      expect((await call(t.app, 'GET', '/advertising/campaigns', { token: s.token })).status, role).toBe(200);
    }
    const supplier = await createSignedIn(t.app, { role: 'SUPPLIER_FOOD' });
    expect(
      (await call(t.app, 'POST', '/advertising/profile', { token: supplier.token, body: profileBody() })).status,
    ).toBe(201);
    // It pays for its ads like any advertiser.
    await topUp(t, supplier, 10_000);
    const c = await activeCampaign(t, supplier, adminToken);
    const ads = await call(t.app, 'GET', '/advertising/ads', { query: { placement: 'HOME_BANNER', city: c.city! } });
    expect(ads.body.data.map((a: { id: string }) => a.id)).toEqual([c.id]);
    expect((await call(t.app, 'GET', `/advertising/campaigns/${c.id}/stats`, { token: supplier.token })).status).toBe(
      200,
    );
    // Another supplier without a profile is still refused, and cannot reach the campaign.
    const other = await createSignedIn(t.app, { role: 'SUPPLIER_FOOD' });
    expect((await call(t.app, 'GET', `/advertising/campaigns/${c.id}`, { token: other.token })).body.error.code).toBe(
      'FORBIDDEN',
    );
  });
});

describe('campaigns', () => {
  it('needs a profile, and the advertiser or administrator role', async () => {
    const noProfile = await createSignedIn(t.app, { role: 'ADVERTISER' });
    const res = await call(t.app, 'POST', '/advertising/campaigns', { token: noProfile.token, body: campaignBody(t) });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('ADVERTISER_PROFILE_REQUIRED');
    expect((await call(t.app, 'GET', '/advertising/campaigns', { token: noProfile.token })).body.data).toEqual([]);
    const client = await createSignedIn(t.app);
    expect((await call(t.app, 'GET', '/advertising/campaigns', { token: client.token })).status).toBe(403);
    expect((await call(t.app, 'POST', '/advertising/campaigns', { body: campaignBody(t) })).status).toBe(401);
  });

  it('is created as a draft with its picture, listed, read and changed', async () => {
    const a = await advertiser(t);
    const png = (await image(300, 200, 'png')).toString('base64');
    const created = await call(t.app, 'POST', '/advertising/campaigns', {
      token: a.token,
      body: campaignBody(t, { creative: { title: 'Bissap', text: 'Frais', image: `data:image/png;base64,${png}` } }),
    });
    expect(created.status).toBe(201);
    const c = created.body.data;
    expect(c).toMatchObject({
      status: 'DRAFT',
      advertiserId: a.profile.id,
      spent: 0,
      impressions: 0,
      clicks: 0,
      currency: 'XOF',
      target: { type: 'URL', url: 'https://bissap.example.sn/promo' },
    });
    expect(c.creative.imageUrl).toMatch(/\/files\/.*\.png/);
    const picture = await t.app.inject({
      method: 'GET',
      url: new URL(c.creative.imageUrl, 'http://x').pathname + new URL(c.creative.imageUrl, 'http://x').search,
    });
    expect(picture.statusCode).toBe(200);
    const list = await call(t.app, 'GET', '/advertising/campaigns', { token: a.token });
    expect(list.body.data.map((x: { id: string }) => x.id)).toEqual([c.id]);
    expect(
      (await call(t.app, 'GET', '/advertising/campaigns', { token: a.token, query: { status: 'ACTIVE' } })).body.data,
    ).toEqual([]);
    expect((await call(t.app, 'GET', `/advertising/campaigns/${c.id}`, { token: a.token })).body.data.name).toBe(
      'Bissap frais',
    );
    const put = await call(t.app, 'PUT', `/advertising/campaigns/${c.id}`, {
      token: a.token,
      body: { name: 'Bissap glacé', creative: { image: null }, bid: 150 },
    });
    expect(put.status).toBe(200);
    expect(put.body.data).toMatchObject({
      name: 'Bissap glacé',
      status: 'DRAFT',
      bid: 150,
      creative: { title: 'Bissap', imageUrl: null },
    });
  });

  it('checks targets: a public product, store or supplier, or an https URL', async () => {
    const a = await advertiser(t);
    const s = await supplierWithStore(t);
    const product = await publishProduct(t, s, adminToken);
    for (const target of [
      { type: 'PRODUCT', id: product.id },
      { type: 'STORE', id: s.store.id },
      { type: 'SUPPLIER', id: s.profile.id },
    ]) {
      const res = await call(t.app, 'POST', '/advertising/campaigns', {
        token: a.token,
        body: campaignBody(t, { target }),
      });
      expect(res.status, target.type).toBe(201);
      expect(res.body.data.target.url).toBe(
        `/api/v1/${{ PRODUCT: 'products', STORE: 'stores', SUPPLIER: 'suppliers' }[target.type]}/${target.id}`,
      );
    }
    const unknown = await call(t.app, 'POST', '/advertising/campaigns', {
      token: a.token,
      body: campaignBody(t, { target: { type: 'PRODUCT', id: uuidv7() } }),
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details).toEqual([{ field: 'body.target.id', message: 'must be a public product' }]);
    const hidden = await supplierWithStore(t, { verification: 'PENDING' });
    const unverified = await call(t.app, 'POST', '/advertising/campaigns', {
      token: a.token,
      body: campaignBody(t, { target: { type: 'SUPPLIER', id: hidden.profile.id } }),
    });
    expect(unverified.status).toBe(400);
    const cases: [Record<string, unknown>, string][] = [
      [{ target: { type: 'URL', url: 'http://insecure.example' } }, 'body.target.url'],
      [{ target: { type: 'URL' } }, 'body.target.url'],
      [{ target: { type: 'STORE' } }, 'body.target.id'],
      [{ target: { type: 'URL', url: 'https://x.example', id: uuidv7() } }, 'body.target.id'],
      [{ targeting: { latitude: 14.7, longitude: -17.4 } }, 'body.targeting'],
      [{ targeting: { categories: ['CARS'] } }, 'body.targeting.categories.0'],
      [{ endsAt: new Date(t.clock.now().getTime() - DAY).toISOString() }, 'body.endsAt'],
      [{ dailyBudget: 200_000 }, 'body.dailyBudget'],
      [{ bid: 20_000 }, 'body.bid'],
      [{ bid: 0 }, 'body.bid'],
      [{ pricingModel: 'CPA' }, 'body.pricingModel'],
      [{ placement: 'SIDEBAR' }, 'body.placement'],
      [{ creative: { title: 'Ok titre', image: 'not base64 !' } }, 'body.creative.image'],
    ];
    for (const [over, field] of cases) {
      const res = await call(t.app, 'POST', '/advertising/campaigns', { token: a.token, body: campaignBody(t, over) });
      expect(res.status, field).toBe(400);
      expect(JSON.stringify(res.body.error.details), field).toContain(field);
    }
    const notImage = await call(t.app, 'POST', '/advertising/campaigns', {
      token: a.token,
      body: campaignBody(t, { creative: { title: 'Ok titre', image: Buffer.from('just text').toString('base64') } }),
    });
    expect(notImage.status).toBe(415);
    expect((await call(t.app, 'GET', '/advertising/campaigns', { token: a.token })).body.meta.total).toBe(3);
  });

  it('walks its states: submit, approve, pause, resume; edits send it back to review', async () => {
    const a = await advertiser(t);
    const { id } = await activeCampaign(t, a, adminToken);
    const get = async () => (await call(t.app, 'GET', `/advertising/campaigns/${id}`, { token: a.token })).body.data;
    expect(await get()).toMatchObject({ status: 'ACTIVE' });
    expect((await call(t.app, 'POST', `/advertising/campaigns/${id}/submit`, { token: a.token })).status).toBe(409);
    expect((await call(t.app, 'POST', `/advertising/campaigns/${id}/resume`, { token: a.token })).body.error.code).toBe(
      'INVALID_TRANSITION',
    );
    expect((await call(t.app, 'POST', `/advertising/campaigns/${id}/pause`, { token: a.token })).body.data.status).toBe(
      'PAUSED',
    );
    expect(
      (await call(t.app, 'POST', `/advertising/campaigns/${id}/resume`, { token: a.token })).body.data.status,
    ).toBe('ACTIVE');
    const edited = await call(t.app, 'PUT', `/advertising/campaigns/${id}`, {
      token: a.token,
      body: { creative: { title: 'Nouveau titre' } },
    });
    expect(edited.body.data).toMatchObject({ status: 'PENDING_REVIEW', creative: { title: 'Nouveau titre' } });
    const rejected = await call(t.app, 'PATCH', `/admin/advertising/campaigns/${id}/reject`, {
      token: adminToken,
      body: { reason: 'Titre trompeur' },
    });
    expect(rejected.body.data).toMatchObject({ status: 'REJECTED', rejectionReason: 'Titre trompeur' });
    const fixed = await call(t.app, 'PUT', `/advertising/campaigns/${id}`, {
      token: a.token,
      body: { creative: { title: 'Titre honnête' } },
    });
    expect(fixed.body.data).toMatchObject({ status: 'PENDING_REVIEW', rejectionReason: null });
    expect(
      (await call(t.app, 'PATCH', `/admin/advertising/campaigns/${id}/approve`, { token: adminToken })).body.data
        .status,
    ).toBe('ACTIVE');
    const types = (await notificationsOf(a.token)).map((n) => n.type);
    expect(types.filter((x) => x === 'ad_campaign_approved')).toHaveLength(2);
    expect(types).toContain('ad_campaign_rejected');
    const audit = await listAdminActions(t.app.ctx.db, 'ad_campaign', id);
    expect(audit.map((x) => x.action).sort()).toEqual([
      'advertising.campaign.approve',
      'advertising.campaign.approve',
      'advertising.campaign.reject',
    ]);
    expect(audit.find((x) => x.action === 'advertising.campaign.reject')).toMatchObject({
      actorId: adminId,
      reason: 'Titre trompeur',
    });
  });

  it("hides others' campaigns (404) but lets administrators manage any", async () => {
    const a = await advertiser(t);
    const b = await advertiser(t);
    const { id } = await activeCampaign(t, a, adminToken);
    for (const [method, url] of [
      ['GET', ''],
      ['PUT', ''],
      ['POST', '/pause'],
      ['POST', '/resume'],
      ['POST', '/submit'],
      ['DELETE', ''],
      ['GET', '/stats'],
    ] as const) {
      const res = await call(t.app, method, `/advertising/campaigns/${id}${url}`, {
        token: b.token,
        ...(method === 'PUT' && { body: { name: 'Volé' } }),
      });
      expect(res.status, `${method} ${url}`).toBe(404);
    }
    expect((await call(t.app, 'GET', `/advertising/campaigns/${uuidv7()}`, { token: a.token })).status).toBe(404);
    expect((await call(t.app, 'GET', '/advertising/campaigns/not-a-uuid', { token: a.token })).status).toBe(400);
    expect(
      (await call(t.app, 'POST', `/advertising/campaigns/${id}/pause`, { token: adminToken })).body.data.status,
    ).toBe('PAUSED');
    expect((await call(t.app, 'GET', `/advertising/campaigns/${id}/stats`, { token: adminToken })).status).toBe(200);
  });

  it('is deleted softly: gone from lists, figures kept', async () => {
    const a = await advertiser(t);
    const { id } = await activeCampaign(t, a, adminToken);
    expect((await call(t.app, 'DELETE', `/advertising/campaigns/${id}`, { token: a.token })).body.data.message).toBe(
      'Campaign deleted',
    );
    expect((await call(t.app, 'GET', `/advertising/campaigns/${id}`, { token: a.token })).status).toBe(404);
    expect((await call(t.app, 'GET', '/advertising/campaigns', { token: a.token })).body.data).toEqual([]);
    const [row] = await repo.findCampaignsIncludingDeleted(t.app.ctx.db, [id]);
    expect(row).toMatchObject({ status: 'ACTIVE', deletedAt: expect.any(Date) });
  });

  it('completes campaigns past their end (the minute job) and refuses changes to them', async () => {
    const a = await advertiser(t);
    const { id } = await activeCampaign(t, a, adminToken, {
      endsAt: new Date(t.clock.now().getTime() + 2 * 60_000).toISOString(),
    });
    t.clock.advance(3 * 60_000);
    const { id: other } = await activeCampaign(t, a, adminToken);
    // The minute job completes campaigns past their end.
    await t.app.ctx.jobs.send('advertising.complete', {});
    await t.app.jobs.drain();
    expect((await call(t.app, 'GET', `/advertising/campaigns/${id}`, { token: a.token })).body.data).toMatchObject({
      status: 'COMPLETED',
      stopReason: 'END_DATE',
    });
    expect(
      (await notificationsOf(a.token)).some(
        (n) => n.type === 'ad_campaign_completed' && n.data.campaignId === id && n.data.reason === 'END_DATE',
      ),
    ).toBe(true);
    const put = await call(t.app, 'PUT', `/advertising/campaigns/${id}`, { token: a.token, body: { name: 'Encore' } });
    expect(put.status).toBe(409);
    expect(put.body.error.code).toBe('CAMPAIGN_NOT_EDITABLE');
    expect((await call(t.app, 'GET', `/advertising/campaigns/${other}`, { token: a.token })).body.data.status).toBe(
      'ACTIVE',
    );
  });

  it('refuses a total budget below what was spent', async () => {
    const a = await advertiser(t);
    const { id, city } = await activeCampaign(t, a, adminToken);
    const [ad] = (await call(t.app, 'GET', '/advertising/ads', { query: { placement: 'HOME_BANNER', city: city! } }))
      .body.data;
    expect(
      (await call(t.app, 'POST', `/advertising/ads/${id}/click`, { body: { token: ad.clickToken } })).body.data.counted,
    ).toBe(true);
    const res = await call(t.app, 'PUT', `/advertising/campaigns/${id}`, {
      token: a.token,
      body: { totalBudget: 50, dailyBudget: 50, bid: 50 },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([
      { field: 'body.totalBudget', message: 'must not be below what was already spent (100)' },
    ]);
    expect((await call(t.app, 'GET', `/advertising/campaigns/${id}`, { token: a.token })).body.data).toMatchObject({
      status: 'ACTIVE',
      spent: 100,
      totalBudget: 100_000,
    });
  });
});

describe('admin advertising', () => {
  it('is for administrators only', async () => {
    const a = await advertiser(t);
    for (const [method, url] of [
      ['GET', '/admin/advertising/advertisers'],
      ['GET', '/admin/advertising/campaigns'],
      ['GET', '/admin/advertising/campaigns/pending'],
      ['PATCH', `/admin/advertising/campaigns/${uuidv7()}/approve`],
    ] as const) {
      expect((await call(t.app, method, url, { token: a.token })).status).toBe(403);
      expect((await call(t.app, method, url)).status).toBe(401);
    }
  });

  it('lists advertisers, campaigns by status and advertiser, and the review queue oldest first', async () => {
    const a = await advertiser(t);
    await call(t.app, 'PUT', '/advertising/profile', {
      token: a.token,
      body: { companyName: `Maison Thiof ${a.profile.id}` },
    });
    const found = await call(t.app, 'GET', '/admin/advertising/advertisers', {
      token: adminToken,
      query: { q: a.profile.id.slice(-12) },
    });
    expect(found.body.data.map((x: { id: string }) => x.id)).toEqual([a.profile.id]);
    const first = (await call(t.app, 'POST', '/advertising/campaigns', { token: a.token, body: campaignBody(t) })).body
      .data.id;
    const second = (await call(t.app, 'POST', '/advertising/campaigns', { token: a.token, body: campaignBody(t) })).body
      .data.id;
    await call(t.app, 'POST', `/advertising/campaigns/${second}/submit`, { token: a.token });
    t.clock.advance(1000);
    await call(t.app, 'POST', `/advertising/campaigns/${first}/submit`, { token: a.token });
    const pending = (
      await call(t.app, 'GET', '/admin/advertising/campaigns/pending', { token: adminToken, query: { limit: 100 } })
    ).body.data.map((x: { id: string }) => x.id);
    expect(pending.indexOf(second)).toBeLessThan(pending.indexOf(first));
    const mine = await call(t.app, 'GET', '/admin/advertising/campaigns', {
      token: adminToken,
      query: { advertiserId: a.profile.id, status: 'PENDING_REVIEW' },
    });
    expect(mine.body.meta.total).toBe(2);
    expect(
      (await call(t.app, 'GET', '/admin/advertising/campaigns', { token: adminToken, query: { status: 'GONE' } }))
        .status,
    ).toBe(400);
    expect(
      (await call(t.app, 'PATCH', `/admin/advertising/campaigns/${first}/reject`, { token: adminToken, body: {} }))
        .status,
    ).toBe(400);
    expect(
      (await call(t.app, 'PATCH', `/admin/advertising/campaigns/${uuidv7()}/approve`, { token: adminToken })).status,
    ).toBe(404);
    const draft = (await call(t.app, 'POST', '/advertising/campaigns', { token: a.token, body: campaignBody(t) })).body
      .data.id;
    expect(
      (await call(t.app, 'PATCH', `/admin/advertising/campaigns/${draft}/approve`, { token: adminToken })).status,
    ).toBe(409);
  });
});
