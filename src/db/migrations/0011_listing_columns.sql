DROP INDEX "stores_location_idx";--> statement-breakpoint
DROP INDEX "stores_search_trgm_idx";--> statement-breakpoint
DROP INDEX "stores_search_fts_idx";--> statement-breakpoint
DROP INDEX "supplier_profiles_search_fts_idx";--> statement-breakpoint
DROP INDEX "supplier_profiles_search_trgm_idx";--> statement-breakpoint
DROP INDEX "supplier_profiles_earth_idx";--> statement-breakpoint
ALTER TABLE "supplier_profiles" ADD COLUMN "earth" "cube" GENERATED ALWAYS AS (ll_to_earth(latitude, longitude)) STORED NOT NULL;--> statement-breakpoint
ALTER TABLE "supplier_profiles" ADD COLUMN "search_doc" text GENERATED ALWAYS AS (lower(f_unaccent(coalesce(business_name, '') || ' ' || coalesce(description, '')))) STORED NOT NULL;--> statement-breakpoint
ALTER TABLE "supplier_profiles" ADD COLUMN "search_vector" "tsvector" GENERATED ALWAYS AS (setweight(to_tsvector('simple'::regconfig, lower(f_unaccent(coalesce(business_name, '')))), 'A') || setweight(to_tsvector('simple'::regconfig, lower(f_unaccent(coalesce(description, '')))), 'B')) STORED NOT NULL;--> statement-breakpoint
CREATE INDEX "supplier_profiles_search_vector_idx" ON "supplier_profiles" USING gin ("search_vector");--> statement-breakpoint
CREATE INDEX "supplier_profiles_search_trgm_idx" ON "supplier_profiles" USING gin ("search_doc" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "supplier_profiles_earth_idx" ON "supplier_profiles" USING gist ("earth");--> statement-breakpoint
ALTER TABLE "stores" DROP COLUMN "search_text";