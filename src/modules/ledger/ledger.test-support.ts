import { sql } from 'drizzle-orm';
import { MONEY_INVARIANTS, type MoneyInvariant } from '../../../test/helpers/money-invariants.js';
import { rows } from '../../db/client.js';

/**
 * ledger_open_escrows (kept by a trigger) holds exactly the escrow accounts whose lines do not sum
 * to zero, each with that sum: the dashboard's "escrow held" reads it instead of every line.
 */
export const openEscrowsFollowLines: MoneyInvariant = {
  name: 'ledger_open_escrows lists every escrow account with a non-zero balance, with that balance',
  async violations(ex) {
    const bad = await rows<{ account: string; lines: string | null; kept: string | null }>(
      ex,
      sql`with sums as (select account, sum(amount) as balance from ledger_lines where account like 'escrow:%' or account like 'booking_escrow:%' group by account having sum(amount) <> 0)
          select coalesce(s.account, o.account) as account, s.balance::text as lines, o.balance::text as kept
          from sums s full join ledger_open_escrows o on o.account = s.account
          where s.balance is distinct from o.balance`,
    );
    return bad.map(
      (r) => `${r.account}: lines sum to ${r.lines ?? 0}, ledger_open_escrows says ${r.kept ?? '(no row)'}`,
    );
  },
};
if (!MONEY_INVARIANTS.includes(openEscrowsFollowLines)) MONEY_INVARIANTS.push(openEscrowsFollowLines);
