DROP INDEX "products_location_idx";--> statement-breakpoint
DROP INDEX "products_search_vector_idx";--> statement-breakpoint
DROP INDEX "products_search_trgm_idx";--> statement-breakpoint
DROP INDEX "products_popularity_idx";--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "listed" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "stores_closure_idx" ON "stores" USING btree ("closure_ends_at") WHERE closure_starts_at is not null;--> statement-breakpoint
CREATE INDEX "products_listed_earth_idx" ON "products" USING gist ("location") WHERE listed;--> statement-breakpoint
CREATE INDEX "products_listed_search_vector_idx" ON "products" USING gin ("search_vector") WHERE listed;--> statement-breakpoint
CREATE INDEX "products_listed_search_trgm_idx" ON "products" USING gin ("search_document" gin_trgm_ops) WHERE listed;--> statement-breakpoint
CREATE INDEX "products_listed_newest_idx" ON "products" USING btree ("created_at","id") WHERE listed;--> statement-breakpoint
CREATE INDEX "products_listed_expiry_idx" ON "products" USING btree ("expires_at","id") WHERE listed;--> statement-breakpoint
CREATE INDEX "products_listed_popularity_idx" ON "products" USING btree ("popularity_score" DESC NULLS FIRST,"id") WHERE listed;--> statement-breakpoint
CREATE INDEX "products_listed_price_idx" ON "products" USING btree ("discounted_price","id") WHERE listed;--> statement-breakpoint
CREATE INDEX "products_listed_price_desc_idx" ON "products" USING btree ("discounted_price" DESC NULLS FIRST,"id") WHERE listed;--> statement-breakpoint
CREATE INDEX "products_listed_discount_idx" ON "products" USING btree ("discount_percent" DESC NULLS FIRST,"id") WHERE listed;