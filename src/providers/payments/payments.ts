import { webhookSecrets, type Config } from '../../config.js';
import type { Db } from '../../db/client.js';
import type { Clock } from '../../shared/clock.js';
import { CheckoutSessionPayments } from './checkout-session.js';
import { SandboxPayments } from './sandbox.js';
import type { PaymentProvider } from './types.js';

/** The configured payment provider (MOBILEMONEY_PROVIDER); loadConfig already checked its variables. */
export function createPayments(config: Config, deps: { db: Db; clock: Clock }): PaymentProvider {
  if (config.MOBILEMONEY_PROVIDER === 'checkout') {
    return new CheckoutSessionPayments(
      {
        baseUrl: config.MOBILEMONEY_BASE_URL,
        apiKey: config.MOBILEMONEY_API_KEY!,
        webhookSecrets: webhookSecrets(config),
      },
      deps.clock,
    );
  }
  return new SandboxPayments(deps.db, deps.clock, config.PUBLIC_BASE_URL, webhookSecrets(config));
}
