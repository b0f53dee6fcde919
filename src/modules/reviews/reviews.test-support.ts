import { sql } from 'drizzle-orm';
import type { TestApp } from '../../../test/helpers/app.js';
import { call } from '../../../test/helpers/http.js';
import { rows } from '../../db/client.js';
import { paidOrder, shop } from '../escrow/escrow.test-support.js';
import { newClient } from '../orders/orders.test-support.js';

export type Shop = Awaited<ReturnType<typeof shop>>;
export type Client = Awaited<ReturnType<typeof newClient>>;

/** A client with a COMPLETED order of every product of the shop (one unit each). */
export async function buyer(t: TestApp, s: Shop): Promise<Client> {
  const { client } = await paidOrder(t, s, { lines: s.products.map((p) => ({ productId: p.id })), complete: true });
  return client;
}

export const review = (t: TestApp, token: string, body: Record<string, unknown>) =>
  call(t.app, 'POST', '/reviews', { token, body });

/** Writes a review that must succeed; answers its data. */
export async function reviewOk(t: TestApp, token: string, body: Record<string, unknown>) {
  const res = await review(t, token, body);
  if (res.status !== 201) throw new Error(`review not created: ${JSON.stringify(res.body)}`);
  return res.body.data as { id: string; rating: number };
}

/** What the visible reviews of a target add up to, counted from the rows. */
export async function recomputed(t: TestApp, targetId: string) {
  const [r] = await rows<{ n: number; total: number; s1: number; s2: number; s3: number; s4: number; s5: number }>(
    t.app.ctx.db,
    sql`select count(*)::int as n, coalesce(sum(rating), 0)::int as total,
          count(*) filter (where rating = 1)::int as s1, count(*) filter (where rating = 2)::int as s2, count(*) filter (where rating = 3)::int as s3,
          count(*) filter (where rating = 4)::int as s4, count(*) filter (where rating = 5)::int as s5
        from reviews where target_id = ${targetId} and not hidden`,
  );
  return {
    average: r!.n ? Math.round((r!.total / r!.n) * 100) / 100 : 0,
    count: r!.n,
    distribution: { 1: r!.s1, 2: r!.s2, 3: r!.s3, 4: r!.s4, 5: r!.s5 },
  };
}
