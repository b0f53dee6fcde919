import { Type } from 'typebox';
import type { FastifyReply } from 'fastify';
import type { App } from '../../http/types.js';
import { Ok, OkPage, ok, okPage, type PageMeta } from '../../shared/schemas.js';
import * as S from './supplier-money.schemas.js';
import type { SupplierMoneyService } from './supplier-money.service.js';

const sup = { access: 'SUP' } as const;
const tags = ['suppliers'];

const csv = (reply: FastifyReply, file: { filename: string; body: string }) =>
  reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${file.filename}"`)
    .header('cache-control', 'private, no-store')
    .send(file.body);

const page = <T>(r: { items: T[]; meta: PageMeta }) => okPage(r.items, r.meta);

/** The supplier's own money, beyond the contract: balance, payouts and the per-order statement (docs/escrow.md). */
export function supplierMoneyRoutes(money: SupplierMoneyService) {
  return async (app: App) => {
    app.get(
      '/suppliers/money/balance',
      {
        config: sup,
        schema: {
          tags,
          summary: 'Own money from the ledger: held in escrow, payable (released, not paid out), paid out',
          querystring: S.BalanceQuerySchema,
          errors: [404],
          response: { 200: Ok(S.SupplierBalanceSchema) },
        },
      },
      async (req) => ok(await money.balance(req.user, req.query)),
    );

    app.get(
      '/suppliers/money/payouts',
      {
        config: sup,
        schema: {
          tags,
          summary: 'Own payouts, newest first',
          querystring: S.PayoutsQuerySchema,
          errors: [404],
          response: { 200: OkPage(S.SupplierPayoutSchema) },
        },
      },
      async (req) => page(await money.payouts(req.user, req.query)),
    );

    app.get(
      '/suppliers/money/statement',
      {
        config: sup,
        schema: {
          tags,
          summary:
            'Per-order settlement of the orders paid in a range, newest first: gross, commission, net, escrow state, release date, payout; JSON pages or CSV (`format=csv`)',
          querystring: S.StatementQuerySchema,
          errors: [404],
          response: {
            200: {
              description: 'The statement',
              content: {
                'application/json': { schema: OkPage(S.SettlementLineSchema) },
                'text/csv': { schema: Type.String() },
              },
            },
          },
        },
      },
      async (req, reply) =>
        req.query.format === 'csv'
          ? csv(reply, await money.statementCsv(req.user, req.query))
          : page(await money.statement(req.user, req.query)),
    );
  };
}
