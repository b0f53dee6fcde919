import { Type } from 'typebox';
import type { App } from '../../http/types.js';
import { PROVIDER_EVENT_OUTCOMES, type PaymentSubjectType } from '../../db/schema/payments.js';
import { SIGNATURE_HEADER } from '../../providers/payments/signature.js';
import { IdSchema, Ok, StringEnum, ok } from '../../shared/schemas.js';
import { returnPage } from './return-page.js';
import type { SettlementService } from './settlement.service.js';

const WebhookAnswerSchema = Type.Object(
  { received: Type.Literal(true), outcome: StringEnum([...PROVIDER_EVENT_OUTCOMES, 'duplicate'] as const) },
  { title: 'WebhookAnswer' },
);
const ReturnQuerySchema = Type.Object({ ref: IdSchema }, { additionalProperties: true });
const Html = Type.String({ description: 'a small HTML page showing the payment state' });
// Deliveries are small session or payout objects.
const WEBHOOK_BODY_LIMIT = 64 * 1024;
// The provider delivers from a few addresses, in bursts after an outage of ours: the per-IP limit of
// the other routes would turn its backlog away. Unsigned requests cost one HMAC each to refuse.
const WEBHOOK_RATE_LIMIT = { max: 3000, timeWindow: '1 minute' };

/** The routes of every subject's payments: where the provider sends the payer back, and its webhook. */
/** The app's return URL names the subject: `orderId`, `donationId`... and these. */
const RETURN_PARAMS: Partial<Record<PaymentSubjectType, string>> = {
  subscription: 'subscriptionChargeId',
  advertising_topup: 'topUpId',
};

export function paymentsRoutes(settlement: SettlementService, opts: { appReturnUrl?: string }) {
  return async (app: App) => {
    const tags = ['payments'];
    for (const outcome of ['success', 'error'] as const) {
      app.get(
        `/payments/mobilemoney/${outcome}`,
        {
          config: { access: 'Public' },
          schema: {
            tags,
            summary: `Where the provider sends the payer back (${outcome}): the payment's real state, as a page or a redirect to APP_RETURN_URL`,
            querystring: ReturnQuerySchema,
            errors: [404],
            response: { 200: Html, 303: Type.Null() },
          },
        },
        async (req, reply) => {
          const r = await settlement.returned(req.query.ref);
          if (opts.appReturnUrl) {
            const to = new URL(opts.appReturnUrl);
            if (r.orderId) to.searchParams.set('orderId', r.orderId);
            else to.searchParams.set(RETURN_PARAMS[r.subjectType] ?? `${r.subjectType}Id`, r.subjectId);
            to.searchParams.set('status', r.status);
            return reply.redirect(to.toString(), 303);
          }
          return reply
            .type('text/html; charset=utf-8')
            .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
            .send(returnPage(r));
        },
      );
    }

    // The webhook's signature covers the exact bytes: in this context they are kept aside, unparsed
    // (the request's own body stays empty, so no hook walks or trims it before the check).
    const rawBodies = new WeakMap<object, Buffer>();
    await app.register(async (raw: App) => {
      raw.removeAllContentTypeParsers();
      raw.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT }, (req, body, done) => {
        rawBodies.set(req, body as Buffer);
        done(null, undefined);
      });
      raw.post(
        '/payments/mobilemoney/webhook',
        {
          config: { access: 'Public', rateLimit: WEBHOOK_RATE_LIMIT },
          schema: {
            tags,
            summary:
              "The provider's signed events (Wave-Signature over the raw body): payments settled once per event id",
            errors: [400, 401],
            response: { 200: Ok(WebhookAnswerSchema) },
          },
        },
        async (req) => {
          const header = req.headers[SIGNATURE_HEADER];
          const body = rawBodies.get(req) ?? Buffer.alloc(0);
          return ok(await settlement.receiveWebhook(body, typeof header === 'string' ? header : undefined));
        },
      );
    });
  };
}
