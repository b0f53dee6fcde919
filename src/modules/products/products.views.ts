import type { FileLinks } from '../../providers/storage/storage.js';
import { popularityAt, type ImageRecord, type ProductRecord } from './products.repository.js';
import type { ImageView, ProductView } from './products.schemas.js';

export interface SalesFigures {
  unitsSold: number;
  orders: number;
  revenue: number;
}
export const NO_SALES: SalesFigures = { unitsSold: 0, orders: 0, revenue: 0 };

export const toImageView = (
  i: Pick<ImageRecord, 'id' | 'position' | 'thumbnailKey' | 'largeKey'>,
  links: FileLinks,
): ImageView => ({
  id: i.id,
  position: i.position,
  thumbnailUrl: links.publicUrl(i.thumbnailKey),
  largeUrl: links.publicUrl(i.largeKey),
});

/** The fields every product view shares. */
export function productFieldsView(p: ProductRecord, images: ImageView[], now: Date) {
  return {
    id: p.id,
    supplierId: p.supplierId,
    storeId: p.storeId,
    name: p.name,
    description: p.description,
    category: p.category,
    originalPrice: p.originalPrice,
    discountedPrice: p.discountedPrice,
    discountPercent: p.discountPercent,
    currency: p.currency,
    quantity: p.quantity,
    unitWeightGrams: p.unitWeightGrams,
    expiresAt: p.expiresAt.toISOString(),
    pickupStart: p.pickupStart,
    pickupEnd: p.pickupEnd,
    dietaryTags: p.dietaryTags,
    allergens: p.allergens,
    images,
    viewsCount: p.viewsCount,
    favoritesCount: p.favoritesCount,
    salesCount: p.salesCount,
    popularityScore: popularityAt(p.popularityScore, now),
    rating: { average: p.ratingAverage, count: p.ratingCount },
    publishedAt: p.publishedAt?.toISOString() ?? null,
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}

export function toProductView(
  p: ProductRecord,
  images: ImageRecord[],
  links: FileLinks,
  now: Date,
  sales: SalesFigures = NO_SALES,
): ProductView {
  return {
    ...productFieldsView(
      p,
      images.map((i) => toImageView(i, links)),
      now,
    ),
    status: p.status,
    rejectionReason: p.rejectionReason,
    sales,
  };
}
