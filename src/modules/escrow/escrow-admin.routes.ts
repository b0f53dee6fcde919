import type { App } from '../../http/types.js';
import { Ok, OkPage, ok, okPage } from '../../shared/schemas.js';
import * as S from './escrow-admin.schemas.js';
import type { EscrowAdminService } from './escrow-admin.service.js';

const tags = ['admin: payments'];
const adm = { access: 'ADM' } as const;
// Escrow decisions move money: the Idempotency-Key header replays a repeated request's answer.
const money = { access: 'ADM', idempotency: true } as const;
const action = (summary: string) => ({
  tags,
  summary,
  params: S.OrderIdParamsSchema,
  body: S.ReasonBodySchema,
  errors: [409] as const,
  response: { 200: Ok(S.EscrowSchema) },
});

export function escrowAdminRoutes(admin: EscrowAdminService) {
  return async (app: App) => {
    app.get(
      '/admin/payments/escrow',
      {
        config: adm,
        schema: {
          tags,
          summary:
            'Escrows, newest first unless sorted: filters by state, supplier, store, time held and payout state (`payout=failed`: payouts refused for good)',
          querystring: S.EscrowListQuerySchema,
          response: { 200: OkPage(S.EscrowSchema) },
        },
      },
      async (req) => {
        const r = await admin.list(req.query);
        return okPage(r.items, r.meta);
      },
    );

    app.get(
      '/admin/payments/escrow/:orderId',
      {
        config: adm,
        schema: {
          tags,
          summary:
            "An order's escrow with its payments, ledger transactions, provider events, payouts and the administrators' decisions",
          params: S.OrderIdParamsSchema,
          response: { 200: Ok(S.EscrowDetailSchema) },
        },
      },
      async (req) => ok(await admin.get(req.params.orderId)),
    );

    app.post(
      '/admin/payments/escrow/:orderId/release',
      {
        config: money,
        schema: action(
          'Release a HELD escrow of a completed order to the supplier now (commission kept), before the automatic delay',
        ),
      },
      async (req) => ok(await admin.release(req.user, req.params.orderId, req.body.reason)),
    );

    app.post(
      '/admin/payments/escrow/:orderId/refund',
      { config: money, schema: action('Refund a HELD escrow to the client through the provider') },
      async (req) => ok(await admin.refund(req.user, req.params.orderId, req.body.reason)),
    );

    app.post(
      '/admin/payments/escrow/:orderId/dispute/open',
      { config: money, schema: action('Open a dispute on a HELD escrow: the automatic release skips it') },
      async (req) => ok(await admin.openDispute(req.user, req.params.orderId, req.body.reason)),
    );

    app.post(
      '/admin/payments/escrow/:orderId/dispute/resolve-supplier',
      {
        config: money,
        schema: action('Resolve a dispute for the supplier: released as by /release (the order must be completed)'),
      },
      async (req) => ok(await admin.resolveForSupplier(req.user, req.params.orderId, req.body.reason)),
    );

    app.post(
      '/admin/payments/escrow/:orderId/dispute/resolve-client',
      { config: money, schema: action('Resolve a dispute for the client: refunded through the provider') },
      async (req) => ok(await admin.resolveForClient(req.user, req.params.orderId, req.body.reason)),
    );
  };
}
