// Seeds the benchmark's marketplace: 1,000 verified suppliers owning 10,000 stores spread over
// Senegal (about 200,000 km2), with a denser cluster around Dakar as in real life, 100,000
// public products (ten a store) named and described with French and English food words, and
// 20,000 public deals (two a store).
import { sql } from 'drizzle-orm';
import { loadConfig } from '../src/config.js';
import { createDatabase, type Db } from '../src/db/client.js';
import { deals } from '../src/db/schema/deals.js';
import { productActivityDaily, products } from '../src/db/schema/products.js';
import { recomputePopularity } from '../src/modules/products/products.repository.js';
import { stores } from '../src/db/schema/stores.js';
import { buildSearchDocument } from '../src/modules/products/product-search-document.js';
import type { DietaryTag, ProductCategory } from '../src/modules/products/product-catalog.js';
import { supplierProfiles } from '../src/db/schema/suppliers.js';
import { users } from '../src/db/schema/users.js';
import { uuidv7 } from '../src/shared/ids.js';
import { dashboardSelected, seedDashboardOrders } from './dashboard-setup.js';

const KINDS = [
  'Boulangerie',
  'Patisserie',
  'Epicerie',
  'Restaurant',
  'Supermarche',
  'Traiteur',
  'Fromagerie',
  'Primeur',
  'Bakery',
  'Deli',
  'Grocery',
  'Market',
];
const NAMES = [
  'Teranga',
  'Baobab',
  'Soleil',
  'Almadies',
  'Medina',
  'Plateau',
  'Sahel',
  'Ocean',
  'Keur',
  'Jolof',
  'Ngor',
  'Yoff',
  'Fann',
  'Mermoz',
  'Ouakam',
  'Liberte',
  'Sacre-Coeur',
  'Point E',
  'Corniche',
  'Hann',
];
const CITIES = ['Dakar', 'Thies', 'Saint-Louis', 'Kaolack', 'Ziguinchor', 'Touba', 'Mbour', 'Rufisque'];
/** Words of the descriptions, French and English, as shops write them. */
export const FOOD_WORDS = [
  'pain',
  'baguette',
  'croissant',
  'brioche',
  'gateau',
  'tarte',
  'fromage',
  'yaourt',
  'lait',
  'beurre',
  'oeufs',
  'poulet',
  'poisson',
  'thiof',
  'riz',
  'mil',
  'couscous',
  'legumes',
  'fruits',
  'mangue',
  'banane',
  'orange',
  'tomate',
  'oignon',
  'salade',
  'sandwich',
  'jus',
  'bissap',
  'gingembre',
  'thieboudienne',
  'yassa',
  'mafe',
  'fataya',
  'beignets',
  'pastels',
  'bread',
  'cake',
  'pastry',
  'cheese',
  'milk',
  'chicken',
  'fish',
  'rice',
  'vegetables',
  'fruit',
  'juice',
  'salad',
  'frais',
  'fresh',
  'bio',
  'organic',
  'maison',
  'homemade',
  'invendus',
  'surplus',
  'panier',
  'basket',
  'soir',
  'evening',
];
export const pickWords = (i: number, n: number) =>
  Array.from({ length: n }, (_, k) => FOOD_WORDS[(i * 7 + k * 13 + Math.floor(i / 11)) % FOOD_WORDS.length]!);
const everyDay = Object.fromEntries(['0', '1', '2', '3', '4', '5', '6'].map((d) => [d, ['07:00-22:00']]));

