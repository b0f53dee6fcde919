import { CATEGORY_LABELS, DIETARY_LABELS, type DietaryTag, type ProductCategory } from './product-catalog.js';

/** Lower case without accents: "Pâtisserie Été" -> "patisserie ete". */
export const foldText = (text: string): string =>
  text.normalize('NFKD').replace(/\p{M}/gu, '').replace(/œ/g, 'oe').replace(/æ/g, 'ae').toLowerCase();

/**
 * The words a product is found by, folded: its name, description, and the French and English
 * labels of its category and dietary tags (so "boulangerie", "bakery" and "vegan" find it).
 * Written with every change of these fields; the search module indexes and reads it.
 */
export function buildSearchDocument(p: {
  name: string;
  description: string;
  category: ProductCategory;
  dietaryTags: readonly DietaryTag[];
}): string {
  const labels = [CATEGORY_LABELS[p.category], ...p.dietaryTags.map((t) => DIETARY_LABELS[t])].flatMap((l) => [
    l.fr,
    l.en,
  ]);
  return foldText([p.name, p.description, ...labels].join(' '))
    .replace(/\s+/g, ' ')
    .trim();
}
