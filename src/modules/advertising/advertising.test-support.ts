import type { TestApp } from '../../../test/helpers/app.js';
import { createSignedIn, uniqueEmail } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import { uuidv7 } from '../../shared/ids.js';
import { deliverWebhook } from '../payments/payments.test-support.js';

export const MINUTE = 60_000;
export const DAY = 86_400_000;

export const profileBody = (over: Record<string, unknown> = {}) => ({
  companyName: 'Jus de Bissap SARL',
  contactName: 'Awa Ndiaye',
  contactEmail: uniqueEmail('ads'),
  contactPhone: '+221771234567',
  website: 'https://bissap.example.sn',
  billingAddress: '12 rue Carnot, Dakar',
  ...over,
});

/** An ADVERTISER account with its profile, and a prepaid balance of `balance` (paid through the provider). */
export async function advertiser(t: TestApp, opts: { balance?: number } = {}) {
  const s = await createSignedIn(t.app, { role: 'ADVERTISER' });
  const res = await call(t.app, 'POST', '/advertising/profile', { token: s.token, body: profileBody() });
  if (res.status !== 201) throw new Error(`profile not created: ${JSON.stringify(res.body)}`);
  const balance = opts.balance ?? 1_000_000;
  if (balance > 0) await topUp(t, s, balance);
  return { ...s, profile: res.body.data as { id: string } };
}

/** Starts a top-up (POST /advertising/topups); answers the answer's data. */
export async function startTopUp(t: TestApp, owner: { token: string }, amount: number, key = uuidv7()) {
  const res = await call(t.app, 'POST', '/advertising/topups', {
    token: owner.token,
    body: { amount, paymentMethod: 'wave' },
    headers: { 'idempotency-key': key },
  });
  if (res.status !== 201) throw new Error(`top-up not started: ${JSON.stringify(res.body)}`);
  return res.body.data as { topUp: { id: string }; payment: { transactionId: string } };
}

/** The signed `checkout.session.completed` of a payment, paid at the fake provider. */
export async function paidEvent(t: TestApp, paymentId: string) {
  const p = await t.app.services.payments.find(t.app.ctx.db, paymentId);
  if (!p?.providerSessionId) throw new Error(`payment ${paymentId} has no session`);
  return t.mobilemoney.event('checkout.session.completed', t.mobilemoney.complete(p.providerSessionId));
}

/** Tops the balance up by `amount` through the provider and its webhook; answers the top-up. */
export async function topUp(t: TestApp, owner: { token: string }, amount: number) {
  const started = await startTopUp(t, owner, amount);
  const { outcome } = await deliverWebhook(t, await paidEvent(t, started.payment.transactionId));
  if (outcome !== 'applied') throw new Error(`top-up not applied: ${outcome}`);
  return started.topUp;
}

/** A city nobody else targets, so a test sees only its own campaigns. */
export const uniqueCity = () => `Ville-${uuidv7().slice(-12)}`;

/** A valid CPC campaign body on the home banner, running from a minute ago for ten days. */
export const campaignBody = (t: TestApp, over: Record<string, unknown> = {}) => ({
  name: 'Bissap frais',
  creative: { title: 'Le bissap de Dakar', text: 'Frais, local, sans sucre ajouté' },
  target: { type: 'URL', url: 'https://bissap.example.sn/promo' },
  placement: 'HOME_BANNER',
  targeting: { cities: [uniqueCity()] },
  startsAt: new Date(t.clock.now().getTime() - MINUTE).toISOString(),
  endsAt: new Date(t.clock.now().getTime() + 10 * DAY).toISOString(),
  totalBudget: 100_000,
  dailyBudget: 10_000,
  pricingModel: 'CPC',
  bid: 100,
  ...over,
});

/** Creates, submits and (with an admin token) approves a campaign; answers the campaign. */
export async function activeCampaign(
  t: TestApp,
  owner: { token: string },
  adminToken: string,
  over: Record<string, unknown> = {},
) {
  const body = campaignBody(t, over);
  const created = await call(t.app, 'POST', '/advertising/campaigns', { token: owner.token, body });
  if (created.status !== 201) throw new Error(`campaign not created: ${JSON.stringify(created.body)}`);
  const id = created.body.data.id as string;
  const submitted = await call(t.app, 'POST', `/advertising/campaigns/${id}/submit`, { token: owner.token });
  if (submitted.status !== 200) throw new Error(`campaign not submitted: ${JSON.stringify(submitted.body)}`);
  const approved = await call(t.app, 'PATCH', `/admin/advertising/campaigns/${id}/approve`, { token: adminToken });
  if (approved.status !== 200) throw new Error(`campaign not approved: ${JSON.stringify(approved.body)}`);
  return { id, city: (body.targeting as { cities?: string[] }).cities?.[0], body };
}
