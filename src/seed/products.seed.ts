import type { AuthUser } from '../http/access.js';
import type { ProductCategory, CreateProductBody } from '../modules/products/index.js';
import { normalizePhone } from '../shared/phone.js';
import { DEMO_SUPPLIERS } from './dakar.js';
import type { SeedContext } from './seed-context.js';

const HOUR = 3_600_000;

/** A demo product of a store, named by the store's name; it expires `hours` after the seed runs. */
export interface DemoProduct {
  store: string;
  name: string;
  description: string;
  category: ProductCategory;
  originalPrice: number;
  discountedPrice: number;
  quantity: number;
  hours: number;
  pickup: [string, string];
  dietaryTags?: CreateProductBody['dietaryTags'];
  allergens?: CreateProductBody['allergens'];
}

// A few per supplier: well under the FREE plan's ten.
export const DEMO_PRODUCTS: DemoProduct[] = [
  {
    store: 'Teranga Plateau',
    name: 'Panier de viennoiseries',
    description: 'Croissants, pains au chocolat et chaussons du jour.',
    category: 'BAKERY',
    originalPrice: 3000,
    discountedPrice: 1200,
    quantity: 6,
    hours: 20,
    pickup: ['18:30', '20:00'],
    dietaryTags: ['VEGETARIAN'],
    allergens: ['GLUTEN', 'MILK', 'EGGS'],
  },
  {
    store: 'Teranga Plateau',
    name: 'Baguettes tradition (lot de 3)',
    description: 'Trois baguettes du jour, parfaites pour le petit-déjeuner.',
    category: 'BAKERY',
    originalPrice: 600,
    discountedPrice: 250,
    quantity: 15,
    hours: 14,
    pickup: ['19:00', '20:00'],
    dietaryTags: ['VEGAN'],
    allergens: ['GLUTEN'],
  },
  {
    store: 'Teranga Médina',
    name: 'Pain tapalapa',
    description: 'Pain traditionnel sénégalais cuit au feu de bois.',
    category: 'BAKERY',
    originalPrice: 400,
    discountedPrice: 150,
    quantity: 20,
    hours: 30,
    pickup: ['18:00', '20:00'],
    dietaryTags: ['VEGAN'],
    allergens: ['GLUTEN'],
  },
  {
    store: 'Saveurs des Almadies',
    name: 'Thiéboudienne du jour',
    description: 'Riz au poisson, légumes et sauce tomate, portion généreuse.',
    category: 'PREPARED_MEALS',
    originalPrice: 3500,
    discountedPrice: 1500,
    quantity: 8,
    hours: 6,
    pickup: ['14:30', '16:00'],
    dietaryTags: ['HALAL'],
    allergens: ['FISH'],
  },
  {
    store: 'Saveurs des Almadies',
    name: 'Yassa poulet',
    description: 'Poulet mariné aux oignons et citron, riz blanc.',
    category: 'PREPARED_MEALS',
    originalPrice: 3000,
    discountedPrice: 1300,
    quantity: 5,
    hours: 8,
    pickup: ['20:00', '21:30'],
    dietaryTags: ['HALAL'],
    allergens: ['MUSTARD'],
  },
  {
    store: 'Primeurs de Ouakam',
    name: 'Panier de mangues',
    description: 'Mangues Kent bien mûres, environ 2 kg.',
    category: 'FRUITS_VEGETABLES',
    originalPrice: 2500,
    discountedPrice: 1000,
    quantity: 10,
    hours: 48,
    pickup: ['17:00', '19:30'],
    dietaryTags: ['VEGAN', 'ORGANIC'],
  },
  {
    store: 'Primeurs de Ouakam',
    name: 'Légumes pour soupe',
    description: 'Carottes, navets, chou et oignons un peu abîmés mais bons.',
    category: 'FRUITS_VEGETABLES',
    originalPrice: 1500,
    discountedPrice: 500,
    quantity: 12,
    hours: 36,
    pickup: ['17:00', '19:30'],
    dietaryTags: ['VEGAN'],
  },
  {
    store: 'Keur Yaay Parcelles',
    name: 'Lait caillé (4 pots)',
    description: 'Lait caillé sucré, date limite demain.',
    category: 'DAIRY',
    originalPrice: 2000,
    discountedPrice: 900,
    quantity: 9,
    hours: 26,
    pickup: ['19:00', '22:00'],
    dietaryTags: ['VEGETARIAN'],
    allergens: ['MILK'],
  },
  {
    store: 'Keur Yaay Pikine',
    name: 'Conserves de tomate',
    description: 'Lot de concentré de tomate, emballages cabossés.',
    category: 'GROCERIES',
    originalPrice: 1800,
    discountedPrice: 800,
    quantity: 25,
    hours: 72,
    pickup: ['10:00', '22:00'],
    dietaryTags: ['VEGAN'],
  },
  {
    store: 'Chez Fatou Point E',
    name: 'Mafé bœuf',
    description: 'Ragoût à la sauce arachide, riz blanc, à emporter.',
    category: 'PREPARED_MEALS',
    originalPrice: 3500,
    discountedPrice: 1500,
    quantity: 6,
    hours: 5,
    pickup: ['15:00', '16:30'],
    dietaryTags: ['HALAL'],
    allergens: ['PEANUTS'],
  },
];

/**
 * Each demo product, created by its supplier and approved by the administrator, as through the
 * API. A product of that name already in the store (in any state but deleted) is left as it is.
 */
export async function seedProducts(s: SeedContext): Promise<void> {
  const { suppliers, products, stores } = s.app.services;
  const productsAdmin = products.admin;
  for (const demo of DEMO_SUPPLIERS) {
    const owner = await s.app.services.users.findByPhone(normalizePhone(demo.owner.phoneNumber));
    const profile = owner && (await suppliers.findOwnProfile(owner.id));
    if (!owner || !profile) continue;
    const mine = DEMO_PRODUCTS.filter((p) => demo.stores.some((st) => st.name === p.store));
    if (!mine.length) continue;
    let actor: AuthUser | undefined;
    const asOwner = async () => (actor ??= await s.actAs(owner));
    // Found without signing in, so a run with nothing to do opens no session.
    const existing = (await products.listOfSupplier(profile.id, { page: 1, limit: 100 })).items;
    const own = (await stores.search({ supplierId: profile.id, page: 1, limit: 100 })).items;
    for (const p of mine) {
      const store = own.find((st) => st.name === p.store);
      if (!store) continue;
      const found = existing.find((x) => x.storeId === store.id && x.name === p.name);
      let product = found;
      if (!product) {
        const now = s.app.ctx.clock.now().getTime();
        product = await products.create(await asOwner(), {
          storeId: store.id,
          name: p.name,
          description: p.description,
          category: p.category,
          originalPrice: p.originalPrice,
          discountedPrice: p.discountedPrice,
          quantity: p.quantity,
          expiresAt: new Date(now + p.hours * HOUR).toISOString(),
          pickupStart: p.pickup[0],
          pickupEnd: p.pickup[1],
          dietaryTags: p.dietaryTags ?? [],
          allergens: p.allergens ?? [],
        });
      }
      if (product.status === 'PENDING_REVIEW') product = await productsAdmin.approve(await s.asAdmin(), product.id);
      s.record({
        kind: 'product',
        label: `${product.name} (${product.status}), ${store.name}, ${product.discountedPrice} XOF`,
        id: product.id,
        created: !found,
      });
    }
  }
}
