import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createStore, createSupplier } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { uuidv7 } from '../../shared/ids.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const ALL_DAY = Object.fromEntries(['0', '1', '2', '3', '4', '5', '6'].map((d) => [d, ['00:00-24:00']]));
const ids = (res: { body: any }) => res.body.data.map((s: { id: string }) => s.id);
const names = (res: { body: any }) => res.body.data.map((s: { name: string }) => s.name);

/** Today's weekday (0 = Sunday) in a time zone, from the runtime's own calendar. */
function weekdayIn(timezone: string, at: Date): string {
  const day = new Intl.DateTimeFormat('en-US', { timeZone: timezone, weekday: 'short' }).format(at);
  return String(['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'].indexOf(day));
}

describe('text search', () => {
  let sup: Awaited<ReturnType<typeof createSupplier>>;
  const made: Record<string, string> = {};
  beforeAll(async () => {
    sup = await createSupplier(t.app);
    const specs = [
      { name: 'Boulangerie Teranga', city: 'Thies', description: 'Pain de mie et baguettes' },
      { name: 'Boulangerie Ndar', city: 'Saint-Louis', description: 'Pain traditionnel' },
      { name: 'Patisserie Sokhna', city: 'Dakar', description: 'Gateaux et croissants du jour' },
      { name: 'Epicerie Baobab', city: 'Saint-Louis', description: 'Fruits et legumes' },
    ];
    const start = t.clock.now().getTime();
    for (const [i, s] of specs.entries())
      made[s.name] = (await createStore(t.app, sup, { ...s, createdAt: new Date(start + i * 1000) })).id;
  });
  const search = (query: Record<string, string | number | boolean>) =>
    call(t.app, 'GET', '/stores', { query: { supplierId: sup.profile.id, ...query } });

  it('finds stores by name despite typos, best match first', async () => {
    const typo = await search({ q: 'boulangrie' });
    expect(typo.status).toBe(200);
    expect(names(typo).sort()).toEqual(['Boulangerie Ndar', 'Boulangerie Teranga']);

    const two = await search({ q: 'bulangerie teranga' });
    expect(names(two)[0]).toBe('Boulangerie Teranga');

    const prefix = await search({ q: 'patis' });
    expect(names(prefix)).toEqual(['Patisserie Sokhna']);
  });

  it('matches whole words of the description and the city', async () => {
    expect(names(await search({ q: 'croissants' }))).toEqual(['Patisserie Sokhna']);
    expect(names(await search({ q: 'thies' }))).toEqual(['Boulangerie Teranga']);
    expect(names(await search({ q: 'Fruits Legumes' }))).toEqual(['Epicerie Baobab']);
  });

  it('returns nothing for unrelated words', async () => {
    const res = await search({ q: 'quincaillerie' });
    expect(res.body.data).toEqual([]);
    expect(res.body.meta).toEqual({
      page: 1,
      limit: 20,
      total: 0,
      totalPages: 0,
      hasMore: false,
      totalIsEstimate: false,
    });
  });

  it('filters by city (any case) and combines it with text', async () => {
    expect(names(await search({ city: 'saint-louis', sort: 'name' }))).toEqual(['Boulangerie Ndar', 'Epicerie Baobab']);
    expect(names(await search({ city: 'SAINT-LOUIS', q: 'boulangrie' }))).toEqual(['Boulangerie Ndar']);
  });

  it('sorts by name or newest and paginates with meta', async () => {
    expect(names(await search({ sort: 'name' }))).toEqual([
      'Boulangerie Ndar',
      'Boulangerie Teranga',
      'Epicerie Baobab',
      'Patisserie Sokhna',
    ]);
    expect(ids(await search({ sort: 'newest' }))).toEqual(Object.values(made).reverse());
    const page = await search({ sort: 'name', limit: 3, page: 2 });
    expect(names(page)).toEqual(['Patisserie Sokhna']);
    expect(page.body.meta).toEqual({
      page: 2,
      limit: 3,
      total: 4,
      totalPages: 2,
      hasMore: false,
      totalIsEstimate: false,
    });
  });

  it("only lists the given supplier's stores", async () => {
    const other = await createSupplier(t.app);
    const mine = await createStore(t.app, other, { name: 'Boulangerie Teranga' });
    const res = await call(t.app, 'GET', '/stores', { query: { supplierId: other.profile.id, q: 'teranga' } });
    expect(ids(res)).toEqual([mine.id]);
  });

  it('rejects unknown parameters and bad values', async () => {
    const res = await call(t.app, 'GET', '/stores', {
      query: { sort: 'price', limit: 101, openNow: 'maybe', color: 'red', supplierId: 'x' },
    });
    expect(res.status).toBe(400);
    const fields = res.body.error.details.map((d: { field: string }) => d.field);
    expect(fields).toEqual(
      expect.arrayContaining(['query.sort', 'query.limit', 'query.openNow', 'query.color', 'query.supplierId']),
    );
  });
});

