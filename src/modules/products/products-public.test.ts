import { eq } from 'drizzle-orm';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createSignedIn } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { products } from '../../db/schema/products.js';
import { stores } from '../../db/schema/stores.js';
import { supplierProfiles } from '../../db/schema/suppliers.js';
import { uuidv7 } from '../../shared/ids.js';
import { admin, form, HOUR, image, productBody, publishProduct, supplierWithStore } from './products.test-support.js';

let t: TestApp;
let adminToken: string;
beforeAll(async () => {
  t = await buildTestApp();
  adminToken = (await admin(t)).token;
});
afterAll(() => t.close());

describe('GET /products/:id', () => {
  it('shows a public product with its supplier, store, pictures, rating and the favourite flag', async () => {
    const s = await supplierWithStore(t);
    const p = await publishProduct(t, s, adminToken);
    const anonymous = await call(t.app, 'GET', `/products/${p.id}`);
    expect(anonymous.status).toBe(200);
    expect(anonymous.body.data).toMatchObject({
      id: p.id,
      supplier: { id: s.profile.id, businessName: s.profile.businessName, verified: true },
      store: { id: s.store.id, name: s.store.name },
      images: [],
      rating: { average: 0, count: 0 },
      latestReviews: [],
      isFavorite: false,
    });
    const client = await createSignedIn(t.app);
    expect((await call(t.app, 'POST', `/products/${p.id}/favorite`, { token: client.token })).body.data).toEqual({
      productId: p.id,
      isFavorite: true,
    });
    expect((await call(t.app, 'GET', `/products/${p.id}`, { token: client.token })).body.data.isFavorite).toBe(true);
    // A bad token reads as anonymous on a public page.
    expect((await call(t.app, 'GET', `/products/${p.id}`, { token: 'not-a-token' })).body.data.isFavorite).toBe(false);
    expect((await call(t.app, 'GET', '/products/not-an-id')).status).toBe(400);
    expect((await call(t.app, 'GET', `/products/${uuidv7()}`)).status).toBe(404);
  });

  it("shows the fields its owner sees, the store as its own page does, pictures and the supplier's logo", async () => {
    const s = await supplierWithStore(t);
    const p = await publishProduct(t, s, adminToken, { dietaryTags: ['VEGAN'], allergens: ['GLUTEN'] });
    await call(t.app, 'POST', `/products/${p.id}/images`, {
      token: s.token,
      body: form([['images', await image(100, 80, 'png'), 'a.png']]),
    });
    expect((await call(t.app, 'PATCH', `/admin/products/${p.id}/approve`, { token: adminToken })).status).toBe(200);
    await t.app.ctx.db
      .update(supplierProfiles)
      .set({ logoKey: `logos/${s.profile.id}.webp` })
      .where(eq(supplierProfiles.id, s.profile.id));
    await t.app.ctx.db
      .update(stores)
      .set({
        closureStartsAt: new Date(t.clock.now().getTime() + HOUR),
        closureEndsAt: new Date(t.clock.now().getTime() + 2 * HOUR),
        closureReason: 'Inventaire',
      })
      .where(eq(stores.id, s.store.id));
    const page = (await call(t.app, 'GET', `/products/${p.id}`)).body.data;
    const own = (await call(t.app, 'GET', '/products/my-products', { token: s.token })).body.data.find(
      (x: { id: string }) => x.id === p.id,
    );
    const { status: _status, rejectionReason: _reason, sales: _sales, rating: _rating, ...shared } = own;
    expect(page).toMatchObject(shared);
    expect(page.images).toHaveLength(1);
    expect(page.store).toEqual((await call(t.app, 'GET', `/stores/${s.store.id}`)).body.data);
    expect(page.store.closure).toMatchObject({ reason: 'Inventaire', inEffect: false });
    expect(page.supplier.logoUrl).toMatch(new RegExp(`/files/public/logos/${s.profile.id}\\.webp$`));
  });

  it('hides the product when its supplier is not public, or its store inactive or closed', async () => {
    const s = await supplierWithStore(t);
    const p = await publishProduct(t, s, adminToken);
    const visible = async () => (await call(t.app, 'GET', `/products/${p.id}`)).status;
    expect(await visible()).toBe(200);
    await t.app.ctx.db.update(stores).set({ isActive: false }).where(eq(stores.id, s.store.id));
    expect(await visible()).toBe(404);
    const now = t.clock.now();
    await t.app.ctx.db
      .update(stores)
      .set({
        isActive: true,
        closureStartsAt: new Date(now.getTime() - HOUR),
        closureEndsAt: new Date(now.getTime() + HOUR),
        closureReason: 'Travaux',
      })
      .where(eq(stores.id, s.store.id));
    expect(await visible()).toBe(404);
    await t.app.ctx.db
      .update(stores)
      .set({ closureStartsAt: null, closureEndsAt: null, closureReason: null })
      .where(eq(stores.id, s.store.id));
    expect(await visible()).toBe(200);
    await t.app.ctx.db
      .update(supplierProfiles)
      .set({ verificationStatus: 'REJECTED' })
      .where(eq(supplierProfiles.id, s.profile.id));
    expect(await visible()).toBe(404);
  });

  it('counts views in memory and writes them in one batch', async () => {
    const s = await supplierWithStore(t);
    const p = await publishProduct(t, s, adminToken);
    for (let i = 0; i < 5; i++) await call(t.app, 'GET', `/products/${p.id}`);
    const stored = async () =>
      (await t.app.ctx.db.select({ v: products.viewsCount }).from(products).where(eq(products.id, p.id)))[0]!.v;
    expect(await stored()).toBe(0);
    await t.app.services.products.flushViews();
    expect(await stored()).toBe(5);
  });

  it('follows the store when it moves: the stored position is updated with it', async () => {
    const s = await supplierWithStore(t);
    const p = await publishProduct(t, s, adminToken);
    const where = async () =>
      (await t.app.ctx.db.execute(
        // Distance in metres from the store's new place: 0 once the product followed it.
        `select round(earth_distance(location, ll_to_earth(14.7645, -17.3660))) as d from products where id = '${p.id}'`,
      )) as unknown as { rows: { d: number | string }[] };
    expect(Number((await where()).rows[0]!.d)).toBeGreaterThan(1000);
    expect(
      (
        await call(t.app, 'PUT', `/supplier/stores/${s.store.id}`, {
          token: s.token,
          body: { latitude: 14.7645, longitude: -17.366 },
        })
      ).status,
    ).toBe(200);
    expect(Number((await where()).rows[0]!.d)).toBe(0);
  });
});

