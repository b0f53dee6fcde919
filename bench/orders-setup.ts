// The data of the order scenarios, made by the benchmark server before it listens: one seeded
// product turned into one that never runs out (ten million units, orderable all day for a month),
// a bare table for the reference route's rows, and a client with 200 orders for the list.
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { App } from '../src/http/types.js';
import { rows } from '../src/db/client.js';
import { signWebhook } from '../src/providers/payments/signature.js';
import { sessionToWire } from '../src/providers/payments/wire.js';
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
  await db.execute(
    sql`create table if not exists bench_reservations (id uuid primary key, product_id uuid not null, quantity int not null, created_at timestamptz not null)`,
  );

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

/**
 * Signed `checkout.session.completed` deliveries, one per waiting payment of the client's orders
 * (those the POST /orders scenarios made), each a distinct event as the provider would send when
 * the payer pays: for the webhook scenario, made just before it (the signature is good for 300 s).
 * At most `limit`: the route takes 3000 a minute from one address.
 */
export async function webhookDeliveries(
  app: App,
  clientId: string,
  limit = 2500,
): Promise<{ body: string; signature: string }[]> {
  const waiting = await rows<{
    id: string;
    session: string;
    amount: number;
    currency: string;
    launch_url: string;
    created_at: Date;
    expires_at: Date;
  }>(
    app.ctx.db,
    sql`select p.id, p.provider_session_id as session, p.amount::int as amount, p.currency, p.launch_url, p.created_at, p.expires_at
        from payments p join orders o on o.id = p.order_id
        where o.client_id = ${clientId} and p.status = 'PENDING' and p.provider_session_id is not null limit ${limit}`,
  );
  const secret = app.ctx.payments.webhookSecrets[0]!;
  const now = new Date();
  return waiting.map((p) => {
    const session = sessionToWire(
      {
        id: p.session,
        amount: p.amount,
        currency: p.currency,
        clientReference: p.id,
        checkoutStatus: 'complete',
        paymentStatus: 'succeeded',
        launchUrl: p.launch_url,
        transactionId: `TBENCH${p.id.slice(-8).toUpperCase()}`,
        createdAt: new Date(p.created_at),
        expiresAt: new Date(p.expires_at),
        completedAt: now,
        lastPaymentError: null,
      },
      { successUrl: `${app.ctx.config.PUBLIC_BASE_URL}/success`, errorUrl: `${app.ctx.config.PUBLIC_BASE_URL}/error` },
    );
    const body = JSON.stringify({
      id: `EV_${randomUUID().replace(/-/g, '')}`,
      type: 'checkout.session.completed',
      data: session,
    });
    return { body, signature: signWebhook(secret, body, now.getTime() / 1000) };
  });
}
