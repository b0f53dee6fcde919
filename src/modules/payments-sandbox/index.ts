import type { App } from '../../http/types.js';
import { SandboxPayments } from '../../providers/payments/sandbox.js';
import { defineModule } from '../module.js';
import { paymentsSandboxRoutes } from './payments-sandbox.routes.js';
import { createSandboxDelivery } from './sandbox-webhook.js';

/** The sandbox payment provider's pages, present only when the sandbox is the provider. */
export type PaymentsSandboxApi = Record<never, never>;

declare module '../module.js' {
  interface ModuleApis {
    paymentsSandbox: PaymentsSandboxApi;
  }
}

export const paymentsSandboxModule = defineModule({
  name: 'paymentsSandbox',
  needs: [],
  build(ctx) {
    const sandbox = ctx.payments instanceof SandboxPayments ? ctx.payments : null;
    if (!sandbox) return { api: {} };
    return {
      api: {},
      routes: async (app: App) => {
        // Its webhook goes through this very app.
        sandbox.setDelivery(createSandboxDelivery(app, sandbox.webhookSecrets[0]!, ctx.clock, ctx.log));
        await app.register(paymentsSandboxRoutes(sandbox));
      },
    };
  },
});
