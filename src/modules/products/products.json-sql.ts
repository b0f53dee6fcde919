import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { isoSql } from '../../listings/index.js';
import { productFavorites, productImages, products } from '../../db/schema/products.js';
import { storeViewPairs } from '../stores/index.js';
import { supplierSummaryJson } from '../suppliers/index.js';

// The product views PostgreSQL writes as JSON (docs/architecture.md, "JSON written by the database"):
// products.json-sql.test.ts checks them against the TypeScript views and the route's response schema.
// A field added to a view must be added here too. The list card is a stored column (`card`, the
// `product_card` function of migration 0034), completed by product-search.json-sql.ts.

/** The product page's `rating` and `latestReviews` as JSON pairs of the product `productId` (the reviews module's). */
export type ProductPageReviews = (productId: SQLWrapper) => SQL;

/** Without the reviews module: the rating stored on the product and no reviews. */
const storedRatingPairs = sql`'rating', json_build_object('average', ${products.ratingAverage}, 'count', ${products.ratingCount},
          'distribution', json_build_object('1', 0, '2', 0, '3', 0, '4', 0, '5', 0)), 'latestReviews', '[]'::json`;

/**
 * The public page of the product row as JSON text (ProductDetailSchema without the decayed
 * popularity, which the application adds): productFieldsView, the pictures, the store's toStoreView
 * at `at`, the supplier's summary, the reviews' part and whether the `userId` placeholder's user
 * keeps it as a favourite (a null user, anonymous, never does). Reads `products` joined with its
 * `stores` and `supplier_profiles` rows; `files`: the public files' URL prefix, as SQL text.
 */
export const productPageJson = (at: SQL, files: SQL, reviews?: ProductPageReviews) =>
  sql<string>`json_build_object(
          'id', ${products.id}, 'supplierId', ${products.supplierId}, 'storeId', ${products.storeId}, 'name', ${products.name},
          'description', ${products.description}, 'category', ${products.category}, 'originalPrice', ${products.originalPrice},
          'discountedPrice', ${products.discountedPrice}, 'discountPercent', ${products.discountPercent}, 'currency', ${products.currency},
          'quantity', ${products.quantity}, 'unitWeightGrams', ${products.unitWeightGrams}, 'expiresAt', ${isoSql(products.expiresAt)},
          'pickupStart', ${products.pickupStart}, 'pickupEnd', ${products.pickupEnd}, 'dietaryTags', ${products.dietaryTags},
          'allergens', ${products.allergens}, 'viewsCount', ${products.viewsCount}, 'favoritesCount', ${products.favoritesCount},
          'salesCount', ${products.salesCount}, 'publishedAt', ${isoSql(products.publishedAt)},
          'createdAt', ${isoSql(products.createdAt)}, 'updatedAt', ${isoSql(products.updatedAt)},
          'images', coalesce((
            select json_agg(json_build_object('id', i.id, 'position', i.position, 'thumbnailUrl', ${files} || i.thumbnail_key, 'largeUrl', ${files} || i.large_key) order by i.position)
            from ${productImages} i where i.product_id = ${products.id}), '[]'::json),
          'store', json_build_object(${storeViewPairs(at)}),
          'supplier', ${supplierSummaryJson(files)},
          ${reviews ? reviews(products.id) : storedRatingPairs},
          'isFavorite', exists (select 1 from ${productFavorites} f where f.product_id = ${products.id} and f.user_id = ${sql.placeholder('userId')}::uuid))::text`;
