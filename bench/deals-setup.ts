// The data of the booking scenarios, made by the benchmark server before it listens: two seeded deals
// turned into ones that never run out (ten million places, any number a client, bookable all day
// for a month), the second paid in the app, and clients signed in once, whose tokens the scenarios
// take in turn.
import { sql } from 'drizzle-orm';
import { rows } from '../src/db/client.js';
import type { App } from '../src/http/types.js';
import { hashPassword } from '../src/shared/passwords.js';

export const DEAL_PLACES = 10_000_000;
export const BOOKING_CLIENTS = 50;

export interface DealBench {
  dealId: string;
  inAppDealId: string;
  bookingTokens: string[];
}

export async function prepareDeals(app: App): Promise<DealBench> {
  const { db } = app.ctx;
  const endless = (nth: number, mode: 'AT_COUNTER' | 'IN_APP') =>
    rows<{ id: string }>(
      db,
      sql`update deals set total_places = ${DEAL_PLACES}, places_per_client = ${DEAL_PLACES}, valid_until = now() + interval '30 days', pickup_start = '00:00', pickup_end = '23:59', payment_mode = ${mode}
          where id = (select id from deals where status = 'ACTIVE' order by id limit 1 offset ${nth}) returning id`,
    ).then(([deal]) => {
      if (!deal) throw new Error('no seeded deal to book');
      return deal;
    });
  const deal = await endless(0, 'AT_COUNTER');
  const inApp = await endless(1, 'IN_APP');
  const passwordHash = await hashPassword('Bench-Password-3');
  const bookingTokens: string[] = [];
  for (let i = 0; i < BOOKING_CLIENTS; i++) {
    const user = await app.services.users.create(db, {
      phoneNumber: `+4915${String(Date.now() + i).slice(-9)}`,
      passwordHash,
      role: 'CLIENT',
      firstName: 'Bench',
      lastName: `Booker ${i}`,
      verified: true,
    });
    bookingTokens.push((await app.services.auth.signIn(user, {})).accessToken);
  }
  return { dealId: deal.id, inAppDealId: inApp.id, bookingTokens };
}
