import type { TestApp } from '../../../test/helpers/app.js';
import { call } from '../../../test/helpers/http.js';
import { deliverWebhook, paidEvent } from '../payments/payments.test-support.js';
import { HOUR, admin, supplierWithStore } from '../products/products.test-support.js';

export { HOUR, admin, supplierWithStore };
export const DAY = 24 * HOUR;

/** A valid creation body for the store: a surprise bag of 10 places, valid 7 days, pickup 18:00-20:00. */
export const dealBody = (t: TestApp, storeId: string, over: Record<string, unknown> = {}) => ({
  storeId,
  title: 'Panier surprise boulangerie',
  description: 'Pains et viennoiseries invendus du jour',
  kind: 'SURPRISE_BAG',
  category: 'BAKERY',
  price: 1000,
  originalValue: 3000,
  totalPlaces: 10,
  placesPerClient: 2,
  validUntil: new Date(t.clock.now().getTime() + 7 * DAY).toISOString(),
  pickupStart: '18:00',
  pickupEnd: '20:00',
  terms: 'À retirer sur place, paiement au comptoir',
  ...over,
});

/** Creates a deal over HTTP and approves it when it waits for review. */
export async function publishDeal(
  t: TestApp,
  s: { token: string; store: { id: string } },
  adminToken: string,
  over: Record<string, unknown> = {},
) {
  const created = await call(t.app, 'POST', '/supplier/deals', { token: s.token, body: dealBody(t, s.store.id, over) });
  if (created.status !== 201) throw new Error(`deal not created: ${JSON.stringify(created.body)}`);
  if (created.body.data.status === 'ACTIVE') return created.body.data as { id: string; status: string };
  const approved = await call(t.app, 'POST', `/admin/deals/${created.body.data.id}/approve`, { token: adminToken });
  if (approved.status !== 200) throw new Error(`deal not approved: ${JSON.stringify(approved.body)}`);
  return approved.body.data as { id: string; status: string };
}

/** The store's local date (Dakar is UTC all year) `days` after the test clock's today. */
export const dakarDate = (t: TestApp, days = 0) =>
  new Date(t.clock.now().getTime() + days * DAY).toISOString().slice(0, 10);

/** Moves the clock to `HH:MM` UTC (Dakar) of the day `days` ahead. */
export function moveTo(t: TestApp, days: number, time: string): void {
  const target = Date.parse(`${dakarDate(t, days)}T${time}:00Z`);
  t.clock.advance(target - t.clock.now().getTime());
}

/** A verified shop with its payout number and a deal paid in the app (1000 XOF a place, one place per client). */
export async function inAppShop(t: TestApp, adminToken: string, over: Record<string, unknown> = {}) {
  const s = await supplierWithStore(t, { role: 'SUPPLIER_DEALS' });
  const phone = await call(t.app, 'PUT', '/suppliers/profile', {
    token: s.token,
    body: { payoutPhone: '+221771234567' },
  });
  if (phone.status !== 200) throw new Error(`payout phone not set: ${JSON.stringify(phone.body)}`);
  const deal = await publishDeal(t, s, adminToken, { paymentMode: 'IN_APP', placesPerClient: 1, ...over });
  return { ...s, deal };
}

/** Books a deal paid in the app for tomorrow's window, paying by wave (answers the HTTP response). */
export const bookInApp = (
  t: TestApp,
  token: string,
  dealId: string,
  body: Record<string, unknown> = {},
  headers?: Record<string, string>,
) =>
  call(t.app, 'POST', `/deals/${dealId}/book`, {
    token,
    body: { quantity: 1, pickupDate: dakarDate(t, 1), paymentMethod: 'wave', ...body },
    ...(headers && { headers }),
  });

/** Pays a booking's attempt at the fake provider and delivers the signed webhook; answers its outcome. */
export async function payBooking(t: TestApp, paymentId: string): Promise<string> {
  return (await deliverWebhook(t, await paidEvent(t, paymentId))).outcome;
}
