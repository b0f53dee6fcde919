-- A product's list card (docs/product-search.md): the public lists read it as one stored JSON text
-- instead of building an object, formatting the expiry and looking up the store's name and the first
-- picture for every row they show. The store's name and the thumbnail are kept on the product by
-- triggers from every write, as its position (0011) and `listed` (0021) are.
-- Declared immutable so a generated column can call it: its result depends on its arguments alone
-- (the expiry is formatted in UTC as toISOString writes it, with no locale-dependent pattern).
-- The discount is computed as products.discount_percent is (a generated column cannot read another).
CREATE OR REPLACE FUNCTION public.product_card(id uuid, name text, original_price integer, discounted_price integer, currency text, expires_at timestamptz, store_id uuid, store_name text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT json_build_object(
    'id', id, 'name', name, 'originalPrice', original_price, 'discountedPrice', discounted_price,
    'discountPercent', (original_price - discounted_price) * 100 / original_price, 'currency', currency,
    'expiresAt', to_char(expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'storeId', store_id, 'storeName', store_name)::text $$;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "store_name" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "thumbnail_key" text;--> statement-breakpoint
UPDATE products p SET store_name = s.name FROM stores s WHERE s.id = p.store_id;--> statement-breakpoint
UPDATE products p SET thumbnail_key = (SELECT i.thumbnail_key FROM product_images i WHERE i.product_id = p.id ORDER BY i.position LIMIT 1)
  WHERE EXISTS (SELECT 1 FROM product_images i WHERE i.product_id = p.id);--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "card" text GENERATED ALWAYS AS (product_card(id, name, original_price, discounted_price, currency, expires_at, store_id, store_name)) STORED NOT NULL;--> statement-breakpoint
CREATE OR REPLACE FUNCTION public.products_set_store_name() RETURNS trigger
  LANGUAGE plpgsql
  AS $$ BEGIN NEW.store_name := COALESCE((SELECT s.name FROM public.stores s WHERE s.id = NEW.store_id), ''); RETURN NEW; END $$;--> statement-breakpoint
CREATE TRIGGER products_store_name BEFORE INSERT OR UPDATE OF store_id, store_name ON products
  FOR EACH ROW EXECUTE FUNCTION public.products_set_store_name();--> statement-breakpoint
CREATE OR REPLACE FUNCTION public.stores_name_to_products() RETURNS trigger
  LANGUAGE plpgsql
  AS $$ BEGIN UPDATE public.products SET store_name = NEW.name WHERE store_id = NEW.id AND status <> 'DELETED'; RETURN NULL; END $$;--> statement-breakpoint
CREATE TRIGGER stores_name_to_products AFTER UPDATE OF name ON stores
  FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name) EXECUTE FUNCTION public.stores_name_to_products();--> statement-breakpoint
-- Image writes hold the product's row lock (products.service), so the first picture read here is the
-- one the transaction's own writes left.
CREATE OR REPLACE FUNCTION public.product_images_to_thumbnail() RETURNS trigger
  LANGUAGE plpgsql
  AS $$ DECLARE pid uuid; first text; BEGIN
    IF TG_OP = 'DELETE' THEN pid := OLD.product_id; ELSE pid := NEW.product_id; END IF;
    first := (SELECT i.thumbnail_key FROM public.product_images i WHERE i.product_id = pid ORDER BY i.position LIMIT 1);
    UPDATE public.products SET thumbnail_key = first WHERE id = pid AND thumbnail_key IS DISTINCT FROM first;
    RETURN NULL;
  END $$;--> statement-breakpoint
CREATE TRIGGER product_images_thumbnail AFTER INSERT OR DELETE OR UPDATE OF position, thumbnail_key ON product_images
  FOR EACH ROW EXECUTE FUNCTION public.product_images_to_thumbnail();
