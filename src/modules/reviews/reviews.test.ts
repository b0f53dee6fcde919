import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { privateDatabase, type PrivateDatabase } from '../../../test/helpers/database.js';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createSignedIn } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { uuidv7 } from '../../shared/ids.js';
import { listAdminActions } from '../audit/audit.service.js';
import { admin, shop } from '../escrow/escrow.test-support.js';
import { newClient } from '../orders/orders.test-support.js';
import { form, image } from '../products/products.test-support.js';
import { buyer, recomputed, review, reviewOk, type Client, type Shop } from './reviews.test-support.js';

let t: TestApp;
let adminToken: string;
let s: Shop;
let a: Client;
let b: Client;
let c: Client;
let stranger: Client;
let productId: string;

beforeAll(async () => {
  // It switches platform settings: on PostgreSQL, a database of its own.
  db = await privateDatabase();
  t = await buildTestApp(db.env);
  adminToken = (await admin(t)).token;
  s = await shop(t, adminToken, { products: 2 });
  productId = s.products[0]!.id;
  [a, b, c] = [await buyer(t, s), await buyer(t, s), await buyer(t, s)];
  stranger = await newClient(t);
}, 240_000);
let db: PrivateDatabase;
afterAll(async () => {
  await t.close();
  await db.drop();
});

const inbox = async (token: string) =>
  (await call(t.app, 'GET', '/notifications', { token })).body.data as {
    type: string;
    data: Record<string, unknown>;
  }[];

describe('writing a review', () => {
  it('lets a client with a completed order review the product; the supplier hears of it and the product page shows it', async () => {
    const res = await review(t, a.token, {
      productId,
      rating: 4,
      title: 'Très bon pain',
      comment: 'Encore chaud à 19 h.\nMerci !',
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      targetType: 'PRODUCT',
      productId,
      supplierId: s.profile.id,
      rating: 4,
      title: 'Très bon pain',
      comment: 'Encore chaud à 19 h.\nMerci !',
      helpfulCount: 0,
      reply: null,
      images: [],
      hidden: false,
    });
    expect(res.body.data.authorName).toMatch(/^\S+ [A-Z]\.$/);
    expect((await inbox(s.token)).find((n) => n.type === 'review_received')?.data).toMatchObject({
      reviewId: res.body.data.id,
      rating: 4,
      productId,
    });

    const page = await call(t.app, 'GET', `/products/${productId}`);
    expect(page.body.data.rating).toEqual({ average: 4, count: 1, distribution: { 1: 0, 2: 0, 3: 0, 4: 1, 5: 0 } });
    expect(page.body.data.latestReviews).toEqual([
      {
        id: res.body.data.id,
        rating: 4,
        comment: 'Encore chaud à 19 h.\nMerci !',
        authorName: res.body.data.authorName,
        createdAt: res.body.data.createdAt,
      },
    ]);
  });

  it('refuses a second review of the same product (409), anyone without a completed order (403) and a supplier reviewing itself (403)', async () => {
    expect((await review(t, a.token, { productId, rating: 2 })).body.error.code).toBe('ALREADY_REVIEWED');
    const none = await review(t, stranger.token, { productId, rating: 5 });
    expect([none.status, none.body.error.code]).toEqual([403, 'PURCHASE_REQUIRED']);
    expect((await review(t, stranger.token, { supplierId: s.profile.id, rating: 5 })).body.error.code).toBe(
      'PURCHASE_REQUIRED',
    );
    const supplier = await review(t, s.token, { productId, rating: 5 });
    expect([supplier.status, supplier.body.error.code]).toEqual([403, 'SELF_REVIEW']);
    expect((await review(t, s.token, { supplierId: s.profile.id, rating: 5 })).body.error.code).toBe('SELF_REVIEW');
    // Any role may review; the purchase rule is what refuses these.
    for (const role of ['SUPPLIER_DEALS', 'ASSOCIATION', 'ADVERTISER'] as const) {
      const other = await createSignedIn(t.app, { role });
      expect((await review(t, other.token, { productId, rating: 5 })).body.error.code, role).toBe('PURCHASE_REQUIRED');
    }
  });

  it("lets any signed-in user who completed an order review, whatever the account's role now", async () => {
    const own = await shop(t, adminToken, { products: 1 });
    const client = await buyer(t, own);
    const moved = await call(t.app, 'PATCH', `/admin/users/${client.user.id}/role`, {
      token: adminToken,
      body: { role: 'ADVERTISER' },
    });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    const login = await call(t.app, 'POST', '/auth/login', {
      body: { phoneNumber: client.user.phoneNumber, password: client.user.password },
    });
    expect(login.status, JSON.stringify(login.body)).toBe(200);
    const res = await review(t, login.body.data.accessToken, { productId: own.products[0]!.id, rating: 5 });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data).toMatchObject({ productId: own.products[0]!.id, rating: 5 });
  });

  it('refuses bad input with 400 naming the field, and unknown targets with 404', async () => {
    const bad = async (body: Record<string, unknown>, field: string) => {
      const res = await review(t, b.token, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    };
    await bad({ productId, rating: 6 }, 'body.rating');
    await bad({ productId, rating: 0 }, 'body.rating');
    await bad({ productId, rating: 3.5 }, 'body.rating');
    await bad({ productId, rating: 3, comment: 'x'.repeat(2001) }, 'body.comment');
    await bad({ productId, rating: 3, title: 'bell\u0007' }, 'body.title');
    await bad({ productId, rating: 3, extra: 1 }, 'body.extra');
    await bad({ productId: 'nope', rating: 3 }, 'body.productId');
    await bad({ rating: 3 }, 'body.productId');
    await bad({ productId, supplierId: s.profile.id, rating: 3 }, 'body.productId');
    expect((await review(t, b.token, { productId: uuidv7(), rating: 3 })).status).toBe(404);
    expect((await review(t, b.token, { supplierId: uuidv7(), rating: 3 })).status).toBe(404);
    expect((await call(t.app, 'GET', '/reviews/my', { token: b.token })).body.meta.total).toBe(0);
  });

  it('reviews a supplier, shown on the supplier page and its list', async () => {
    const r = await reviewOk(t, a.token, { supplierId: s.profile.id, rating: 5, comment: 'Accueil parfait' });
    expect((await review(t, a.token, { supplierId: s.profile.id, rating: 1 })).status).toBe(409);
    const page = await call(t.app, 'GET', `/suppliers/${s.profile.id}`);
    expect(page.body.data.rating).toEqual({ average: 5, count: 1 });
    const list = await call(t.app, 'GET', `/reviews/supplier/${s.profile.id}`);
    expect(list.status).toBe(200);
    expect(list.body.data.map((x: { id: string }) => x.id)).toEqual([r.id]);
    expect(list.body.meta).toMatchObject({
      page: 1,
      total: 1,
      hasMore: false,
      totalIsEstimate: false,
      rating: { average: 5, count: 1, distribution: { 5: 1 } },
    });
    expect((await call(t.app, 'GET', `/reviews/supplier/${uuidv7()}`)).status).toBe(404);
    expect((await call(t.app, 'GET', '/reviews/supplier/bad')).status).toBe(400);
  });
});

