import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { call } from '../../../test/helpers/http.js';
import { assertMoneyInvariants } from '../../../test/helpers/money-invariants.js';
import { admin, deliverWebhook, paidOrder, shop } from '../escrow/escrow.test-support.js';
import { newClient } from '../orders/orders.test-support.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const DAY = 86_400_000;

describe("the supplier's own money", () => {
  it('shows balance, payouts and a per-order statement (JSON and CSV) that agree with the ledger and the financial report', async () => {
    // A day of its own, far ahead, on which no other test moves money (the database may be shared).
    t.clock.advance((5000 + Math.floor(Math.random() * 40_000)) * DAY);
    const day = new Date(Math.floor(t.clock.now().getTime() / DAY) * DAY);
    const adm = await admin(t);
    const s = await shop(t, adm.token);
    const released = await paidOrder(t, s, { complete: true });
    const held = await paidOrder(t, s);
    const get = (path: string, query: Record<string, string | number> = {}) =>
      call(t.app, 'GET', `/suppliers/money/${path}`, { token: s.token, query });

    expect((await get('balance')).body.data).toEqual({
      currency: 'XOF',
      heldInEscrow: 1200,
      payable: 0,
      paidOut: 0,
      released: 0,
    });

    // Released by an administrator, then paid out to the supplier's wallet.
    const rel = await call(t.app, 'POST', `/admin/payments/escrow/${released.order.id}/release`, {
      token: adm.token,
      body: { reason: 'Client satisfait' },
    });
    expect(rel.status).toBe(200);
    await t.app.jobs.drain();
    const [payout] = await t.app.services.payouts.ofOrders(t.app.ctx.db, [released.order.id]);
    const net = payout!.amount;
    expect((await get('balance')).body.data).toEqual({
      currency: 'XOF',
      heldInEscrow: 600,
      payable: net,
      paidOut: 0,
      released: net,
    });
    // The send job's retries (a slow provider answer) are due within minutes.
    t.clock.advance(5 * 60_000);
    await t.app.jobs.drain();
    const atProvider = [...t.mobilemoney.payouts.values()].find((x) => x.client_reference === payout!.id)!;
    await deliverWebhook(
      t,
      t.mobilemoney.event('payout.completed', t.mobilemoney.settlePayout(atProvider.id, 'succeeded')),
    );
    const balance = (await get('balance')).body.data;
    expect(balance).toEqual({ currency: 'XOF', heldInEscrow: 600, payable: 0, paidOut: net, released: net });

    const payouts = await get('payouts');
    expect(payouts.body.meta).toEqual({ page: 1, limit: 20, total: 1, totalPages: 1 });
    expect(payouts.body.data[0]).toMatchObject({
      id: payout!.id,
      orderId: released.order.id,
      amount: net,
      state: 'SUCCEEDED',
      succeededAt: expect.any(String),
    });

    const range = { from: day.toISOString(), to: new Date(day.getTime() + 2 * DAY).toISOString() };
    const statement = await get('statement', range);
    expect(statement.body.meta.total).toBe(2);
    const [heldLine, releasedLine] = statement.body.data;
    expect(heldLine).toMatchObject({
      orderId: held.order.id,
      gross: 600,
      commission: null,
      net: null,
      escrowState: 'HELD',
      releaseDate: null,
      payout: null,
    });
    expect(releasedLine).toMatchObject({
      orderId: released.order.id,
      gross: 600,
      commission: 600 - net,
      net,
      escrowState: 'RELEASED',
      releaseDate: expect.any(String),
      payout: { id: payout!.id, state: 'SUCCEEDED' },
    });
    // Paged on the server.
    const second = await get('statement', { ...range, limit: 1, page: 2 });
    expect(second.body.data.map((l: { orderId: string }) => l.orderId)).toEqual([released.order.id]);
    expect(second.body.meta).toEqual({ page: 2, limit: 1, total: 2, totalPages: 2 });
    expect((await get('statement', { ...range, page: 5 })).body).toMatchObject({ data: [], meta: { total: 2 } });

    // The same flows in the administrators' financial report of that day (what escrow holds there is the
    // whole platform's, of every day before: other tests' orders too).
    const report = await call(t.app, 'GET', '/admin/reports/financial', { token: adm.token, query: range });
    expect(report.body.data.totals).toMatchObject({
      gmv: heldLine.gross + releasedLine.gross,
      commission: releasedLine.commission,
      payouts: balance.paidOut,
    });

    const file = await get('statement', { ...range, format: 'csv' });
    expect(file.status).toBe(200);
    expect(file.headers['content-type']).toMatch(/^text\/csv/);
    expect(file.headers['content-disposition']).toMatch(
      /^attachment; filename="statement-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    const rows = String(file.body).trimEnd().split('\r\n');
    expect(rows[0]).toBe(
      'orderId,paidAt,currency,gross,commission,net,escrowState,releaseDate,refundedAt,payoutId,payoutState,payoutSucceededAt',
    );
    expect(rows.slice(1).map((r: string) => r.split(',').slice(0, 7).join(','))).toEqual([
      `${held.order.id},${heldLine.paidAt},XOF,600,,,HELD`,
      `${released.order.id},${releasedLine.paidAt},XOF,600,${600 - net},${net},RELEASED`,
    ]);
    await assertMoneyInvariants(t.app);
  });

  it('is for suppliers only, and says which query field is wrong', async () => {
    const client = await newClient(t);
    expect((await call(t.app, 'GET', '/suppliers/money/balance', { token: client.token })).status).toBe(403);
    expect((await call(t.app, 'GET', '/suppliers/money/statement')).status).toBe(401);
    const s = await shop(t, (await admin(t)).token);
    const bad = await call(t.app, 'GET', '/suppliers/money/statement', {
      token: s.token,
      query: { from: '2026-02-01T00:00:00Z', to: '2026-01-01T00:00:00Z' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].field).toBe('query.from');
    expect(
      (await call(t.app, 'GET', '/suppliers/money/payouts', { token: s.token, query: { limit: 101 } })).body.error
        .details[0].field,
    ).toBe('query.limit');
  });
});
