-- The discount of a product priced above 21,474,836 XOF overflowed 32-bit arithmetic (the difference times
-- 100), so such a product could not be saved although its prices are valid: computed in 64 bits now, the
-- percentage itself always fits. PostgreSQL before 17 cannot change a generated column's expression: the column
-- and its index are made again.
CREATE OR REPLACE FUNCTION public.product_card(id uuid, name text, original_price integer, discounted_price integer, currency text, expires_at timestamptz, store_id uuid, store_name text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT json_build_object(
    'id', id, 'name', name, 'originalPrice', original_price, 'discountedPrice', discounted_price,
    'discountPercent', (original_price - discounted_price)::bigint * 100 / original_price, 'currency', currency,
    'expiresAt', to_char(expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'storeId', store_id, 'storeName', store_name)::text $$;--> statement-breakpoint
ALTER TABLE "products" DROP COLUMN "discount_percent";--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "discount_percent" integer GENERATED ALWAYS AS (((original_price - discounted_price)::bigint * 100 / original_price)::integer) STORED NOT NULL;--> statement-breakpoint
CREATE INDEX "products_listed_discount_idx" ON "products" USING btree ("discount_percent" DESC NULLS FIRST,"id") WHERE listed;