describe('open now', () => {
  it("uses each store's own time zone, hours and closure, in the filter and in isOpenNow", async () => {
    const sup = await createSupplier(t.app);
    const now = t.clock.now();
    // UTC+14 and UTC-11 are always on different calendar days.
    const ahead = 'Pacific/Kiritimati';
    const behind = 'Pacific/Pago_Pago';
    const todayAhead = weekdayIn(ahead, now);
    const open = await createStore(t.app, sup, { name: 'Open all day', openingHours: ALL_DAY });
    const openAhead = await createStore(t.app, sup, {
      name: 'Open today ahead',
      timezone: ahead,
      openingHours: { [todayAhead]: ['00:00-24:00'] },
    });
    const closedBehind = await createStore(t.app, sup, {
      name: 'Closed today behind',
      timezone: behind,
      openingHours: { [todayAhead]: ['00:00-24:00'] },
    });
    const noHours = await createStore(t.app, sup, { name: 'No hours', openingHours: {} });
    const closed = await createStore(t.app, sup, {
      name: 'Temporarily closed',
      openingHours: ALL_DAY,
      closureStartsAt: new Date(now.getTime() - 3_600_000),
      closureEndsAt: new Date(now.getTime() + 3_600_000),
      closureReason: 'Holiday',
    });

    const yes = await call(t.app, 'GET', '/stores', {
      query: { supplierId: sup.profile.id, openNow: true, sort: 'name' },
    });
    expect(ids(yes)).toEqual([open.id, openAhead.id]);
    expect(yes.body.data.every((s: { isOpenNow: boolean }) => s.isOpenNow)).toBe(true);

    const no = await call(t.app, 'GET', '/stores', {
      query: { supplierId: sup.profile.id, openNow: false, sort: 'name' },
    });
    expect(ids(no)).toEqual([closedBehind.id, noHours.id, closed.id]);
    expect(no.body.data.some((s: { isOpenNow: boolean }) => s.isOpenNow)).toBe(false);
    expect(no.body.data[2].closure).toMatchObject({ reason: 'Holiday', inEffect: true });
  });
});

