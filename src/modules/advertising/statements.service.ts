import type { AppContext } from '../../context.js';
import type { AuthUser } from '../../http/access.js';
import { validationError } from '../../shared/errors.js';
import { advertiserBalance, type LedgerApi } from '../ledger/index.js';
import { AD_CURRENCY } from './ad-spend.js';
import * as repo from './advertising.repository.js';
import type { AdBilling } from './billing.service.js';
import type { StatementView } from './billing.schemas.js';
import { renderStatement } from './statement.pdf.js';

/** The month after `month` (YYYY-MM), as its first instant. */
const monthAfter = (from: Date) => new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth() + 1, 1));

/**
 * An advertiser's monthly statement, made on demand from the ledger (balances, top-ups, spend per
 * campaign) and the campaigns' daily figures (impressions, clicks). Months are those of the
 * platform's time zone (Africa/Dakar, UTC all year); the current month is the statement so far.
 */
export function createStatements(ctx: AppContext, deps: { ledger: LedgerApi; billing: AdBilling }) {
  async function statement(user: AuthUser, month: string, advertiserId?: string): Promise<StatementView> {
    const a = await deps.billing.advertiserOf(user, advertiserId);
    const from = new Date(`${month}-01T00:00:00.000Z`);
    const end = monthAfter(from);
    const now = ctx.clock.now();
    if (from > now) throw validationError('params.month', 'is still to come');
    const to = end < now ? end : now;
    const account = advertiserBalance(a.id);
    const [opening, moves, figures] = await Promise.all([
      deps.ledger.balance(ctx.db, account, from),
      deps.ledger.movements(ctx.db, account, { from, to }),
      repo.monthFigures(ctx.db, a.id, month),
    ]);
    const topUps = moves
      .filter((m) => m.kind === 'payment_received')
      .map((m) => ({ topUpId: m.reference.id, at: m.firstAt.toISOString(), amount: -m.amount }));
    const spentBy = new Map<string, number>();
    for (const m of moves.filter((x) => x.kind === 'ad_spend'))
      spentBy.set(m.reference.id, (spentBy.get(m.reference.id) ?? 0) + m.amount);
    const campaigns = figures
      .map((c) => ({ ...c, spent: spentBy.get(c.campaignId) ?? 0 }))
      .filter((c) => c.impressions || c.clicks || c.spent);
    const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);
    return {
      number: `ADS-${month}-${a.id.slice(0, 8).toUpperCase()}`,
      advertiser: {
        id: a.id,
        companyName: a.companyName,
        billingAddress: a.billingAddress,
        billingTaxId: a.billingTaxId,
      },
      month,
      from: from.toISOString(),
      to: to.toISOString(),
      complete: end <= now,
      currency: AD_CURRENCY,
      openingBalance: -opening,
      topUps,
      toppedUp: sum(topUps.map((t) => t.amount)),
      campaigns,
      spent: sum([...spentBy.values()]),
      closingBalance: -opening - sum(moves.map((m) => m.amount)),
    };
  }

  return {
    statement,
    pdf: (s: StatementView) => renderStatement(s),
  };
}
export type Statements = ReturnType<typeof createStatements>;