describe('lists', () => {
  it('sorts newest, highest, lowest and most helpful first, filters by rating and pages', async () => {
    const p = s.products[1]!.id;
    const ra = await reviewOk(t, a.token, { productId: p, rating: 2 });
    t.clock.advance(1000);
    const rb = await reviewOk(t, b.token, { productId: p, rating: 5 });
    t.clock.advance(1000);
    const rc = await reviewOk(t, c.token, { productId: p, rating: 4 });
    const ids = async (query: Record<string, string | number>) => {
      const res = await call(t.app, 'GET', `/reviews/product/${p}`, { query });
      expect(res.status).toBe(200);
      return res.body.data.map((x: { id: string }) => x.id);
    };
    expect(await ids({})).toEqual([rc.id, rb.id, ra.id]);
    expect(await ids({ sort: 'highest' })).toEqual([rb.id, rc.id, ra.id]);
    expect(await ids({ sort: 'lowest' })).toEqual([ra.id, rc.id, rb.id]);
    expect(await ids({ rating: 4 })).toEqual([rc.id]);
    await call(t.app, 'POST', `/reviews/${ra.id}/helpful`, { token: stranger.token });
    expect(await ids({ sort: 'helpful' })).toEqual([ra.id, rc.id, rb.id]);

    const second = await call(t.app, 'GET', `/reviews/product/${p}`, { query: { limit: 2, page: 2 } });
    expect(second.body.data.map((x: { id: string }) => x.id)).toEqual([ra.id]);
    expect(second.body.meta).toMatchObject({
      page: 2,
      limit: 2,
      total: 3,
      totalPages: 2,
      hasMore: false,
      rating: { average: 3.67, count: 3, distribution: { 1: 0, 2: 1, 3: 0, 4: 1, 5: 1 } },
    });
    // The product page shows the same summary and the latest three, newest first.
    const productPage = (await call(t.app, 'GET', `/products/${p}`)).body.data;
    expect(productPage.rating).toEqual(second.body.meta.rating);
    expect(productPage.latestReviews.map((x: { id: string }) => x.id)).toEqual([rc.id, rb.id, ra.id]);
    expect((await call(t.app, 'GET', `/reviews/product/${p}`, { query: { limit: 2 } })).body.meta.hasMore).toBe(true);
    expect(
      (await call(t.app, 'GET', `/reviews/product/${p}`, { query: { sort: 'best', rating: 9, extra: 1 } })).status,
    ).toBe(400);
    expect((await call(t.app, 'GET', `/reviews/product/${p}`, { query: { limit: 100, page: 11 } })).status).toBe(400);
    expect((await call(t.app, 'GET', `/reviews/product/${uuidv7()}`)).status).toBe(404);
  });

  it("lists the caller's own reviews, newest first", async () => {
    const mine = await call(t.app, 'GET', '/reviews/my', { token: a.token });
    expect(mine.status).toBe(200);
    expect(mine.body.meta.total).toBe(3);
    expect(mine.body.data.every((r: { hidden: boolean }) => r.hidden === false)).toBe(true);
    expect((await call(t.app, 'GET', '/reviews/my')).status).toBe(401);
  });
});

