// The data of the moderation scenarios, made by the benchmark server before it listens: 10,000
// products waiting for review among the seeded catalogue, spread over its stores and submitted a
// minute apart over the last week, written in one statement as the seed writes the catalogue.
import { sql } from 'drizzle-orm';
import type { App } from '../src/http/types.js';

export const PENDING_PRODUCTS = 10_000;
export const MODERATION_PAGE_SIZE = 20;

export async function prepareModeration(app: App, count = PENDING_PRODUCTS): Promise<{ moderationLastPage: number }> {
  const now = new Date().toISOString();
  await app.ctx.db.execute(sql`insert into products (id, supplier_id, store_id, name, description, category, original_price, discounted_price,
      quantity, unit_weight_grams, expires_at, pickup_start, pickup_end, status, location, search_document, created_at, updated_at)
    select gen_random_uuid(), s.supplier_id, s.id, 'Panier a valider ' || g, 'Invendus du jour, en attente de validation', 'BAKERY', 2000, 1000,
      5, 500, ${now}::timestamptz + interval '3 days', '18:00', '21:00', 'PENDING_REVIEW', ll_to_earth(s.latitude, s.longitude),
      'panier a valider ' || g, ${now}::timestamptz - g * interval '1 minute', ${now}::timestamptz - g * interval '1 minute'
    from generate_series(1, ${count}) g
    join (select id, supplier_id, latitude, longitude, row_number() over (order by id) - 1 as n, count(*) over () as total from stores) s
      on s.n = g % s.total`);
  // As autovacuum would have by the time administrators page the queue: statistics and the visibility map.
  await app.ctx.db.execute(sql`vacuum analyze products`);
  return { moderationLastPage: Math.ceil(count / MODERATION_PAGE_SIZE) };
}
