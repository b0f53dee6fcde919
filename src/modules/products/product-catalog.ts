/*
 * The closed lists of the catalogue: categories, dietary tags and allergens, with their labels in
 * French and English (shown to clients, and words that search matches). Adding a value is a code
 * change on purpose: clients filter on these values and the apps translate them.
 */

export const PRODUCT_CATEGORIES = [
  'BAKERY',
  'PREPARED_MEALS',
  'FRUITS_VEGETABLES',
  'DAIRY',
  'MEAT_FISH',
  'GROCERIES',
  'DRINKS',
  'OTHER',
] as const;
export type ProductCategory = (typeof PRODUCT_CATEGORIES)[number];

export const DIETARY_TAGS = ['VEGETARIAN', 'VEGAN', 'HALAL', 'GLUTEN_FREE', 'LACTOSE_FREE', 'ORGANIC'] as const;
export type DietaryTag = (typeof DIETARY_TAGS)[number];

/** The fourteen allergens food labels must declare (EU regulation 1169/2011, annex II). */
export const ALLERGENS = [
  'GLUTEN',
  'CRUSTACEANS',
  'EGGS',
  'FISH',
  'PEANUTS',
  'SOY',
  'MILK',
  'NUTS',
  'CELERY',
  'MUSTARD',
  'SESAME',
  'SULPHITES',
  'LUPIN',
  'MOLLUSCS',
] as const;
export type Allergen = (typeof ALLERGENS)[number];

export interface Labels {
  fr: string;
  en: string;
}

export const CATEGORY_LABELS: Record<ProductCategory, Labels> = {
  BAKERY: { fr: 'Boulangerie pâtisserie', en: 'Bakery pastry' },
  PREPARED_MEALS: { fr: 'Plats préparés', en: 'Prepared meals' },
  FRUITS_VEGETABLES: { fr: 'Fruits et légumes', en: 'Fruit and vegetables' },
  DAIRY: { fr: 'Produits laitiers', en: 'Dairy' },
  MEAT_FISH: { fr: 'Viande et poisson', en: 'Meat and fish' },
  GROCERIES: { fr: 'Épicerie', en: 'Groceries' },
  DRINKS: { fr: 'Boissons', en: 'Drinks' },
  OTHER: { fr: 'Autre', en: 'Other' },
};

/**
 * Unit weight a product gets when the supplier gives none, in grams: a typical portion or item
 * of the category. Used for the food-saved impact figures, so a rough figure beats none.
 */
export const DEFAULT_UNIT_WEIGHT_GRAMS: Record<ProductCategory, number> = {
  BAKERY: 300,
  PREPARED_MEALS: 450,
  FRUITS_VEGETABLES: 1000,
  DAIRY: 500,
  MEAT_FISH: 500,
  GROCERIES: 500,
  DRINKS: 1000,
  OTHER: 500,
};

export const DIETARY_LABELS: Record<DietaryTag, Labels> = {
  VEGETARIAN: { fr: 'Végétarien', en: 'Vegetarian' },
  VEGAN: { fr: 'Végan', en: 'Vegan' },
  HALAL: { fr: 'Halal', en: 'Halal' },
  GLUTEN_FREE: { fr: 'Sans gluten', en: 'Gluten free' },
  LACTOSE_FREE: { fr: 'Sans lactose', en: 'Lactose free' },
  ORGANIC: { fr: 'Bio', en: 'Organic' },
};

/** Most images a product may have (spec: 5). */
export const MAX_PRODUCT_IMAGES = 5;
