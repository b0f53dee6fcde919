-- Accent folding for ordering and, later, for stored search columns: f_unaccent() is IMMUTABLE so
-- indexes and generated columns may use it. unaccent() itself is only STABLE, because its rules
-- file could change; after changing unaccent.rules, REINDEX what uses f_unaccent. The dictionary
-- and function are named with their schema, so the result does not depend on search_path.
CREATE EXTENSION IF NOT EXISTS unaccent WITH SCHEMA public;--> statement-breakpoint
CREATE OR REPLACE FUNCTION public.f_unaccent(text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
  AS $$ SELECT public.unaccent('public.unaccent'::regdictionary, $1) $$;--> statement-breakpoint
CREATE INDEX "stores_name_order_idx" ON "stores" USING btree (lower(f_unaccent("name") collate "C"),"id") WHERE deleted_at is null;--> statement-breakpoint
CREATE INDEX "supplier_profiles_name_order_idx" ON "supplier_profiles" USING btree (lower(f_unaccent("business_name") collate "C"),"id") WHERE deleted_at is null;