import { Type } from 'typebox';
import { transactionalKey } from '../../http/idempotency.js';
import type { App } from '../../http/types.js';
import { Ok, OkPage, ok, okPage } from '../../shared/schemas.js';
import * as S from './billing.schemas.js';
import type { AdBilling } from './billing.service.js';
import type { Statements } from './statements.service.js';

const adv = { access: 'ADVERTISER_OR_ADM' } as const;
const Pdf = Type.Unsafe<Buffer>({ type: 'string', format: 'binary' });

/** The advertiser's prepaid balance: top-ups, the balance and its history, monthly statements. */
export function billingRoutes(billing: AdBilling, statements: Statements) {
  return async (app: App) => {
    const tags = ['advertising'];
    app.post(
      '/advertising/topups',
      {
        config: { ...adv, idempotency: 'in-transaction' },
        schema: {
          tags,
          summary:
            'Top up the advertising balance: pay at payment.redirectUrl; the money counts once paid (Idempotency-Key honoured)',
          body: S.TopUpBodySchema,
          errors: [404],
          response: { 201: Ok(S.TopUpStartedSchema) },
        },
      },
      async (req, reply) =>
        reply.code(201).send(ok(await billing.topUp(req.user, req.body, transactionalKey(req, reply)))),
    );

    app.get(
      '/advertising/topups',
      {
        config: adv,
        schema: {
          tags,
          summary: "The advertiser's top-ups, newest first",
          querystring: S.TopUpsQuerySchema,
          errors: [404],
          response: { 200: OkPage(S.TopUpSchema) },
        },
      },
      async (req) => {
        const r = await billing.topUps(req.user, req.query);
        return okPage(r.items, r.meta);
      },
    );

    app.get(
      '/advertising/balance',
      {
        config: adv,
        schema: {
          tags,
          summary: 'The prepaid balance campaigns spend from, with what was topped up and spent in total',
          querystring: S.AdvertiserQuerySchema,
          errors: [404],
          response: { 200: Ok(S.BalanceSchema) },
        },
      },
      async (req) => ok(await billing.balance(req.user, req.query.advertiserId)),
    );

    app.get(
      '/advertising/balance/history',
      {
        config: adv,
        schema: {
          tags,
          summary: 'Every movement of the balance, newest first: top-ups paid, clicks and impressions paid',
          querystring: S.HistoryQuerySchema,
          errors: [404],
          response: { 200: OkPage(S.MovementSchema) },
        },
      },
      async (req) => {
        const r = await billing.history(req.user, req.query);
        return okPage(r.items, r.meta);
      },
    );

    app.get(
      '/advertising/statements/:month',
      {
        config: adv,
        schema: {
          tags,
          summary:
            "A month's statement (YYYY-MM): balances, top-ups and spend per campaign, as a PDF file or its figures (`format=json`)",
          params: S.StatementParamsSchema,
          querystring: S.StatementQuerySchema,
          errors: [404],
          response: {
            200: {
              description: 'The statement',
              content: {
                'application/pdf': { schema: Pdf },
                'application/json': { schema: Ok(S.StatementSchema) },
              },
            },
          },
        },
      },
      async (req, reply) => {
        const s = await statements.statement(req.user, req.params.month, req.query.advertiserId);
        if (req.query.format === 'json') return ok(s);
        return reply
          .type('application/pdf')
          .header('content-disposition', `attachment; filename="statement-${s.month}.pdf"`)
          .send(await statements.pdf(s));
      },
    );
  };
}
