import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from '../src/shared/ids.js';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { createStore, createSupplier } from './helpers/factories.js';
import { call } from './helpers/http.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

// Accents and case do not count; the same order on PostgreSQL and on the embedded database.
const NAMES = [
  'Zèbre',
  'Éclair',
  'eau',
  'Ananas',
  'école',
  'Épicerie',
  'zoo',
  'Œuf frais',
  'oeil',
  'Ökonomie',
  'Çà et là',
  'cabane',
];
// A space sorts before any letter, as in a dictionary: 'Çà et là' before 'cabane'.
const SORTED = [
  'Ananas',
  'Çà et là',
  'cabane',
  'eau',
  'Éclair',
  'école',
  'Épicerie',
  'oeil',
  'Œuf frais',
  'Ökonomie',
  'Zèbre',
  'zoo',
];

const names = (res: { body: { data: { name?: string; businessName?: string }[] } }) =>
  res.body.data.map((x) => x.name ?? x.businessName);

describe('sorting by name', () => {
  it('orders stores ignoring accents and case, with equal names by id, page after page', async () => {
    const sup = await createSupplier(t.app);
    for (const name of [...NAMES].reverse()) await createStore(t.app, sup, { name });
    const list = (query: Record<string, string | number> = {}) =>
      call(t.app, 'GET', '/stores', { query: { supplierId: sup.profile.id, sort: 'name', limit: 100, ...query } });
    expect(names(await list())).toEqual(SORTED);

    const pages = [];
    for (let page = 1; page <= 3; page++) pages.push(...names(await list({ limit: 5, page })));
    expect(pages).toEqual(SORTED);

    // Names that fold to the same key keep a stable order: by id.
    const twins = [await createStore(t.app, sup, { name: 'ECOLE' }), await createStore(t.app, sup, { name: 'Ecole' })];
    t.clock.advance(60_000); // public listings are cached for the current minute
    const all = (await list()).body.data as { id: string; name: string }[];
    const same = all.filter((s) => ['école', 'ECOLE', 'Ecole'].includes(s.name));
    const ecole = all.find((s) => s.name === 'école')!;
    expect(same.map((s) => s.id)).toEqual([ecole.id, ...twins.map((s) => s.id)].sort());
  });

  it('orders suppliers the same way, by default and with sort=name', async () => {
    const city = `Ordreville ${uuidv7()}`;
    for (const businessName of [...NAMES].reverse()) await createSupplier(t.app, { businessName, city });
    expect(names(await call(t.app, 'GET', '/suppliers/search', { query: { city, limit: 100 } }))).toEqual(SORTED);
    expect(names(await call(t.app, 'GET', '/suppliers/search', { query: { city, sort: 'name', limit: 100 } }))).toEqual(
      SORTED,
    );
    const second = await call(t.app, 'GET', '/suppliers/search', { query: { city, sort: 'name', limit: 5, page: 2 } });
    expect(names(second)).toEqual(SORTED.slice(5, 10));
  });
});
