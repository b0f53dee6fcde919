import type { FastifyBaseLogger } from 'fastify';
import type { App } from '../../http/types.js';
import { SIGNATURE_HEADER, signWebhook } from '../../providers/payments/signature.js';
import type { SandboxDelivered, SandboxEvent } from '../../providers/payments/sandbox.js';
import type { Clock } from '../../shared/clock.js';

export const WEBHOOK_PATH = '/api/v1/payments/mobilemoney/webhook';

/**
 * Sends a sandbox event to the API's own webhook route through the whole HTTP pipeline
 * (`app.inject`: raw body, signature header, rate limits, error handling), signed with the first
 * webhook secret exactly as the provider signs. A refusal is logged, not thrown: the page still
 * takes the payer back, as the real provider's page does whatever our webhook answered.
 */
export function createSandboxDelivery(app: App, secret: string, clock: Clock, log: FastifyBaseLogger) {
  return async (event: SandboxEvent): Promise<SandboxDelivered> => {
    const rawBody = JSON.stringify(event);
    const signature = signWebhook(secret, rawBody, Math.floor(clock.now().getTime() / 1000));
    let statusCode = 0;
    try {
      const res = await app.inject({
        method: 'POST',
        url: WEBHOOK_PATH,
        headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: signature },
        payload: rawBody,
      });
      statusCode = res.statusCode;
      if (res.statusCode >= 300)
        log.warn(
          { eventId: event.id, type: event.type, statusCode, body: res.body.slice(0, 300) },
          'sandbox payment webhook not accepted',
        );
    } catch (err) {
      log.warn({ err, eventId: event.id, type: event.type }, 'sandbox payment webhook failed');
    }
    return { event, rawBody, signature, statusCode };
  };
}