export async function seedMarketplace(
  db: Db,
  now: Date,
  suppliersCount = 1000,
  storesCount = 10_000,
  productsPerStore = 10,
  dealsPerStore = 2,
): Promise<void> {
  const pick = <T>(list: T[], i: number) => list[i % list.length]!;
  const supplierIds: string[] = [];
  for (let start = 0; start < suppliersCount; start += 500) {
    const batch = Array.from({ length: Math.min(500, suppliersCount - start) }, (_, k) => start + k);
    const userRows = batch.map((i) => ({
      id: uuidv7(),
      phoneNumber: `+22170${String(i).padStart(7, '0')}`,
      role: 'SUPPLIER_FOOD' as const,
      firstName: 'Seed',
      lastName: `Supplier ${i}`,
      verifiedAt: now,
      createdAt: now,
      updatedAt: now,
    }));
    await db.insert(users).values(userRows);
    const profiles = batch.map((i, k) => {
      const id = uuidv7();
      supplierIds.push(id);
      return {
        id,
        userId: userRows[k]!.id,
        businessName: `${pick(KINDS, i)} ${pick(NAMES, Math.floor(i / KINDS.length))} ${i}`,
        description: `Invendus du jour a prix reduit: ${pickWords(i, 6).join(', ')}`,
        category: 'FOOD' as const,
        address: `${i} Avenue Bourguiba`,
        city: pick(CITIES, i),
        latitude: 14.6 + Math.random() * 0.2,
        longitude: -17.5 + Math.random() * 0.2,
        openingHours: everyDay,
        verificationStatus: 'VERIFIED' as const,
        verifiedAt: now,
        kycStatus: 'APPROVED' as const,
        commissionRateBps: 1000,
        createdAt: now,
        updatedAt: now,
      };
    });
    await db.insert(supplierProfiles).values(profiles);
  }
  for (let start = 0; start < storesCount; start += 1000) {
    const rows = Array.from({ length: Math.min(1000, storesCount - start) }, (_, k) => {
      const i = start + k;
      // A quarter of the stores around Dakar, the rest anywhere in the country.
      const dakar = i % 4 === 0;
      return {
        id: uuidv7(),
        supplierId: supplierIds[i % supplierIds.length]!,
        name: `${pick(KINDS, i)} ${pick(NAMES, i + 1)} ${i}`,
        description: `Paniers anti-gaspi chaque soir: ${pickWords(i + 5, 5).join(', ')}`,
        address: `${i} Route Nationale`,
        city: pick(CITIES, i),
        latitude: dakar ? 14.65 + Math.random() * 0.15 : 12.5 + Math.random() * 4,
        longitude: dakar ? -17.5 + Math.random() * 0.2 : -17 + Math.random() * 5,
        openingHours: everyDay,
        createdAt: now,
        updatedAt: now,
      };
    });
    await db.insert(stores).values(rows);
    await seedProducts(db, now, rows, productsPerStore);
    await seedDeals(db, now, rows, dealsPerStore);
  }
  // Popularity as the trending job computes it, from a week of activity of one product in four:
  // scores written by hand without activity were all zeroed by the job's first run, 100,000 row
  // updates that could fall in the middle of a measurement.
  await db.execute(sql`insert into ${productActivityDaily} (product_id, day, views, favourites, sales)
    select id, (${now.toISOString()}::timestamptz at time zone 'UTC')::date - (abs(hashtext(id::text)) % 7), 1 + abs(hashtext(id::text)) % 40, abs(hashtext(id::text)) % 5, abs(hashtext(id::text)) % 3
    from ${products} where abs(hashtext(id::text)) % 4 = 0`);
  await recomputePopularity(db, now);
  // What autovacuum does after a bulk load, done at once: it empties the GIN indexes' pending lists
  // (which every word search otherwise reads in full) and leaves no dead rows; the benchmark's server
  // may run with autovacuum off, where a table would keep that state for the whole run.
  await db.execute(sql`vacuum analyze`);
}

const PRODUCT_KINDS: [ProductCategory, string[]][] = [
  ['BAKERY', ['Pain', 'Baguette', 'Croissants', 'Brioche', 'Fataya', 'Bread loaf', 'Pastries']],
  ['PREPARED_MEALS', ['Thieboudienne', 'Yassa poulet', 'Mafe', 'Salade', 'Sandwich', 'Chicken rice', 'Fish stew']],
  ['FRUITS_VEGETABLES', ['Mangues', 'Bananes', 'Oranges', 'Tomates', 'Legumes', 'Fruit basket', 'Vegetables']],
  ['DAIRY', ['Yaourt', 'Fromage', 'Lait caille', 'Beurre', 'Cheese', 'Milk']],
  ['DRINKS', ['Jus de bissap', 'Jus de gingembre', 'Orange juice']],
];
const TAGS: DietaryTag[][] = [[], ['VEGETARIAN'], ['HALAL'], ['VEGAN', 'ORGANIC'], []];