describe('favourites', () => {
  it('adds, lists and removes favourites idempotently; refuses products the public cannot see', async () => {
    const s = await supplierWithStore(t);
    const p = await publishProduct(t, s, adminToken);
    const q = await publishProduct(t, s, adminToken, { name: 'Croissants' });
    const client = await createSignedIn(t.app);
    for (const id of [p.id, q.id, p.id])
      expect((await call(t.app, 'POST', `/products/${id}/favorite`, { token: client.token })).status).toBe(200);
    const list = await call(t.app, 'GET', '/products/favorites', { token: client.token });
    expect(list.body.meta.total).toBe(2);
    expect(list.body.data[0]).toMatchObject({
      id: q.id,
      name: 'Croissants',
      storeName: s.store.name,
      available: true,
      discountPercent: 60,
      thumbnailUrl: null,
    });
    const detail = await call(t.app, 'GET', `/products/${p.id}`);
    expect(detail.body.data.favoritesCount).toBe(1);
    expect(
      (await call(t.app, 'DELETE', `/products/${p.id}/favorite`, { token: client.token })).body.data.isFavorite,
    ).toBe(false);
    expect((await call(t.app, 'DELETE', `/products/${p.id}/favorite`, { token: client.token })).status).toBe(200);
    expect((await call(t.app, 'GET', '/products/favorites', { token: client.token })).body.meta.total).toBe(1);
    expect((await call(t.app, 'GET', `/products/${p.id}`)).body.data.favoritesCount).toBe(0);

    const pending = await call(t.app, 'POST', '/products', { token: s.token, body: productBody(t, s.store.id) });
    expect(
      (await call(t.app, 'POST', `/products/${pending.body.data.id}/favorite`, { token: client.token })).status,
    ).toBe(404);
    expect((await call(t.app, 'POST', `/products/${p.id}/favorite`)).status).toBe(401);
    expect((await call(t.app, 'GET', '/products/favorites')).status).toBe(401);
  });

  it('marks a favourite unavailable once the product is deactivated, and drops it when deleted', async () => {
    const s = await supplierWithStore(t);
    const p = await publishProduct(t, s, adminToken);
    const client = await createSignedIn(t.app);
    await call(t.app, 'POST', `/products/${p.id}/favorite`, { token: client.token });
    await call(t.app, 'PUT', `/products/${p.id}`, { token: s.token, body: { status: 'INACTIVE' } });
    expect((await call(t.app, 'GET', '/products/favorites', { token: client.token })).body.data[0].available).toBe(
      false,
    );
    await call(t.app, 'DELETE', `/products/${p.id}`, { token: s.token });
    expect((await call(t.app, 'GET', '/products/favorites', { token: client.token })).body.meta.total).toBe(0);
  });
});

