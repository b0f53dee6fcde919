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
ALTER TABLE "stores" DROP COLUMN "search_text";--> statement-breakpoint
ALTER TABLE "stores" ADD COLUMN "supplier_public" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "stores" ADD COLUMN "earth" "cube" GENERATED ALWAYS AS (ll_to_earth(latitude, longitude)) STORED NOT NULL;--> statement-breakpoint
ALTER TABLE "stores" ADD COLUMN "search_doc" text GENERATED ALWAYS AS (lower(f_unaccent(coalesce(name, '') || ' ' || coalesce(description, '') || ' ' || coalesce(city, '')))) STORED NOT NULL;--> statement-breakpoint
ALTER TABLE "stores" ADD COLUMN "search_vector" "tsvector" GENERATED ALWAYS AS (setweight(to_tsvector('simple'::regconfig, lower(f_unaccent(coalesce(name, '')))), 'A') || setweight(to_tsvector('simple'::regconfig, lower(f_unaccent(coalesce(description, '')))), 'B') || setweight(to_tsvector('simple'::regconfig, lower(f_unaccent(coalesce(city, '')))), 'C')) STORED NOT NULL;--> statement-breakpoint
CREATE INDEX "stores_earth_idx" ON "stores" USING gist ("earth") WHERE deleted_at is null and is_active and supplier_public;--> statement-breakpoint
CREATE INDEX "stores_search_trgm_idx" ON "stores" USING gin ("search_doc" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "stores_search_vector_idx" ON "stores" USING gin ("search_vector");--> statement-breakpoint
-- stores.supplier_public mirrors the public-supplier rule of supplier-visibility.ts (verified,
-- not deleted, owner account active); these triggers keep it in step with every write, whatever
-- module makes it. A change of that rule must change supplier_is_public too.
CREATE OR REPLACE FUNCTION public.supplier_is_public(sid uuid) RETURNS boolean
  LANGUAGE sql STABLE
  AS $$ SELECT EXISTS (SELECT 1 FROM public.supplier_profiles sp JOIN public.users u ON u.id = sp.user_id
    WHERE sp.id = sid AND sp.verification_status = 'VERIFIED' AND sp.deleted_at IS NULL AND u.status = 'ACTIVE') $$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION public.stores_set_supplier_public() RETURNS trigger
  LANGUAGE plpgsql
  AS $$ BEGIN NEW.supplier_public := public.supplier_is_public(NEW.supplier_id); RETURN NEW; END $$;--> statement-breakpoint
CREATE TRIGGER stores_supplier_public BEFORE INSERT OR UPDATE OF supplier_id ON stores
  FOR EACH ROW EXECUTE FUNCTION public.stores_set_supplier_public();--> statement-breakpoint
CREATE OR REPLACE FUNCTION public.supplier_profiles_to_stores() RETURNS trigger
  LANGUAGE plpgsql
  AS $$ BEGIN
    UPDATE public.stores SET supplier_public = public.supplier_is_public(NEW.id)
      WHERE supplier_id = NEW.id AND supplier_public IS DISTINCT FROM public.supplier_is_public(NEW.id);
    RETURN NULL;
  END $$;--> statement-breakpoint
CREATE TRIGGER supplier_profiles_public_to_stores AFTER UPDATE OF verification_status, deleted_at, user_id ON supplier_profiles
  FOR EACH ROW EXECUTE FUNCTION public.supplier_profiles_to_stores();--> statement-breakpoint
CREATE OR REPLACE FUNCTION public.users_status_to_stores() RETURNS trigger
  LANGUAGE plpgsql
  AS $$ BEGIN
    IF NEW.status IS DISTINCT FROM OLD.status THEN
      UPDATE public.stores s SET supplier_public = public.supplier_is_public(s.supplier_id)
        FROM public.supplier_profiles sp WHERE sp.user_id = NEW.id AND s.supplier_id = sp.id;
    END IF;
    RETURN NULL;
  END $$;--> statement-breakpoint
CREATE TRIGGER users_status_to_stores AFTER UPDATE OF status ON users
  FOR EACH ROW EXECUTE FUNCTION public.users_status_to_stores();--> statement-breakpoint
UPDATE stores SET supplier_public = public.supplier_is_public(supplier_id);
--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "search_vector" "tsvector" GENERATED ALWAYS AS (setweight(to_tsvector('simple'::regconfig, lower(f_unaccent(name))), 'A') || setweight(to_tsvector('simple'::regconfig, search_document), 'B')) STORED NOT NULL;--> statement-breakpoint
CREATE INDEX "products_search_vector_idx" ON "products" USING gin ("search_vector");--> statement-breakpoint
CREATE INDEX "products_search_trgm_idx" ON "products" USING gin ("search_document" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "products_popularity_idx" ON "products" USING btree ("popularity_score","id") WHERE status = 'ACTIVE';
