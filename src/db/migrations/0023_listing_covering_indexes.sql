-- The public product lists that read many index entries to fill one page (the newest matches of
-- search words, expiring soon and trending near a point) read them from the index alone: each of
-- these three indexes also carries the columns those queries test (expiry, store for closures,
-- position, words), so the rows they pass over are not fetched from the table; only the page's
-- rows are (docs/listings.md). Same names, keys and predicates as in 0020_products_listed.
DROP INDEX "products_listed_newest_idx";--> statement-breakpoint
CREATE INDEX "products_listed_newest_idx" ON "products" USING btree ("created_at","id") INCLUDE ("expires_at","store_id","search_vector") WHERE listed;--> statement-breakpoint
DROP INDEX "products_listed_expiry_idx";--> statement-breakpoint
CREATE INDEX "products_listed_expiry_idx" ON "products" USING btree ("expires_at","id") INCLUDE ("store_id","location") WHERE listed;--> statement-breakpoint
DROP INDEX "products_listed_popularity_idx";--> statement-breakpoint
CREATE INDEX "products_listed_popularity_idx" ON "products" USING btree ("popularity_score" DESC NULLS FIRST,"id") INCLUDE ("expires_at","store_id","location") WHERE listed;
