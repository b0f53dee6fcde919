import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createSupplier } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { uuidv7 } from '../../shared/ids.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
  // The next Wednesday, 12:00:30 UTC: Wednesday noon in Dakar, Wednesday 21:00 in Tokyo,
  // already Thursday 02:00 on Kiritimati (UTC+14).
  const now = t.clock.now();
  const target = new Date(
    Date.UTC(
      now.getUTCFullYear(),
      now.getUTCMonth(),
      now.getUTCDate() + ((3 - now.getUTCDay() + 7) % 7 || 7),
      12,
      0,
      30,
    ),
  );
  t.clock.advance(target.getTime() - now.getTime());
});
afterAll(() => t.close());

describe('open now', () => {
  it("follows each supplier's opening hours in its own time zone", async () => {
    const city = `Testville ${uuidv7()}`;
    const make = async (businessName: string, timezone: string, openingHours: Record<string, string[]>) =>
      (await createSupplier(t.app, { businessName, city, timezone, openingHours })).profile.id;
    const dakar = await make('A Dakar noon', 'Africa/Dakar', { '3': ['08:00-13:00'] });
    const tokyo = await make('B Tokyo evening', 'Asia/Tokyo', { '3': ['08:00-13:00'] });
    const kiritimati = await make('C Kiritimati Thursday', 'Pacific/Kiritimati', {
      '3': ['08:00-24:00'],
      '4': ['00:00-03:00'],
    });
    const startsNow = await make('D Starts at noon', 'Africa/Dakar', { '3': ['12:00-12:30'] });
    const endedNow = await make('E Ended at noon', 'Africa/Dakar', { '3': ['10:00-12:00'], '4': ['10:00-14:00'] });
    const never = await make('F No hours', 'Africa/Dakar', {});

    const list = (openNow?: boolean) =>
      call(t.app, 'GET', '/suppliers/search', { query: { city, ...(openNow === undefined ? {} : { openNow }) } });
    const open = await list(true);
    expect(open.status).toBe(200);
    expect(open.body.data.map((s: { id: string }) => s.id)).toEqual([dakar, kiritimati, startsNow]);
    expect(open.body.data.every((s: { isOpenNow: boolean }) => s.isOpenNow)).toBe(true);

    const closed = await list(false);
    expect(closed.body.data.map((s: { id: string }) => s.id)).toEqual([tokyo, endedNow, never]);
    expect(closed.body.data.some((s: { isOpenNow: boolean }) => s.isOpenNow)).toBe(false);

    // The detail computes the same answer.
    expect((await call(t.app, 'GET', `/suppliers/${kiritimati}`)).body.data.isOpenNow).toBe(true);
    expect((await call(t.app, 'GET', `/suppliers/${tokyo}`)).body.data.isOpenNow).toBe(false);
    expect((await list()).body.meta.total).toBe(6);
  });
});
