import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../db/client.js';
import { uuidv7 } from '../../shared/ids.js';
import { commissionOf } from '../../shared/money.js';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { assertMoneyInvariants, moneyInvariantViolations } from '../../../test/helpers/money-invariants.js';
import {
  associationPayable,
  escrow,
  platformCommission,
  providerClearing,
  refundsPending,
  supplierPayable,
} from './accounts.js';
import { LedgerError, type Posting } from './ledger.service.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
}, 60_000);
afterAll(() => t.close());

const ledger = () => t.app.services.ledger;
const db = () => t.app.ctx.db;
const post = (p: Posting) => db().transaction((tx) => ledger().post(tx, p));
const paymentReceived = (orderId: string, amount: number): Posting => ({
  kind: 'payment_received',
  reference: { type: 'order', id: orderId },
  idempotencyKey: `order:${orderId}:paid`,
  currency: 'XOF',
  lines: [
    { account: providerClearing, amount },
    { account: escrow(orderId), amount: -amount },
  ],
});

describe('postings', () => {
  it('records a payment, its release with commission and the payout, with balances from the lines', async () => {
    const [orderId, supplierId] = [uuidv7(), uuidv7()];
    await post(paymentReceived(orderId, 1500));
    expect(await ledger().balance(db(), escrow(orderId))).toBe(-1500);

    const commission = commissionOf(1500, 1250); // 187.5 -> 188
    const release = await post({
      kind: 'escrow_released',
      reference: { type: 'order', id: orderId },
      idempotencyKey: `order:${orderId}:release`,
      currency: 'XOF',
      memo: 'released after delivery',
      lines: [
        { account: escrow(orderId), amount: 1500 },
        { account: supplierPayable(supplierId), amount: -(1500 - commission) },
        { account: platformCommission, amount: -commission },
      ],
    });
    expect(release.created).toBe(true);
    expect(await ledger().balance(db(), escrow(orderId))).toBe(0);
    expect(await ledger().balance(db(), supplierPayable(supplierId))).toBe(-1312);

    const payoutId = uuidv7();
    await post({
      kind: 'payout_sent',
      reference: { type: 'payout', id: payoutId },
      idempotencyKey: `payout:${payoutId}:sent`,
      currency: 'XOF',
      lines: [
        { account: supplierPayable(supplierId), amount: 1312 },
        { account: providerClearing, amount: -1312 },
      ],
    });
    expect(await ledger().balance(db(), supplierPayable(supplierId))).toBe(0);

    const history = await ledger().transactionsFor(db(), { type: 'order', id: orderId });
    expect(history.map((h) => h.kind)).toEqual(['payment_received', 'escrow_released']);
    expect(history[1]).toMatchObject({ id: release.transactionId, memo: 'released after delivery', currency: 'XOF' });
    expect(history[1]!.lines).toEqual(
      expect.arrayContaining([
        { account: escrow(orderId), amount: 1500 },
        { account: platformCommission, amount: -188 },
      ]),
    );
    await assertMoneyInvariants(t.app);
  });

  it('records a refund through refunds_pending and a donation to an association', async () => {
    const [orderId, paymentId, associationId, donationId] = [uuidv7(), uuidv7(), uuidv7(), uuidv7()];
    await post(paymentReceived(orderId, 2000));
    await post({
      kind: 'escrow_refunded',
      reference: { type: 'order', id: orderId },
      idempotencyKey: `order:${orderId}:refund`,
      currency: 'XOF',
      lines: [
        { account: escrow(orderId), amount: 2000 },
        { account: refundsPending(paymentId), amount: -2000 },
      ],
    });
    await post({
      kind: 'refund_completed',
      reference: { type: 'payment', id: paymentId },
      idempotencyKey: `payment:${paymentId}:refunded`,
      currency: 'XOF',
      lines: [
        { account: refundsPending(paymentId), amount: 2000 },
        { account: providerClearing, amount: -2000 },
      ],
    });
    await post({
      kind: 'donation_received',
      reference: { type: 'donation', id: donationId },
      idempotencyKey: `donation:${donationId}:paid`,
      currency: 'XOF',
      lines: [
        { account: providerClearing, amount: 700 },
        { account: associationPayable(associationId), amount: -700 },
      ],
    });
    expect(await ledger().balance(db(), refundsPending(paymentId))).toBe(0);
    expect(await ledger().balances(db(), `association_payable:${associationId}`)).toEqual([
      { account: associationPayable(associationId), balance: -700 },
    ]);
    const payables = await ledger().balances(db(), 'association_payable:');
    expect(payables).toContainEqual({ account: associationPayable(associationId), balance: -700 });
    expect(payables.every((p) => p.account.startsWith('association_payable:'))).toBe(true);
    expect(await ledger().sumOfAllAccounts(db())).toBe(0);
    await assertMoneyInvariants(t.app);
  });
});

