import type { NeedCategory } from '../../db/schema/associations.js';
import { associations } from '../../db/schema/associations.js';
import type { App } from '../../http/types.js';
import { uuidv7 } from '../../shared/ids.js';
import { createSignedIn, uniquePhone, type UserOptions } from '../../../test/helpers/factories.js';

/** Test support for the associations suites. */

export interface AssociationOptions extends UserOptions {
  verification?: 'PENDING' | 'VERIFIED' | 'REJECTED';
  name?: string;
  mission?: string;
  city?: string;
  latitude?: number;
  longitude?: number;
  categories?: NeedCategory[];
}

/**
 * An ASSOCIATION user with its profile, written straight to the database (the registration has its
 * own tests); `token` is signed in. Verified unless `verification` says otherwise.
 */
export async function createAssociation(app: App, opts: AssociationOptions = {}) {
  const signedIn = await createSignedIn(app, { ...opts, role: 'ASSOCIATION' });
  const now = app.ctx.clock.now();
  const status = opts.verification ?? 'VERIFIED';
  const [association] = await app.ctx.db
    .insert(associations)
    .values({
      id: uuidv7(),
      userId: signedIn.user.id,
      name: opts.name ?? `Banque alimentaire ${uuidv7().slice(-6)}`,
      registrationNumber: `SN-ASSO-${uuidv7().slice(-8)}`,
      mission: opts.mission ?? 'Repas pour les familles du quartier',
      categories: opts.categories ?? ['BAKERY', 'DRY_GOODS'],
      address: '5 Rue Carnot',
      city: opts.city ?? 'Dakar',
      latitude: opts.latitude ?? 14.6928,
      longitude: opts.longitude ?? -17.4467,
      contactPhone: uniquePhone(),
      pickupCapacityKg: 200,
      status,
      verifiedAt: status === 'VERIFIED' ? now : null,
      submittedAt: now,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  return { ...signedIn, association: association! };
}

/** A valid registration body. */
export const registerBody = (over: Record<string, unknown> = {}) => ({
  name: 'Les Restos du Cœur de Dakar',
  registrationNumber: 'SN-DKR-2024-A-0042',
  mission: 'Distribuer des repas chauds aux familles en difficulté',
  categories: ['PREPARED_MEALS', 'BAKERY'],
  address: '12 Avenue Blaise Diagne',
  city: 'Dakar',
  latitude: 14.6937,
  longitude: -17.4441,
  contactPhone: '+221771234567',
  pickupCapacityKg: 150,
  ...over,
});
