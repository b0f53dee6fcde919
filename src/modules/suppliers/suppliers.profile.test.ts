import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createSignedIn, createSupplier } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';

let t: TestApp;
// Suppliers listed here report unfinished work, as the orders module will for open orders.
const busy = new Set<string>();
beforeAll(async () => {
  t = await buildTestApp();
  t.app.ctx.workInProgress.register(async (_ex, scope) =>
    'supplierId' in scope && busy.has(scope.supplierId) ? '2 orders in progress' : null,
  );
});
afterAll(() => t.close());

const profileBody = (over: Record<string, unknown> = {}) => ({
  businessName: 'Boulangerie du Port',
  description: 'Pain frais et viennoiseries en fin de journée',
  contactPhone: '+221771234567',
  contactEmail: 'Contact@Boulangerie.example',
  address: '5 Rue du Port',
  city: 'Dakar',
  latitude: 14.6937,
  longitude: -17.4441,
  payoutPhone: '+221781234567',
  openingHours: { '1': ['07:00-13:00', '15:00-20:00'], '6': ['08:00-24:00'] },
  timezone: 'Africa/Dakar',
  ...over,
});
const fieldsOf = (res: { body: any }) => res.body.error.details.map((d: { field: string }) => d.field);

describe('creating a supplier profile', () => {
  it('creates a pending profile with the category of the role, the default commission and normalised contacts', async () => {
    const { token } = await createSignedIn(t.app, { role: 'SUPPLIER_FOOD' });
    const res = await call(t.app, 'POST', '/suppliers/profile', { token, body: profileBody() });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      id: expect.any(String),
      businessName: 'Boulangerie du Port',
      category: 'FOOD',
      contactEmail: 'contact@boulangerie.example',
      payoutPhone: '+221781234567',
      verificationStatus: 'PENDING',
      kycStatus: 'NOT_SUBMITTED',
      commissionRateBps: t.app.ctx.config.DEFAULT_COMMISSION_BPS,
      openingHours: { '1': ['07:00-13:00', '15:00-20:00'], '6': ['08:00-24:00'] },
      timezone: 'Africa/Dakar',
      logoUrl: null,
      rejectionReason: null,
      verifiedAt: null,
    });

    const own = await call(t.app, 'GET', '/suppliers/profile', { token });
    expect(own.status).toBe(200);
    expect(own.body.data).toEqual(res.body.data);

    const again = await call(t.app, 'POST', '/suppliers/profile', {
      token,
      body: profileBody({ businessName: 'Another one' }),
    });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('ALREADY_EXISTS');
  });

  it('gives a SUPPLIER_DEALS account the DEALS category and refuses a category of the other role', async () => {
    const deals = await createSignedIn(t.app, { role: 'SUPPLIER_DEALS' });
    const mismatch = await call(t.app, 'POST', '/suppliers/profile', {
      token: deals.token,
      body: profileBody({ category: 'FOOD' }),
    });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.error.details).toEqual([
      { field: 'body.category', message: 'must be DEALS for a SUPPLIER_DEALS account' },
    ]);

    const created = await call(t.app, 'POST', '/suppliers/profile', {
      token: deals.token,
      body: profileBody({ category: 'DEALS', timezone: undefined }),
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ category: 'DEALS', timezone: 'Africa/Dakar' });
  });

  it('refuses bad coordinates, phone numbers, emails and unknown fields, and writes nothing', async () => {
    const { token } = await createSignedIn(t.app, { role: 'SUPPLIER_FOOD' });
    const res = await call(t.app, 'POST', '/suppliers/profile', {
      token,
      body: profileBody({
        latitude: 91,
        longitude: -181,
        contactPhone: '0771234567',
        payoutPhone: '+22100',
        contactEmail: 'nope',
        isVerified: true,
      }),
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(fieldsOf(res)).toEqual(
      expect.arrayContaining([
        'body.latitude',
        'body.longitude',
        'body.contactPhone',
        'body.payoutPhone',
        'body.contactEmail',
        'body.isVerified',
      ]),
    );

    const missing = await call(t.app, 'POST', '/suppliers/profile', { token, body: { businessName: 'X' } });
    expect(missing.status).toBe(400);
    expect(fieldsOf(missing)).toEqual(
      expect.arrayContaining(['body.businessName', 'body.address', 'body.city', 'body.latitude', 'body.longitude']),
    );

    const own = await call(t.app, 'GET', '/suppliers/profile', { token });
    expect(own.status).toBe(404);
    expect(own.body.error.code).toBe('SUPPLIER_PROFILE_REQUIRED');
  });

  it('checks opening hours and the time zone', async () => {
    const { token } = await createSignedIn(t.app, { role: 'SUPPLIER_FOOD' });
    const badFormat = await call(t.app, 'POST', '/suppliers/profile', {
      token,
      body: profileBody({
        openingHours: { '1': ['8:00-12:00'], '2': ['09:00-25:00'], '7': ['09:00-10:00'], '3': 'all day' },
      }),
    });
    expect(badFormat.status).toBe(400);
    expect(fieldsOf(badFormat)).toEqual(
      expect.arrayContaining([
        'body.openingHours.1.0',
        'body.openingHours.2.0',
        'body.openingHours.7',
        'body.openingHours.3',
      ]),
    );

    const badRanges = await call(t.app, 'POST', '/suppliers/profile', {
      token,
      body: profileBody({
        openingHours: { '1': ['14:00-12:00'], '2': ['08:00-12:00', '11:00-15:00'] },
        timezone: 'Mars/Olympus_Mons',
      }),
    });
    expect(badRanges.status).toBe(400);
    expect(badRanges.body.error.details).toEqual([
      { field: 'body.openingHours.1.0', message: expect.stringContaining('must end after it starts') },
      { field: 'body.openingHours.2', message: 'ranges overlap (08:00-12:00 and 11:00-15:00)' },
      { field: 'body.timezone', message: expect.stringContaining('IANA time zone') },
    ]);
    expect((await call(t.app, 'GET', '/suppliers/profile', { token })).status).toBe(404);
  });

  it('is for suppliers only', async () => {
    const client = await createSignedIn(t.app, { role: 'CLIENT' });
    const admin = await createSignedIn(t.app, { role: 'ADMIN' });
    for (const [method, body] of [
      ['POST', profileBody()],
      ['GET', undefined],
      ['PUT', { city: 'Thiès' }],
      ['DELETE', undefined],
    ] as const) {
      expect((await call(t.app, method, '/suppliers/profile', { body })).status).toBe(401);
      const asClient = await call(t.app, method, '/suppliers/profile', { token: client.token, body });
      expect(asClient.status).toBe(403);
      expect(asClient.body.error.code).toBe('FORBIDDEN');
      expect((await call(t.app, method, '/suppliers/profile', { token: admin.token, body })).status).toBe(403);
    }
  });
});

