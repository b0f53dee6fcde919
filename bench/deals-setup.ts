// The data of the booking scenario, made by the benchmark server before it listens: one seeded deal
// turned into one that never runs out (ten million places, any number a client, bookable all day
// for a month), and clients signed in once, whose tokens the scenario takes in turn.
import { sql } from 'drizzle-orm';
import { rows } from '../src/db/client.js';
import type { App } from '../src/http/types.js';
import { hashPassword } from '../src/shared/passwords.js';

export const DEAL_PLACES = 10_000_000;
export const BOOKING_CLIENTS = 50;

export interface DealBench {
  dealId: string;
  bookingTokens: string[];
}

export async function prepareDeals(app: App): Promise<DealBench> {
  const { db } = app.ctx;
  const [deal] = await rows<{ id: string }>(
    db,
    sql`update deals set total_places = ${DEAL_PLACES}, places_per_client = ${DEAL_PLACES}, valid_until = now() + interval '30 days', pickup_start = '00:00', pickup_end = '23:59'
        where id = (select id from deals where status = 'ACTIVE' order by id limit 1) returning id`,
  );
  if (!deal) throw new Error('no seeded deal to book');
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
  return { dealId: deal.id, bookingTokens };
}
