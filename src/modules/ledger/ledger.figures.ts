import { sql } from 'drizzle-orm';
import { rows, type Executor } from '../../db/client.js';

/*
 * The ledger's figures for the administrators' dashboard, fast whatever the number of orders:
 * income over a window (commission, advertising) reads ledger_lines_account_created_idx (account,
 * created_at, with the amount in the index) for that window only; what escrow holds now is the sum of
 * ledger_open_escrows, the escrow accounts whose balance is not zero (kept by a trigger).
 */

/** What an income account (platform_commission, platform_advertising) earned, net of reversals, in each window. */
export async function incomeIn<K extends string>(
  ex: Executor,
  account: string,
  currency: string,
  windows: Record<K, { from: Date; to: Date }>,
): Promise<Record<K, number>> {
  const keys = Object.keys(windows) as K[];
  const earliest = new Date(Math.min(...keys.map((k) => windows[k].from.getTime())));
  const latest = new Date(Math.max(...keys.map((k) => windows[k].to.getTime())));
  const sums = sql.join(
    keys.map(
      (k, i) =>
        sql`coalesce(sum(-amount) filter (where created_at >= ${windows[k].from} and created_at < ${windows[k].to}), 0)::text as ${sql.identifier(`w${i}`)}`,
    ),
    sql`, `,
  );
  const [r] = await rows<Record<string, string>>(
    ex,
    sql`select ${sums} from ledger_lines
        where account = ${account} and currency = ${currency} and created_at >= ${earliest} and created_at < ${latest}`,
  );
  return Object.fromEntries(keys.map((k, i) => [k, Number(r?.[`w${i}`] ?? 0)])) as Record<K, number>;
}

/** What every escrow account holds now, in one currency. */
export async function escrowHeld(ex: Executor, currency: string): Promise<number> {
  const [r] = await rows<{ held: string }>(
    ex,
    sql`select coalesce(sum(-balance), 0)::text as held from ledger_open_escrows where currency = ${currency}`,
  );
  return Number(r?.held ?? 0);
}