describe('changing the profile', () => {
  it('changes only the given fields and clears contacts sent as null', async () => {
    const s = await createSupplier(t.app, { verification: 'VERIFIED' });
    const res = await call(t.app, 'PUT', '/suppliers/profile', {
      token: s.token,
      body: {
        city: 'Saint-Louis',
        contactPhone: null,
        openingHours: { '0': ['10:00-12:00'] },
        timezone: 'Africa/Abidjan',
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: s.profile.id,
      businessName: s.profile.businessName,
      city: 'Saint-Louis',
      contactPhone: null,
      openingHours: { '0': ['10:00-12:00'] },
      timezone: 'Africa/Abidjan',
      // An edit does not take away an existing verification.
      verificationStatus: 'VERIFIED',
    });
    expect((await call(t.app, 'GET', '/suppliers/profile', { token: s.token })).body.data.city).toBe('Saint-Louis');
  });

  it('sends a rejected profile back to review when the supplier edits it', async () => {
    const s = await createSupplier(t.app, { verification: 'REJECTED' });
    const res = await call(t.app, 'PUT', '/suppliers/profile', {
      token: s.token,
      body: { description: 'Now with the documents asked for' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ verificationStatus: 'PENDING', rejectionReason: null });
  });

  it('refuses an empty change, unknown fields, the wrong category, and a supplier without a profile', async () => {
    const s = await createSupplier(t.app);
    const empty = await call(t.app, 'PUT', '/suppliers/profile', { token: s.token, body: {} });
    expect(empty.status).toBe(400);
    const unknown = await call(t.app, 'PUT', '/suppliers/profile', {
      token: s.token,
      body: { commissionRateBps: 0, verificationStatus: 'VERIFIED' },
    });
    expect(unknown.status).toBe(400);
    expect(fieldsOf(unknown)).toEqual(expect.arrayContaining(['body.commissionRateBps', 'body.verificationStatus']));
    const wrongCategory = await call(t.app, 'PUT', '/suppliers/profile', {
      token: s.token,
      body: { category: 'DEALS' },
    });
    expect(wrongCategory.status).toBe(400);
    expect((await call(t.app, 'GET', '/suppliers/profile', { token: s.token })).body.data.commissionRateBps).toBe(
      s.profile.commissionRateBps,
    );

    const none = await createSignedIn(t.app, { role: 'SUPPLIER_DEALS' });
    const res = await call(t.app, 'PUT', '/suppliers/profile', { token: none.token, body: { city: 'Thiès' } });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('SUPPLIER_PROFILE_REQUIRED');
  });
});

describe('logo', () => {
  const image = (width: number, height: number, format: 'png' | 'jpeg') =>
    sharp({ create: { width, height, channels: 3, background: '#2a9d8f' } })
      .toFormat(format)
      .toBuffer();
  const form = (parts: [string, Buffer, string][]) => {
    const f = new FormData();
    for (const [field, data, name] of parts) f.append(field, new Blob([new Uint8Array(data)]), name);
    return f;
  };

  it('stores an uploaded logo as a public file at most 512 px wide, and replaces or removes it', async () => {
    const s = await createSupplier(t.app);
    const res = await call(t.app, 'POST', '/suppliers/profile/logo', {
      token: s.token,
      body: form([['logo', await image(1200, 600, 'png'), 'logo.png']]),
    });
    expect(res.status).toBe(200);
    const url: string = res.body.data.logoUrl;
    expect(url).toMatch(new RegExp(`^/api/v1/files/public/suppliers/${s.profile.id}/logo-[0-9a-f-]+\\.png$`));
    const file = await t.app.inject({ method: 'GET', url });
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toBe('image/png');
    expect(await sharp(file.rawPayload).metadata()).toMatchObject({ width: 512, height: 256 });
    expect((await call(t.app, 'GET', `/suppliers/${s.profile.id}`)).body.data.logoUrl).toBe(url);

    const replaced = await call(t.app, 'POST', '/suppliers/profile/logo', {
      token: s.token,
      body: form([['logo', await image(100, 100, 'jpeg'), 'x.jpg']]),
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body.data.logoUrl).toMatch(/\.jpg$/);
    // The old file goes by a job once the change is saved.
    await t.app.jobs.drain();
    expect((await t.app.inject({ method: 'GET', url })).statusCode).toBe(404);

    const removed = await call(t.app, 'DELETE', '/suppliers/profile/logo', { token: s.token });
    expect(removed.status).toBe(200);
    expect(removed.body.data.logoUrl).toBeNull();
    await t.app.jobs.drain();
    expect((await t.app.inject({ method: 'GET', url: replaced.body.data.logoUrl })).statusCode).toBe(404);
  });

  it('refuses files that are not images, a missing or misnamed file, two files and JSON', async () => {
    const s = await createSupplier(t.app);
    const text = await call(t.app, 'POST', '/suppliers/profile/logo', {
      token: s.token,
      body: form([['logo', Buffer.from('<svg></svg>'), 'logo.png']]),
    });
    expect(text.status).toBe(415);
    expect(text.body.error.code).toBe('UNSUPPORTED_IMAGE_FORMAT');

    const misnamed = await call(t.app, 'POST', '/suppliers/profile/logo', {
      token: s.token,
      body: form([['avatar', await image(10, 10, 'png'), 'a.png']]),
    });
    expect(misnamed.status).toBe(400);
    expect(misnamed.body.error.details).toEqual([{ field: 'body.avatar', message: 'is not an allowed property' }]);

    const empty = new FormData();
    empty.append('note', 'hello');
    const noFile = await call(t.app, 'POST', '/suppliers/profile/logo', { token: s.token, body: empty });
    expect(noFile.status).toBe(400);

    const png = await image(10, 10, 'png');
    const two = await call(t.app, 'POST', '/suppliers/profile/logo', {
      token: s.token,
      body: form([
        ['logo', png, 'a.png'],
        ['logo', png, 'b.png'],
      ]),
    });
    expect(two.status).toBe(422);

    const json = await call(t.app, 'POST', '/suppliers/profile/logo', {
      token: s.token,
      body: { logo: 'data:image/png;base64,AAAA' },
    });
    expect(json.status).toBe(415);
    expect((await call(t.app, 'GET', '/suppliers/profile', { token: s.token })).body.data.logoUrl).toBeNull();

    const client = await createSignedIn(t.app, { role: 'CLIENT' });
    expect(
      (
        await call(t.app, 'POST', '/suppliers/profile/logo', {
          token: client.token,
          body: form([['logo', png, 'a.png']]),
        })
      ).status,
    ).toBe(403);
  });
});

describe('deleting the profile', () => {
  it('hides the supplier everywhere and lets the account start a new profile', async () => {
    const s = await createSupplier(t.app, { verification: 'VERIFIED' });
    expect((await call(t.app, 'GET', `/suppliers/${s.profile.id}`)).status).toBe(200);

    const res = await call(t.app, 'DELETE', '/suppliers/profile', { token: s.token });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: s.profile.id, deletedAt: expect.any(String) });

    expect((await call(t.app, 'GET', `/suppliers/${s.profile.id}`)).status).toBe(404);
    expect((await call(t.app, 'GET', '/suppliers/profile', { token: s.token })).status).toBe(404);
    expect((await call(t.app, 'DELETE', '/suppliers/profile', { token: s.token })).status).toBe(404);
    const search = await call(t.app, 'GET', '/suppliers/search', {
      query: { q: s.profile.businessName, city: s.profile.city },
    });
    expect(search.body.data.map((x: { id: string }) => x.id)).not.toContain(s.profile.id);

    const fresh = await call(t.app, 'POST', '/suppliers/profile', { token: s.token, body: profileBody() });
    expect(fresh.status).toBe(201);
    expect(fresh.body.data.id).not.toBe(s.profile.id);
    expect(fresh.body.data.verificationStatus).toBe('PENDING');
  });

  it('is refused while work is in progress, and says what work', async () => {
    const s = await createSupplier(t.app);
    busy.add(s.profile.id);
    const res = await call(t.app, 'DELETE', '/suppliers/profile', { token: s.token });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({
      code: 'HAS_WORK_IN_PROGRESS',
      message: expect.stringContaining('2 orders in progress'),
    });
    expect((await call(t.app, 'GET', '/suppliers/profile', { token: s.token })).status).toBe(200);
    expect((await call(t.app, 'GET', `/suppliers/${s.profile.id}`)).status).toBe(200);

    busy.delete(s.profile.id);
    expect((await call(t.app, 'DELETE', '/suppliers/profile', { token: s.token })).status).toBe(200);
  });
});