describe('nearby (small)', () => {
  // A region of its own, so stores of other tests never fall inside the radius.
  const base = { latitude: 40 + Math.random() * 10, longitude: 60 + Math.random() * 20 };
  const kmNorth = (km: number) => ({ latitude: base.latitude + km / 111.2, longitude: base.longitude });

  it('lists visible stores inside the radius, nearest first, with their distance', async () => {
    const sup = await createSupplier(t.app);
    const pending = await createSupplier(t.app, { verification: 'PENDING' });
    const far = await createStore(t.app, sup, { name: 'Eight', ...kmNorth(8) });
    const one = await createStore(t.app, sup, { name: 'One', ...kmNorth(1) });
    const three = await createStore(t.app, sup, { name: 'Three', ...kmNorth(3) });
    await createStore(t.app, sup, { name: 'Inactive', isActive: false, ...kmNorth(0.5) });
    await createStore(t.app, sup, { name: 'Deleted', deletedAt: t.clock.now(), ...kmNorth(0.6) });
    await createStore(t.app, pending, { name: 'Unverified', ...kmNorth(0.2) });

    const res = await call(t.app, 'GET', '/stores/nearby', { query: { ...base } });
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual([one.id, three.id]);
    expect(res.body.data[0].distanceKm).toBeCloseTo(1, 1);
    expect(res.body.data[1].distanceKm).toBeCloseTo(3, 1);
    expect(res.body.meta.total).toBe(2);

    const wide = await call(t.app, 'GET', '/stores/nearby', { query: { ...base, radiusKm: 10, limit: 2, page: 2 } });
    expect(ids(wide)).toEqual([far.id]);
    expect(wide.body.meta).toEqual({
      page: 2,
      limit: 2,
      total: 3,
      totalPages: 2,
      hasMore: false,
      totalIsEstimate: false,
    });
  });

  it('shows each store as its own page does (hours, time zone, closures), with its distance; openNow too', async () => {
    const sup = await createSupplier(t.app);
    const spot = { latitude: base.latitude + 0.7, longitude: base.longitude };
    const now = t.clock.now();
    const hour = 3_600_000;
    await createStore(t.app, sup, {
      name: 'Always',
      openingHours: ALL_DAY,
      ...spot,
      pickupInstructions: 'Back door "B"',
    });
    await createStore(t.app, sup, {
      name: 'Elsewhere',
      timezone: 'Pacific/Kiritimati',
      openingHours: { [weekdayIn('Pacific/Kiritimati', now)]: ['00:00-24:00'] },
      ...spot,
    });
    await createStore(t.app, sup, {
      name: 'No hours',
      openingHours: {},
      latitude: spot.latitude + 0.001,
      longitude: spot.longitude,
    });
    await createStore(t.app, sup, {
      name: 'Closed now',
      openingHours: ALL_DAY,
      closureStartsAt: new Date(now.getTime() - hour),
      closureEndsAt: new Date(now.getTime() + hour),
      closureReason: 'Holiday',
      ...spot,
    });
    await createStore(t.app, sup, {
      name: 'Closing later',
      openingHours: ALL_DAY,
      closureStartsAt: new Date(now.getTime() + hour),
      closureEndsAt: new Date(now.getTime() + 2 * hour),
      closureReason: 'Stock',
      ...spot,
    });
    await createStore(t.app, sup, {
      name: 'Closure over',
      openingHours: ALL_DAY,
      closureStartsAt: new Date(now.getTime() - 2 * hour),
      closureEndsAt: new Date(now.getTime() - hour),
      closureReason: 'Past',
      ...spot,
    });
    for (const openNow of [undefined, true, false]) {
      const res = await call(t.app, 'GET', '/stores/nearby', {
        query: { ...spot, radiusKm: 1, ...(openNow !== undefined && { openNow }) },
      });
      expect(res.body.data.length).toBe(openNow === undefined ? 6 : openNow ? 4 : 2);
      for (const item of res.body.data) {
        const page = await call(t.app, 'GET', `/stores/${item.id}`);
        expect(item).toEqual({ ...page.body.data, distanceKm: item.name === 'No hours' ? 0.111 : 0 });
        if (openNow !== undefined) expect(item.isOpenNow).toBe(openNow);
      }
    }
  });

  it('pages through stores at the same distance in id order, each store once', async () => {
    const sup = await createSupplier(t.app);
    const spot = { latitude: base.latitude - 0.5, longitude: base.longitude };
    // Ids are made in order but written shuffled, so the table's order says nothing about them.
    const made = Array.from({ length: 12 }, () => uuidv7());
    const shuffled = [...made].sort(() => Math.random() - 0.5);
    for (const id of shuffled) await createStore(t.app, sup, { id, ...spot });
    const seen: string[] = [];
    for (let page = 1; page <= 3; page++) {
      const res = await call(t.app, 'GET', '/stores/nearby', { query: { ...spot, radiusKm: 1, limit: 5, page } });
      // Past the rows read, the radius' rows are counted: every page knows the total exactly.
      expect(res.body.meta).toMatchObject({ total: 12, totalPages: 3, hasMore: page < 3, totalIsEstimate: false });
      seen.push(...ids(res));
    }
    expect(seen).toEqual([...made].sort());
  });

  it('rejects bad coordinates and a radius out of bounds', async () => {
    const cases: [Record<string, string | number>, string[]][] = [
      [{ latitude: 95, longitude: 10 }, ['query.latitude']],
      [{ latitude: 10, longitude: -181 }, ['query.longitude']],
      [{ longitude: 10 }, ['query.latitude']],
      [{ latitude: 'north', longitude: 10 }, ['query.latitude']],
      [{ latitude: 10, longitude: 10, radiusKm: 0.05 }, ['query.radiusKm']],
      [{ latitude: 10, longitude: 10, radiusKm: 51 }, ['query.radiusKm']],
      [{ latitude: 10, longitude: 10, near: 'me' }, ['query.near']],
    ];
    for (const [query, expected] of cases) {
      const res = await call(t.app, 'GET', '/stores/nearby', { query });
      expect(res.status, JSON.stringify(query)).toBe(400);
      expect(res.body.error.details.map((d: { field: string }) => d.field)).toEqual(expected);
    }
  });
});
