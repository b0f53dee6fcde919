// The data of the order scenarios, made by the benchmark server before it listens: one seeded
// product turned into one that never runs out (ten million units, orderable all day for a month),
// a bare table for the reference route's rows, and a client with 200 orders for the list.
import { sql } from 'drizzle-orm';
import type { App } from '../src/http/types.js';
import { rows } from '../src/db/client.js';
import { hashPassword } from '../src/shared/passwords.js';

export const ORDER_STOCK = 10_000_000;
export const CLIENT_ORDERS = 200;

export interface OrderBench {
  productId: string;
  /** A client who already has CLIENT_ORDERS orders. */
  listToken: string;
}

export async function prepareOrders(app: App): Promise<OrderBench> {
  const { db } = app.ctx;
  const [product] = await rows<{ id: string }>(
    db,
    sql`update products set quantity = ${ORDER_STOCK}, expires_at = now() + interval '30 days', pickup_start = '00:00', pickup_end = '23:59'
        where id = (select id from products where status = 'ACTIVE' order by id limit 1) returning id`,
  );
  if (!product) throw new Error('no seeded product to order');
  // What the reference route inserts beside its guarded UPDATE: a row as narrow as an order line.
  await db.execute(sql`create table if not exists bench_reservations (id uuid primary key, product_id uuid not null, quantity int not null, created_at timestamptz not null)`);

  const user = await app.services.users.create(db, {
    phoneNumber: `+4916${String(Date.now()).slice(-9)}`,
    passwordHash: await hashPassword('Bench-Password-2'),
    role: 'CLIENT',
    firstName: 'Bench',
    lastName: 'Orders',
    verified: true,
  });
  const { accessToken } = await app.services.auth.signIn(user, {});
  // Through the real route, as the client placed them: items, payment, history, jobs and all.
  for (let i = 0; i < CLIENT_ORDERS; i++) {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/orders',
      headers: { authorization: `Bearer ${accessToken}` },
      payload: { items: [{ productId: product.id, quantity: 1 }], paymentMethod: 'wave' },
    });
    if (res.statusCode !== 201) throw new Error(`bench order not created: ${res.body}`);
  }
  return { productId: product.id, listToken: accessToken };
}