describe('idempotency of postings', () => {
  it('posts once per key and answers the first transaction again', async () => {
    const orderId = uuidv7();
    const first = await post(paymentReceived(orderId, 900));
    const again = await post(paymentReceived(orderId, 900));
    expect(again).toEqual({ transactionId: first.transactionId, created: false });
    expect(await ledger().transactionsFor(db(), { type: 'order', id: orderId })).toHaveLength(1);
    expect(await ledger().balance(db(), escrow(orderId))).toBe(-900);
  });

  it('refuses the same key for a different posting', async () => {
    const orderId = uuidv7();
    await post(paymentReceived(orderId, 900));
    const other = { ...paymentReceived(orderId, 901) };
    await expect(post(other)).rejects.toThrow(/already used for a different posting/);
  });

  it('posts once when 20 transactions race with one key', async () => {
    const orderId = uuidv7();
    const results = await Promise.all(Array.from({ length: 20 }, () => post(paymentReceived(orderId, 400))));
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(results.map((r) => r.transactionId)).size).toBe(1);
    expect(await ledger().balance(db(), escrow(orderId))).toBe(-400);
  });
});

describe('refused postings', () => {
  const base = () => paymentReceived(uuidv7(), 100);
  it.each([
    ['unbalanced', (p: Posting) => ({ ...p, lines: [p.lines[0]!, { ...p.lines[1]!, amount: -99 }] }), /sum to 1/],
    ['one line', (p: Posting) => ({ ...p, lines: [p.lines[0]!] }), /at least 2 lines/],
    [
      'a zero line',
      (p: Posting) => ({ ...p, lines: [...p.lines, { account: platformCommission, amount: 0 }] }),
      /amount is zero/,
    ],
    [
      'a fraction',
      (p: Posting) => ({
        ...p,
        lines: [
          { ...p.lines[0]!, amount: 100.5 },
          { ...p.lines[1]!, amount: -100.5 },
        ],
      }),
      /not a safe integer/,
    ],
    [
      'an unknown account',
      (p: Posting) => ({ ...p, lines: [p.lines[0]!, { account: 'cash', amount: -100 }] }),
      /unknown account "cash"/,
    ],
    ['a bad currency', (p: Posting) => ({ ...p, currency: 'xof' }), /ISO 4217/],
  ])('refuses %s in the application, writing nothing', async (_name, change, message) => {
    const p = change(base());
    await expect(post(p)).rejects.toThrow(LedgerError);
    await expect(post(p)).rejects.toThrow(message);
    expect(await ledger().transactionsFor(db(), p.reference)).toEqual([]);
  });
});