describe('store follows', () => {
  it('follows and unfollows a public store; 404 for a store the public cannot see', async () => {
    const s = await supplierWithStore(t);
    const client = await createSignedIn(t.app);
    expect((await call(t.app, 'POST', `/stores/${s.store.id}/follow`, { token: client.token })).body.data).toEqual({
      storeId: s.store.id,
      following: true,
    });
    expect((await call(t.app, 'POST', `/stores/${s.store.id}/follow`, { token: client.token })).status).toBe(200);
    expect(await t.app.services.products.followersOf(t.app.ctx.db, s.store.id)).toEqual([client.user.id]);
    expect(
      (await call(t.app, 'DELETE', `/stores/${s.store.id}/follow`, { token: client.token })).body.data.following,
    ).toBe(false);
    expect(await t.app.services.products.followersOf(t.app.ctx.db, s.store.id)).toEqual([]);
    const hidden = await supplierWithStore(t, { verification: 'PENDING' });
    expect((await call(t.app, 'POST', `/stores/${hidden.store.id}/follow`, { token: client.token })).status).toBe(404);
    expect((await call(t.app, 'POST', `/stores/${s.store.id}/follow`)).status).toBe(401);
    expect((await call(t.app, 'DELETE', `/stores/${s.store.id}/follow`)).status).toBe(401);
    expect((await call(t.app, 'POST', '/stores/not-an-id/follow', { token: client.token })).status).toBe(400);
  });
});

