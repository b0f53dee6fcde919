import type { AuthUser } from '../http/access.js';
import type { CreateDealBody } from '../modules/deals/index.js';
import { normalizePhone } from '../shared/phone.js';
import { DEMO_SUPPLIERS } from './dakar.js';
import type { SeedContext } from './seed-context.js';

const DAY = 86_400_000;

/** A demo deal of a store, named by the store's name; valid `days` after the seed runs. */
export interface DemoDeal extends Omit<CreateDealBody, 'storeId' | 'validUntil' | 'validFrom'> {
  store: string;
  days: number;
}

export const DEMO_DEALS: DemoDeal[] = [
  {
    store: 'Teranga Plateau',
    title: 'Panier surprise boulangerie',
    description: 'Pains, viennoiseries et pâtisseries invendus du jour.',
    kind: 'SURPRISE_BAG',
    category: 'BAKERY',
    price: 1500,
    originalValue: 4500,
    totalPlaces: 8,
    placesPerClient: 2,
    days: 7,
    pickupStart: '19:00',
    pickupEnd: '20:30',
    terms: 'Contenu selon les invendus du jour, à régler au comptoir.',
  },
  {
    store: 'Saveurs des Almadies',
    title: 'Plat du soir à -50 %',
    description: 'Le plat du jour restant après le service du soir.',
    kind: 'PERCENTAGE_OFF',
    category: 'PREPARED_MEALS',
    discountPercent: 50,
    originalValue: 3500,
    totalPlaces: 10,
    placesPerClient: 1,
    days: 5,
    pickupStart: '21:00',
    pickupEnd: '22:00',
    terms: 'Apportez votre contenant.',
  },
  {
    store: 'Primeurs de Ouakam',
    title: 'Cagette fruits et légumes',
    description: 'Fruits et légumes un peu abîmés, environ 3 kg.',
    kind: 'FIXED_PRICE',
    category: 'FRUITS_VEGETABLES',
    price: 1000,
    originalValue: 3000,
    totalPlaces: 12,
    placesPerClient: 2,
    days: 10,
    pickupStart: '17:00',
    pickupEnd: '19:30',
    terms: '',
  },
];

/**
 * Each demo deal, created by its supplier and approved by the administrator, as through the API.
 * A deal of that title already in the store (in any state but deleted) is left as it is.
 */
export async function seedDeals(s: SeedContext): Promise<void> {
  const { suppliers, deals, stores } = s.app.services;
  for (const demo of DEMO_SUPPLIERS) {
    const mine = DEMO_DEALS.filter((d) => demo.stores.some((st) => st.name === d.store));
    if (!mine.length) continue;
    const owner = await s.app.services.users.findByPhone(normalizePhone(demo.owner.phoneNumber));
    const profile = owner && (await suppliers.findOwnProfile(owner.id));
    if (!owner || !profile) continue;
    let actor: AuthUser | undefined;
    const asOwner = async () => (actor ??= await s.actAs(owner));
    // Found without signing in, so a run with nothing to do opens no session.
    const existing = (await deals.listOfSupplier(profile.id, { page: 1, limit: 100 })).items;
    const own = (await stores.search({ supplierId: profile.id, page: 1, limit: 100 })).items;
    for (const { store: storeName, days, ...d } of mine) {
      const store = own.find((st) => st.name === storeName);
      if (!store) continue;
      const found = existing.find((x) => x.storeId === store.id && x.title === d.title);
      let deal = found;
      if (!deal) {
        const validUntil = new Date(s.app.ctx.clock.now().getTime() + days * DAY).toISOString();
        deal = await deals.create(await asOwner(), { ...d, storeId: store.id, validUntil });
      }
      if (deal.status === 'PENDING_REVIEW') deal = await deals.approve(await s.asAdmin(), deal.id);
      s.record({
        kind: 'deal',
        label: `${deal.title} (${deal.status}), ${store.name}, ${deal.price} XOF`,
        id: deal.id,
        created: !found,
      });
    }
  }
}