describe('rules kept by the database itself', () => {
  const commitRaw = (lines: [string, number][]) =>
    db().transaction(async (tx) => {
      const id = uuidv7();
      await tx.execute(sql`insert into ledger_transactions (id, kind, reference_type, reference_id, idempotency_key, currency, created_at)
                           values (${id}, 'raw', 'order', ${uuidv7()}, ${`raw:${id}`}, 'XOF', now())`);
      for (const [account, amount] of lines) {
        await tx.execute(sql`insert into ledger_lines (id, transaction_id, account, amount, currency, created_at)
                             values (${uuidv7()}, ${id}, ${account}, ${amount}, 'XOF', now())`);
      }
      return id;
    });
  const causeOf = (p: Promise<unknown>) =>
    p.then(
      () => 'committed',
      (e: Error & { cause?: Error }) => `${e.message} ${e.cause?.message ?? ''}`,
    );

  it('refuses at commit an unbalanced transaction, one of fewer than 2 lines and a zero line', async () => {
    const orderId = uuidv7();
    expect(
      await causeOf(
        commitRaw([
          [providerClearing, 100],
          [escrow(orderId), -99],
        ]),
      ),
    ).toMatch(/does not balance/);
    expect(await causeOf(commitRaw([[providerClearing, 100]]))).toMatch(/at least 2/);
    expect(await causeOf(commitRaw([]))).toMatch(/at least 2/);
    expect(
      await causeOf(
        commitRaw([
          [providerClearing, 0],
          [escrow(orderId), 0],
        ]),
      ),
    ).toMatch(/ledger_lines_amount_not_zero/);
    expect(await ledger().balance(db(), escrow(orderId))).toBe(0);
    // A balanced one goes through the same path.
    expect(
      await causeOf(
        commitRaw([
          [providerClearing, 100],
          [escrow(orderId), -100],
        ]),
      ),
    ).toBe('committed');
    await assertMoneyInvariants(t.app);
  });

  it('refuses UPDATE, DELETE and TRUNCATE on both tables', async () => {
    const orderId = uuidv7();
    const { transactionId } = await post(paymentReceived(orderId, 300));
    for (const statement of [
      sql`update ledger_lines set amount = amount * 2 where transaction_id = ${transactionId}`,
      sql`delete from ledger_lines where transaction_id = ${transactionId}`,
      sql`update ledger_transactions set memo = 'changed' where id = ${transactionId}`,
      sql`delete from ledger_transactions where id = ${transactionId}`,
      sql`truncate ledger_lines`,
    ]) {
      expect(await causeOf(db().transaction((tx) => tx.execute(statement)))).toMatch(/append-only/);
    }
    expect(await ledger().balance(db(), escrow(orderId))).toBe(-300);
  });

  it('names the offending rows when an invariant fails', async () => {
    const supplierId = uuidv7();
    // Balanced, so the database takes it, but a payout of money never owed: rolled back after looking.
    const seen = await db()
      .transaction(async (tx) => {
        await ledger().post(tx, {
          kind: 'payout_sent',
          reference: { type: 'payout', id: uuidv7() },
          idempotencyKey: `payout:${uuidv7()}`,
          currency: 'XOF',
          lines: [
            { account: supplierPayable(supplierId), amount: 50 },
            { account: platformCommission, amount: -50 },
          ],
        });
        const found = await moneyInvariantViolations(t.app, { ex: tx });
        throw Object.assign(new Error('roll back'), { found });
      })
      .catch((e: { found?: string[] }) => e.found ?? []);
    expect(seen).toEqual([expect.stringContaining(`account ${supplierPayable(supplierId)} has balance 50`)]);
    const n = await rows<{ n: number }>(
      db(),
      sql`select count(*)::int as n from ledger_lines where account = ${supplierPayable(supplierId)}`,
    );
    expect(n[0]!.n).toBe(0);
  });
});

describe('money invariant checks', () => {
  it('take further checks, each failure prefixed with the check it broke', async () => {
    const stockCheck = {
      name: 'stock + reserved + sold = initial',
      violations: async () => ['product P: 3 + 1 + 1 <> 6'],
    };
    expect(await moneyInvariantViolations(t.app, { checks: [stockCheck] })).toEqual([
      'stock + reserved + sold = initial: product P: 3 + 1 + 1 <> 6',
    ]);
  });
});
