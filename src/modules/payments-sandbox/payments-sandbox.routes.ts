import type { FastifyReply } from 'fastify';
import { randomUUID } from 'node:crypto';
import { Type } from 'typebox';
import type { App } from '../../http/types.js';
import { SANDBOX_PAGE_PATH, type SandboxPayments } from '../../providers/payments/sandbox.js';
import { PaymentProviderError } from '../../providers/payments/types.js';
import type { WireSession } from '../../providers/payments/wire.js';
import { PAGE_CSP, renderCheckoutPage, renderNotFoundPage } from './checkout-page.js';

// Not part of the API contract: pages for people, served only with MOBILEMONEY_PROVIDER=sandbox.
const Params = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100, pattern: '^cos-sbx-[0-9a-f-]{36}$' }) });
const schema = { hide: true, params: Params };

function html(reply: FastifyReply, status: number, body: string) {
  return reply.code(status).type('text/html; charset=utf-8').header('content-security-policy', PAGE_CSP).send(body);
}

/** The sandbox's checkout page and its Pay / Fail buttons (the payer's side of the real provider). */
export function paymentsSandboxRoutes(sandbox: SandboxPayments) {
  return async (app: App) => {
    // The buttons are plain HTML forms: their (empty) url-encoded bodies are accepted and ignored.
    if (!app.hasContentTypeParser('application/x-www-form-urlencoded')) {
      app.addContentTypeParser(
        'application/x-www-form-urlencoded',
        { parseAs: 'string', bodyLimit: 1024 },
        (_req, _body, done) => done(null, {}),
      );
    }
    const load = async (id: string): Promise<WireSession | null> => {
      try {
        return await sandbox.getWireSession(id);
      } catch (err) {
        if (err instanceof PaymentProviderError && err.status === 404) return null;
        throw err;
      }
    };

    app.get('/payments/sandbox/checkout/:id', { config: { access: 'Public' }, schema }, async (req, reply) => {
      const session = await load(req.params.id);
      return session
        ? html(reply, 200, renderCheckoutPage(session, SANDBOX_PAGE_PATH))
        : html(reply, 404, renderNotFoundPage());
    });

    app.post('/payments/sandbox/checkout/:id/pay', { config: { access: 'Public' }, schema }, async (req, reply) => {
      if (!(await load(req.params.id))) return html(reply, 404, renderNotFoundPage());
      const { session, changed } = await sandbox.pay(req.params.id);
      if (changed)
        await sandbox.send({ id: `EV_sbx_${randomUUID()}`, type: 'checkout.session.completed', data: session });
      // A second click on Pay finds the session already paid: the payer goes on to the same place.
      if (session.checkout_status === 'complete') return reply.redirect(session.success_url!, 303);
      return html(reply, 409, renderCheckoutPage(session, SANDBOX_PAGE_PATH, 'This session can no longer be paid.'));
    });

    app.post('/payments/sandbox/checkout/:id/fail', { config: { access: 'Public' }, schema }, async (req, reply) => {
      if (!(await load(req.params.id))) return html(reply, 404, renderNotFoundPage());
      const { session, changed } = await sandbox.failPayment(req.params.id);
      if (!changed) return html(reply, 409, renderCheckoutPage(session, SANDBOX_PAGE_PATH, 'This session is closed.'));
      await sandbox.send({ id: `EV_sbx_${randomUUID()}`, type: 'checkout.session.payment_failed', data: session });
      return reply.redirect(session.error_url!, 303);
    });
  };
}
