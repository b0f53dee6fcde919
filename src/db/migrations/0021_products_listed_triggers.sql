-- products.listed: on the public lists (docs/product-search.md). The product is ACTIVE, its store
-- is live and active, and the store's supplier is public (stores.supplier_public, kept by the
-- triggers of 0012_listings). Kept here from every write, whatever module makes it, so a list
-- filters on one column of the row it reads instead of looking up the store and the supplier for
-- each row. The expiry and a store's temporary closure come with time: they are checked when reading.
-- A change of the product visibility rule (product-visibility.ts) must change these functions too.
CREATE OR REPLACE FUNCTION public.store_lists_products(sid uuid) RETURNS boolean
  LANGUAGE sql STABLE
  AS $$ SELECT EXISTS (SELECT 1 FROM public.stores s WHERE s.id = sid AND s.deleted_at IS NULL AND s.is_active AND s.supplier_public) $$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION public.products_set_listed() RETURNS trigger
  LANGUAGE plpgsql
  AS $$ BEGIN NEW.listed := NEW.status = 'ACTIVE' AND public.store_lists_products(NEW.store_id); RETURN NEW; END $$;--> statement-breakpoint
CREATE TRIGGER products_listed BEFORE INSERT OR UPDATE OF status, store_id, listed ON products
  FOR EACH ROW EXECUTE FUNCTION public.products_set_listed();--> statement-breakpoint
CREATE OR REPLACE FUNCTION public.stores_to_products_listed() RETURNS trigger
  LANGUAGE plpgsql
  AS $$ BEGIN
    UPDATE public.products p SET status = p.status
      WHERE p.store_id = NEW.id AND p.status <> 'DELETED'
        AND p.listed IS DISTINCT FROM (p.status = 'ACTIVE' AND NEW.deleted_at IS NULL AND NEW.is_active AND NEW.supplier_public);
    RETURN NULL;
  END $$;--> statement-breakpoint
CREATE TRIGGER stores_listed_to_products AFTER UPDATE ON stores
  FOR EACH ROW WHEN (OLD.deleted_at IS DISTINCT FROM NEW.deleted_at OR OLD.is_active IS DISTINCT FROM NEW.is_active
    OR OLD.supplier_public IS DISTINCT FROM NEW.supplier_public)
  EXECUTE FUNCTION public.stores_to_products_listed();--> statement-breakpoint
UPDATE products p SET listed = true FROM stores s
  WHERE s.id = p.store_id AND p.status = 'ACTIVE' AND s.deleted_at IS NULL AND s.is_active AND s.supplier_public;
