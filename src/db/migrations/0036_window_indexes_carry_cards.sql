-- Expiring soon and trending near a point read their order's index until the page is full (0023): the
-- indexes now also carry the card and its picture (0034), so the page is written from the index alone,
-- without looking up each row in the table. A card is short (names are at most 120 characters), far
-- below the size an index entry may have.
DROP INDEX "products_listed_expiry_idx";--> statement-breakpoint
CREATE INDEX "products_listed_expiry_idx" ON "products" USING btree ("expires_at","id") INCLUDE ("store_id","location","card","thumbnail_key") WHERE listed;--> statement-breakpoint
DROP INDEX "products_listed_popularity_idx";--> statement-breakpoint
CREATE INDEX "products_listed_popularity_idx" ON "products" USING btree ("popularity_score" DESC NULLS FIRST,"id") INCLUDE ("expires_at","store_id","location","card","thumbnail_key") WHERE listed;