describe('pictures', () => {
  it('stores each picture in two sizes, in order, re-encoded without metadata', async () => {
    const s = await supplierWithStore(t);
    const p = await publishProduct(t, s, adminToken);
    const withExif = await sharp({ create: { width: 2000, height: 1500, channels: 3, background: '#264653' } })
      .jpeg()
      .withMetadata({ exif: { IFD0: { Copyright: 'secret place' } } })
      .toBuffer();
    const res = await call(t.app, 'POST', `/products/${p.id}/images`, {
      token: s.token,
      body: form([
        ['images', withExif, 'a.jpg'],
        ['images', await image(100, 80, 'png'), 'b.png'],
      ]),
    });
    expect(res.status).toBe(200);
    const imgs = res.body.data.images as { id: string; position: number; thumbnailUrl: string; largeUrl: string }[];
    expect(imgs.map((i) => i.position)).toEqual([1, 2]);
    const fetch = async (url: string) => (await t.app.inject({ method: 'GET', url })).rawPayload;
    const thumb = await sharp(await fetch(imgs[0]!.thumbnailUrl)).metadata();
    const large = await sharp(await fetch(imgs[0]!.largeUrl)).metadata();
    expect([thumb.width, large.width, thumb.format, large.exif]).toEqual([320, 1280, 'jpeg', undefined]);
    expect((await sharp(await fetch(imgs[1]!.largeUrl)).metadata()).width).toBe(100);
    // New pictures are judged: the product goes back to review.
    expect(res.body.data.status).toBe('PENDING_REVIEW');

    const removed = await call(t.app, 'DELETE', `/products/${p.id}/images`, {
      token: s.token,
      query: { imageId: imgs[0]!.id },
    });
    expect(removed.body.data.images.map((i: { id: string }) => i.id)).toEqual([imgs[1]!.id]);
    // The files go by a job, once the change is committed.
    await t.app.jobs.drain();
    expect((await t.app.inject({ method: 'GET', url: imgs[0]!.thumbnailUrl })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: imgs[0]!.largeUrl })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: imgs[1]!.largeUrl })).statusCode).toBe(200);
    expect(
      (await call(t.app, 'DELETE', `/products/${p.id}/images`, { token: s.token, query: { imageId: imgs[0]!.id } }))
        .status,
    ).toBe(404);
    expect((await call(t.app, 'DELETE', `/products/${p.id}/images`, { token: s.token })).status).toBe(400);
  });

  it('refuses other formats with 415 whatever the name says, and a sixth picture with 422, also in parallel', async () => {
    const s = await supplierWithStore(t);
    const p = await publishProduct(t, s, adminToken);
    const gif = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
    const bad = await call(t.app, 'POST', `/products/${p.id}/images`, {
      token: s.token,
      body: form([['images', gif, 'photo.jpg']]),
    });
    expect(bad.status).toBe(415);
    expect(bad.body.error.code).toBe('UNSUPPORTED_IMAGE_FORMAT');
    const png = await image(40, 40, 'png');
    const six = await call(t.app, 'POST', `/products/${p.id}/images`, {
      token: s.token,
      body: form(Array.from({ length: 6 }, (_, i) => ['images', png, `${i}.png`] as [string, Buffer, string])),
    });
    expect(six.status).toBe(422);
    expect(six.body.error.code).toBe('TOO_MANY_IMAGES');
    expect(
      (
        await call(t.app, 'POST', `/products/${p.id}/images`, {
          token: s.token,
          body: form([
            ['images', png, 'a.png'],
            ['images', png, 'b.png'],
          ]),
        })
      ).status,
    ).toBe(200);
    // Three uploads of two at once with three slots left: exactly one gets in.
    const race = await Promise.all(
      Array.from({ length: 3 }, () =>
        call(t.app, 'POST', `/products/${p.id}/images`, {
          token: s.token,
          body: form([
            ['images', png, 'c.png'],
            ['images', png, 'd.png'],
          ]),
        }),
      ),
    );
    expect(race.map((r) => r.status).sort()).toEqual([200, 422, 422]);
    const mine = await call(t.app, 'GET', '/products/my-products', { token: s.token });
    const imgs = mine.body.data.find((x: { id: string }) => x.id === p.id).images as { position: number }[];
    expect(imgs.map((i) => i.position)).toEqual([1, 2, 3, 4]);
    const other = await supplierWithStore(t);
    expect(
      (
        await call(t.app, 'POST', `/products/${p.id}/images`, {
          token: other.token,
          body: form([['images', png, 'a.png']]),
        })
      ).status,
    ).toBe(404);
    const wrongField = await call(t.app, 'POST', `/products/${p.id}/images`, {
      token: s.token,
      body: form([['photo', png, 'a.png']]),
    });
    expect(wrongField.status).toBe(400);
  });

  it('deletes the picture files of a deleted product by a job', async () => {
    const s = await supplierWithStore(t);
    const p = await publishProduct(t, s, adminToken);
    const up = await call(t.app, 'POST', `/products/${p.id}/images`, {
      token: s.token,
      body: form([['images', await image(50, 50, 'webp'), 'a.webp']]),
    });
    const urls = up.body.data.images.flatMap((i: { thumbnailUrl: string; largeUrl: string }) => [
      i.thumbnailUrl,
      i.largeUrl,
    ]) as string[];
    expect(urls[0]).toMatch(/\.webp$/);
    expect((await call(t.app, 'DELETE', `/products/${p.id}`, { token: s.token })).status).toBe(200);
    await t.app.jobs.drain();
    for (const url of urls) expect((await t.app.inject({ method: 'GET', url })).statusCode).toBe(404);
  });
});