describe('editing, deleting and answering', () => {
  it('lets the author edit; the summaries follow; others are refused', async () => {
    const [mine] = (await call(t.app, 'GET', '/reviews/my', { token: a.token })).body.data.filter(
      (r: { productId: string }) => r.productId === productId,
    );
    const res = await call(t.app, 'PUT', `/reviews/${mine.id}`, {
      token: a.token,
      body: { rating: 2, title: null, comment: 'Finalement un peu sec' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ rating: 2, title: null, comment: 'Finalement un peu sec' });
    expect((await call(t.app, 'GET', `/products/${productId}`)).body.data.rating).toEqual(
      await recomputed(t, productId),
    );
    expect((await call(t.app, 'GET', `/products/${productId}`)).body.data.rating.average).toBe(2);

    const other = await call(t.app, 'PUT', `/reviews/${mine.id}`, { token: b.token, body: { rating: 5 } });
    expect([other.status, other.body.error.code]).toEqual([403, 'NOT_OWNER']);
    expect((await call(t.app, 'DELETE', `/reviews/${mine.id}`, { token: b.token })).status).toBe(403);
    expect((await call(t.app, 'PUT', `/reviews/${mine.id}`, { token: a.token, body: {} })).status).toBe(400);
    expect((await call(t.app, 'PUT', `/reviews/${uuidv7()}`, { token: a.token, body: { rating: 3 } })).status).toBe(
      404,
    );
    expect((await call(t.app, 'PUT', '/reviews/nope', { token: a.token, body: { rating: 3 } })).status).toBe(400);
  });

  it('lets the supplier answer once; the author hears of it', async () => {
    const r = await reviewOk(t, b.token, { productId, rating: 3 });
    const other = await shop(t, adminToken, { payoutPhone: null });
    expect(
      (await call(t.app, 'POST', `/reviews/${r.id}/reply`, { token: other.token, body: { reply: 'Merci' } })).body.error
        .code,
    ).toBe('NOT_OWNER');
    expect(
      (await call(t.app, 'POST', `/reviews/${r.id}/reply`, { token: b.token, body: { reply: 'Merci' } })).status,
    ).toBe(403);
    const res = await call(t.app, 'POST', `/reviews/${r.id}/reply`, {
      token: s.token,
      body: { reply: 'Merci, à bientôt !' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.reply).toEqual({ text: 'Merci, à bientôt !', repliedAt: expect.any(String) });
    const again = await call(t.app, 'POST', `/reviews/${r.id}/reply`, { token: s.token, body: { reply: 'Encore' } });
    expect([again.status, again.body.error.code]).toEqual([409, 'ALREADY_REPLIED']);
    expect((await call(t.app, 'POST', `/reviews/${r.id}/reply`, { token: s.token, body: { reply: '' } })).status).toBe(
      400,
    );
    expect((await inbox(b.token)).find((n) => n.type === 'review_replied')?.data).toMatchObject({ reviewId: r.id });
    const listed = (await call(t.app, 'GET', `/reviews/product/${productId}`)).body.data.find(
      (x: { id: string }) => x.id === r.id,
    );
    expect(listed.reply.text).toBe('Merci, à bientôt !');
  });

  it('lets the author delete; the summary follows and the client may review again', async () => {
    const [mine] = (await call(t.app, 'GET', '/reviews/my', { token: b.token })).body.data.filter(
      (r: { productId: string }) => r.productId === productId,
    );
    const res = await call(t.app, 'DELETE', `/reviews/${mine.id}`, { token: b.token });
    expect(res.status).toBe(200);
    expect((await call(t.app, 'DELETE', `/reviews/${mine.id}`, { token: b.token })).status).toBe(404);
    expect((await call(t.app, 'GET', `/products/${productId}`)).body.data.rating).toEqual(
      await recomputed(t, productId),
    );
    await reviewOk(t, b.token, { productId, rating: 5 });
    expect((await call(t.app, 'GET', `/products/${productId}`)).body.data.rating).toEqual(
      await recomputed(t, productId),
    );
  });
});

describe('pictures', () => {
  it("adds up to three pictures to one's review, and deletes one", async () => {
    const r = await reviewOk(t, c.token, { productId, rating: 4 });
    const png = await image(200, 150, 'png');
    const added = await call(t.app, 'POST', `/reviews/${r.id}/images`, {
      token: c.token,
      body: form([
        ['images', png, 'a.png'],
        ['images', await image(90, 90, 'jpeg'), 'b.jpg'],
      ]),
    });
    expect(added.status).toBe(200);
    expect(added.body.data.images).toHaveLength(2);
    expect(added.body.data.images[0].thumbnailUrl).toContain('/files/');
    const tooMany = await call(t.app, 'POST', `/reviews/${r.id}/images`, {
      token: c.token,
      body: form([
        ['images', png, 'c.png'],
        ['images', png, 'd.png'],
      ]),
    });
    expect([tooMany.status, tooMany.body.error.code]).toEqual([422, 'TOO_MANY_IMAGES']);
    expect(
      (await call(t.app, 'POST', `/reviews/${r.id}/images`, { token: a.token, body: form([['images', png, 'c.png']]) }))
        .status,
    ).toBe(403);
    expect(
      (
        await call(t.app, 'POST', `/reviews/${r.id}/images`, {
          token: c.token,
          body: form([['images', Buffer.from('GIF89a....'), 'x.png']]),
        })
      ).status,
    ).toBe(415);
    expect(
      (await call(t.app, 'POST', `/reviews/${r.id}/images`, { token: c.token, body: { images: [] } })).status,
    ).toBe(415);
    const listed = (await call(t.app, 'GET', `/reviews/product/${productId}`)).body.data.find(
      (x: { id: string }) => x.id === r.id,
    );
    expect(listed.images.map((i: { id: string }) => i.id)).toEqual(
      added.body.data.images.map((i: { id: string }) => i.id),
    );

    const gone = await call(t.app, 'DELETE', `/reviews/${r.id}/images`, {
      token: c.token,
      query: { imageId: added.body.data.images[0].id },
    });
    expect(gone.status).toBe(200);
    expect(gone.body.data.images).toHaveLength(1);
    expect(
      (await call(t.app, 'DELETE', `/reviews/${r.id}/images`, { token: c.token, query: { imageId: uuidv7() } })).status,
    ).toBe(404);
  });
});

describe('reports and moderation', () => {
  let target: { id: string; rating: number };
  const reporters: Client[] = [];

  beforeAll(async () => {
    for (let i = 0; i < 4; i++) reporters.push(await newClient(t));
    const other = (await call(t.app, 'GET', '/reviews/my', { token: c.token })).body.data.find(
      (r: { productId: string }) => r.productId === productId,
    );
    target = other;
  });

  it("takes one report per user, not on one's own review, and hides a review at three reporters", async () => {
    const report = (token: string, body: Record<string, unknown> = { reason: 'spam' }) =>
      call(t.app, 'POST', `/reviews/${target.id}/report`, { token, body });
    const own = await report(c.token);
    expect([own.status, own.body.error.code]).toEqual([403, 'OWN_REVIEW']);
    expect((await report(reporters[0]!.token, { reason: 'rude' })).status).toBe(400);
    expect((await report(reporters[0]!.token, { reason: 'offensive', comment: 'x'.repeat(501) })).status).toBe(400);
    const first = await report(reporters[0]!.token, { reason: 'offensive', comment: 'Insultes' });
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ reviewId: target.id, reason: 'offensive' });
    expect((await report(reporters[0]!.token)).body.error.code).toBe('ALREADY_REPORTED');
    expect(
      (
        await call(t.app, 'POST', `/reviews/${uuidv7()}/report`, {
          token: reporters[0]!.token,
          body: { reason: 'spam' },
        })
      ).status,
    ).toBe(404);
    expect((await report(reporters[1]!.token, { reason: 'false' })).status).toBe(200);
    const before = (await call(t.app, 'GET', `/products/${productId}`)).body.data.rating;
    expect(
      (await call(t.app, 'GET', `/reviews/product/${productId}`)).body.data.map((x: { id: string }) => x.id),
    ).toContain(target.id);

    expect((await report(reporters[2]!.token, { reason: 'other' })).status).toBe(200);
    const listed = await call(t.app, 'GET', `/reviews/product/${productId}`);
    expect(listed.body.data.map((x: { id: string }) => x.id)).not.toContain(target.id);
    const after = (await call(t.app, 'GET', `/products/${productId}`)).body.data.rating;
    expect(after.count).toBe(before.count - 1);
    expect(after).toEqual(await recomputed(t, productId));
    expect((await report(reporters[3]!.token)).status).toBe(404);
    expect((await call(t.app, 'POST', `/reviews/${target.id}/helpful`)).status).toBe(404);
    expect((await call(t.app, 'PUT', `/reviews/${target.id}`, { token: a.token, body: { rating: 1 } })).status).toBe(
      404,
    );
    const mine = (await call(t.app, 'GET', '/reviews/my', { token: c.token })).body.data.find(
      (x: { id: string }) => x.id === target.id,
    );
    expect(mine.hidden).toBe(true);
  });

  it('lists reported reviews with their reports for administrators', async () => {
    const res = await call(t.app, 'GET', '/admin/reviews/reported', { token: adminToken, query: { limit: 100 } });
    expect(res.status).toBe(200);
    const found = res.body.data.find((x: { id: string }) => x.id === target.id);
    expect(found).toMatchObject({ hidden: true, openReports: 3 });
    expect(found.reports.map((r: { reason: string }) => r.reason)).toEqual(['offensive', 'false', 'other']);
    expect(found.reports[0]).toMatchObject({ reporterId: reporters[0]!.user.id, comment: 'Insultes' });
    expect((await call(t.app, 'GET', '/admin/reviews/reported', { token: a.token })).status).toBe(403);
  });

  it('clears the reports: visible again, back in the summary, audited', async () => {
    const res = await call(t.app, 'PATCH', `/admin/reviews/${target.id}/clear-report`, {
      token: adminToken,
      body: { reason: 'Avis légitime' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.hidden).toBe(false);
    expect(
      (await call(t.app, 'GET', `/reviews/product/${productId}`)).body.data.map((x: { id: string }) => x.id),
    ).toContain(target.id);
    expect((await call(t.app, 'GET', `/products/${productId}`)).body.data.rating).toEqual(
      await recomputed(t, productId),
    );
    const listed = (await call(t.app, 'GET', '/admin/reviews/reported', { token: adminToken, query: { limit: 100 } }))
      .body.data;
    expect(listed.map((x: { id: string }) => x.id)).not.toContain(target.id);
    const again = await call(t.app, 'PATCH', `/admin/reviews/${target.id}/clear-report`, { token: adminToken });
    expect([again.status, again.body.error.code]).toEqual([409, 'NO_OPEN_REPORTS']);
    expect((await call(t.app, 'PATCH', `/admin/reviews/${uuidv7()}/clear-report`, { token: adminToken })).status).toBe(
      404,
    );
    const [action] = await listAdminActions(t.app.ctx.db, 'review', target.id);
    expect(action).toMatchObject({
      action: 'review.reports_cleared',
      reason: 'Avis légitime',
      data: { reportsClosed: 3, wasHidden: true },
    });
    // Reporters who were heard cannot report it again; a new one can.
    expect(
      (
        await call(t.app, 'POST', `/reviews/${target.id}/report`, {
          token: reporters[0]!.token,
          body: { reason: 'spam' },
        })
      ).status,
    ).toBe(409);
    expect(
      (
        await call(t.app, 'POST', `/reviews/${target.id}/report`, {
          token: reporters[3]!.token,
          body: { reason: 'spam' },
        })
      ).status,
    ).toBe(200);
  });

  it('deletes a review: audited, the summary follows', async () => {
    const res = await call(t.app, 'DELETE', `/admin/reviews/${target.id}`, {
      token: adminToken,
      query: { reason: 'Hors sujet' },
    });
    expect(res.status).toBe(200);
    expect((await call(t.app, 'GET', `/products/${productId}`)).body.data.rating).toEqual(
      await recomputed(t, productId),
    );
    const [action] = await listAdminActions(t.app.ctx.db, 'review', target.id);
    expect(action).toMatchObject({
      action: 'review.deleted',
      reason: 'Hors sujet',
      data: { rating: target.rating, authorId: c.user.id },
    });
    expect((await call(t.app, 'DELETE', `/admin/reviews/${target.id}`, { token: adminToken })).status).toBe(404);
    expect((await call(t.app, 'DELETE', `/admin/reviews/${uuidv7()}`, { token: s.token })).status).toBe(403);
  });
});

describe('the feature flag', () => {
  it('lets any client review when purchases are not required', async () => {
    const superAdmin = await createSignedIn(t.app, { role: 'SUPER_ADMIN' });
    const set = (on: boolean) =>
      call(t.app, 'PATCH', '/admin/settings', {
        token: superAdmin.token,
        body: { features: { reviewsRequirePurchase: on } },
      });
    const res = await set(false);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    try {
      expect((await review(t, stranger.token, { supplierId: s.profile.id, rating: 3 })).status).toBe(201);
      // Any signed-in user, not only clients; still never a supplier about itself.
      const association = await createSignedIn(t.app, { role: 'ASSOCIATION' });
      const other = await review(t, association.token, { supplierId: s.profile.id, rating: 4 });
      expect(other.status, JSON.stringify(other.body)).toBe(201);
      expect((await review(t, s.token, { supplierId: s.profile.id, rating: 5 })).body.error.code).toBe('SELF_REVIEW');
    } finally {
      await set(true);
    }
    expect((await review(t, stranger.token, { productId, rating: 3 })).body.error.code).toBe('PURCHASE_REQUIRED');
  });
});

describe('helpful', () => {
  it('is rate limited per address', async () => {
    const r = await reviewOk(t, b.token, { supplierId: s.profile.id, rating: 3 });
    const statuses = [];
    for (let i = 0; i < 22; i++)
      statuses.push(
        (
          await call(t.app, 'POST', `/reviews/${r.id}/helpful`, {
            remoteAddress: '198.51.100.23',
            headers: { 'x-device-id': `device-${i}-abcdef` },
          })
        ).status,
      );
    expect(statuses.filter((x) => x === 200)).toHaveLength(20);
    expect(statuses.at(-1)).toBe(429);
  });
  it('counts a signed-in user once, an anonymous device once a day, never the author', async () => {
    const r = await reviewOk(t, c.token, { supplierId: s.profile.id, rating: 4 });
    const mark = (opts: Parameters<typeof call>[3] = {}) => call(t.app, 'POST', `/reviews/${r.id}/helpful`, opts);
    expect((await mark({ token: a.token })).body.data).toEqual({ reviewId: r.id, helpfulCount: 1, counted: true });
    expect((await mark({ token: a.token })).body.data).toEqual({ reviewId: r.id, helpfulCount: 1, counted: false });
    const device = { 'x-device-id': `device-${uuidv7()}` };
    expect((await mark({ headers: device })).body.data.counted).toBe(true);
    expect((await mark({ headers: device })).body.data.counted).toBe(false);
    expect((await mark({ remoteAddress: '203.0.113.7' })).body.data.counted).toBe(true);
    expect((await mark({ remoteAddress: '203.0.113.7' })).body.data.counted).toBe(false);
    const own = await mark({ token: c.token });
    expect([own.status, own.body.error.code]).toEqual([403, 'OWN_REVIEW']);
    expect((await call(t.app, 'POST', `/reviews/${uuidv7()}/helpful`)).status).toBe(404);
    // A day later (the last test of the file: access tokens have expired by then).
    t.clock.advance(24 * 3_600_000);
    expect((await mark({ headers: device })).body.data).toEqual({ reviewId: r.id, helpfulCount: 4, counted: true });
    expect((await mark({ remoteAddress: '203.0.113.7' })).body.data.counted).toBe(true);
  });
});
