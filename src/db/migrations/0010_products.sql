CREATE TABLE "product_favorites" (
	"user_id" uuid NOT NULL,
	"product_id" uuid NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "product_favorites_user_id_product_id_pk" PRIMARY KEY("user_id","product_id")
);
--> statement-breakpoint
CREATE TABLE "product_images" (
	"id" uuid PRIMARY KEY NOT NULL,
	"product_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"thumbnail_key" text NOT NULL,
	"large_key" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "products" (
	"id" uuid PRIMARY KEY NOT NULL,
	"supplier_id" uuid NOT NULL,
	"store_id" uuid NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"category" text NOT NULL,
	"original_price" integer NOT NULL,
	"discounted_price" integer NOT NULL,
	"currency" text DEFAULT 'XOF' NOT NULL,
	"discount_percent" integer GENERATED ALWAYS AS (((original_price - discounted_price) * 100 / original_price)) STORED NOT NULL,
	"quantity" integer NOT NULL,
	"unit_weight_grams" integer NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"pickup_start" text NOT NULL,
	"pickup_end" text NOT NULL,
	"dietary_tags" text[] DEFAULT '{}'::text[] NOT NULL,
	"allergens" text[] DEFAULT '{}'::text[] NOT NULL,
	"status" text DEFAULT 'PENDING_REVIEW' NOT NULL,
	"rejection_reason" text,
	"views_count" integer DEFAULT 0 NOT NULL,
	"favorites_count" integer DEFAULT 0 NOT NULL,
	"sales_count" integer DEFAULT 0 NOT NULL,
	"popularity_score" double precision DEFAULT 0 NOT NULL,
	"rating_average" double precision DEFAULT 0 NOT NULL,
	"rating_count" integer DEFAULT 0 NOT NULL,
	"location" "earth" NOT NULL,
	"search_document" text DEFAULT '' NOT NULL,
	"published_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"deleted_at" timestamp with time zone,
	CONSTRAINT "products_prices" CHECK (discounted_price >= 0 and original_price > 0 and discounted_price < original_price),
	CONSTRAINT "products_quantity" CHECK (quantity >= 0)
);
--> statement-breakpoint
CREATE TABLE "store_follows" (
	"user_id" uuid NOT NULL,
	"store_id" uuid NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "store_follows_user_id_store_id_pk" PRIMARY KEY("user_id","store_id")
);
--> statement-breakpoint
ALTER TABLE "product_favorites" ADD CONSTRAINT "product_favorites_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_favorites" ADD CONSTRAINT "product_favorites_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_images" ADD CONSTRAINT "product_images_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "products" ADD CONSTRAINT "products_supplier_id_supplier_profiles_id_fk" FOREIGN KEY ("supplier_id") REFERENCES "public"."supplier_profiles"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "products" ADD CONSTRAINT "products_store_id_stores_id_fk" FOREIGN KEY ("store_id") REFERENCES "public"."stores"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "store_follows" ADD CONSTRAINT "store_follows_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "store_follows" ADD CONSTRAINT "store_follows_store_id_stores_id_fk" FOREIGN KEY ("store_id") REFERENCES "public"."stores"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "product_favorites_user_idx" ON "product_favorites" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "product_images_position_key" ON "product_images" USING btree ("product_id","position");--> statement-breakpoint
CREATE INDEX "products_supplier_idx" ON "products" USING btree ("supplier_id","created_at") WHERE status <> 'DELETED';--> statement-breakpoint
CREATE INDEX "products_store_idx" ON "products" USING btree ("store_id") WHERE status <> 'DELETED';--> statement-breakpoint
CREATE INDEX "products_status_idx" ON "products" USING btree ("status","created_at");--> statement-breakpoint
CREATE INDEX "products_active_expiry_idx" ON "products" USING btree ("expires_at") WHERE status = 'ACTIVE';--> statement-breakpoint
CREATE INDEX "products_location_idx" ON "products" USING gist ("location") WHERE status = 'ACTIVE';--> statement-breakpoint
CREATE INDEX "store_follows_store_idx" ON "store_follows" USING btree ("store_id");
--> statement-breakpoint
-- A product's stored position follows its store's: one statement when a store moves, so no list
-- ever shows a product at the store's old place.
CREATE OR REPLACE FUNCTION public.products_follow_store_location() RETURNS trigger
  LANGUAGE plpgsql AS $$
BEGIN
  UPDATE products SET location = public.ll_to_earth(NEW.latitude, NEW.longitude) WHERE store_id = NEW.id;
  RETURN NEW;
END $$;--> statement-breakpoint
CREATE TRIGGER stores_location_to_products AFTER UPDATE OF latitude, longitude ON stores
  FOR EACH ROW WHEN (OLD.latitude IS DISTINCT FROM NEW.latitude OR OLD.longitude IS DISTINCT FROM NEW.longitude)
  EXECUTE FUNCTION public.products_follow_store_location();