/** `perStore` public products for each store, expiring over the next three days. */
async function seedProducts(
  db: Db,
  now: Date,
  storeRows: { id: string; supplierId: string; latitude: number; longitude: number }[],
  perStore: number,
) {
  if (!perStore) return;
  const rows = storeRows.flatMap((st, k) =>
    Array.from({ length: perStore }, (_, j) => {
      const i = k * perStore + j;
      const [category, names] = PRODUCT_KINDS[i % PRODUCT_KINDS.length]!;
      const name = `${names[Math.floor(i / PRODUCT_KINDS.length) % names.length]} ${pickWords(i, 1)[0]}`;
      const description = `Invendus du jour, ${pickWords(i + 3, 4).join(' ')}`;
      const dietaryTags = TAGS[i % TAGS.length]!;
      const originalPrice = 500 + (i % 40) * 100;
      return {
        id: uuidv7(),
        supplierId: st.supplierId,
        storeId: st.id,
        name,
        description,
        category,
        originalPrice,
        discountedPrice: Math.floor(originalPrice * (0.3 + (i % 5) / 10)),
        quantity: 1 + (i % 12),
        unitWeightGrams: 500,
        expiresAt: new Date(now.getTime() + (1 + (i % 72)) * 3_600_000 + (i % 3600) * 1000),
        pickupStart: '18:00',
        pickupEnd: '21:00',
        dietaryTags,
        allergens: [],
        status: 'ACTIVE' as const,
        location: sql`ll_to_earth(${st.latitude}::float8, ${st.longitude}::float8)` as unknown as string,
        searchDocument: buildSearchDocument({ name, description, category, dietaryTags }),
        publishedAt: now,
        createdAt: now,
        updatedAt: now,
      };
    }),
  );
  for (let start = 0; start < rows.length; start += 2000)
    await db.insert(products).values(rows.slice(start, start + 2000));
}

const DEAL_KINDS = ['SURPRISE_BAG', 'FIXED_PRICE', 'PERCENTAGE_OFF'] as const;

/** `perStore` public deals for each store, valid from one to ten days (their position and `listed` come from the store by trigger). */
async function seedDeals(db: Db, now: Date, storeRows: { id: string; supplierId: string }[], perStore: number) {
  if (!perStore) return;
  const rows = storeRows.flatMap((st, k) =>
    Array.from({ length: perStore }, (_, j) => {
      const i = k * perStore + j;
      const kind = DEAL_KINDS[i % DEAL_KINDS.length]!;
      const originalValue = 2000 + (i % 30) * 200;
      const discountPercent = 40 + (i % 5) * 10;
      return {
        id: uuidv7(),
        supplierId: st.supplierId,
        storeId: st.id,
        title: `Panier ${pickWords(i, 2).join(' ')}`,
        description: `Invendus du soir: ${pickWords(i + 7, 4).join(', ')}`,
        kind,
        category: PRODUCT_KINDS[i % PRODUCT_KINDS.length]![0],
        price: Math.round((originalValue * (100 - discountPercent)) / 100),
        originalValue,
        discountPercent,
        totalPlaces: 20 + (i % 30),
        placesPerClient: 2,
        validFrom: now,
        validUntil: new Date(now.getTime() + (1 + (i % 10)) * 86_400_000),
        pickupStart: '18:00',
        pickupEnd: '21:00',
        status: 'ACTIVE' as const,
        earth: '(0,0,0)',
        createdAt: now,
        updatedAt: now,
      };
    }),
  );
  for (let start = 0; start < rows.length; start += 2000)
    await db.insert(deals).values(rows.slice(start, start + 2000));
}

// Run as a program (by the bench runner, before the server starts, so the seeding's memory is
// not counted as the server's): migrate and seed the database the environment names.
if (process.argv[1]?.endsWith('seed.js')) {
  const database = await createDatabase(
    loadConfig({ ...process.env, DATA_DIR: process.env.BENCH_DATA_DIR, LOG_LEVEL: 'silent' }),
  );
  await database.migrate();
  await seedMarketplace(database.db, new Date());
  if (dashboardSelected()) {
    const started = Date.now();
    await seedDashboardOrders(database.db, new Date());
    process.stdout.write(
      `seeded 1,000,000 orders and their ledger in ${((Date.now() - started) / 1000).toFixed(0)} s\n`,
    );
  }
  await database.close();
}
