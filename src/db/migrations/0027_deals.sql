CREATE TABLE "deal_bookings" (
	"id" uuid PRIMARY KEY NOT NULL,
	"deal_id" uuid NOT NULL,
	"client_id" uuid NOT NULL,
	"supplier_id" uuid NOT NULL,
	"store_id" uuid NOT NULL,
	"quantity" integer NOT NULL,
	"unit_price" integer NOT NULL,
	"total_price" integer NOT NULL,
	"currency" text NOT NULL,
	"pickup_date" date NOT NULL,
	"pickup_starts_at" timestamp with time zone NOT NULL,
	"pickup_ends_at" timestamp with time zone NOT NULL,
	"code" text NOT NULL,
	"status" text DEFAULT 'CONFIRMED' NOT NULL,
	"used_at" timestamp with time zone,
	"used_by" uuid,
	"cancelled_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "deal_bookings_quantity" CHECK (quantity >= 1)
);
--> statement-breakpoint
CREATE TABLE "deals" (
	"id" uuid PRIMARY KEY NOT NULL,
	"supplier_id" uuid NOT NULL,
	"store_id" uuid NOT NULL,
	"title" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"kind" text NOT NULL,
	"category" text NOT NULL,
	"price" integer NOT NULL,
	"original_value" integer NOT NULL,
	"discount_percent" integer NOT NULL,
	"currency" text DEFAULT 'XOF' NOT NULL,
	"total_places" integer NOT NULL,
	"places_taken" integer DEFAULT 0 NOT NULL,
	"places_per_client" integer NOT NULL,
	"valid_from" timestamp with time zone NOT NULL,
	"valid_until" timestamp with time zone NOT NULL,
	"pickup_start" text NOT NULL,
	"pickup_end" text NOT NULL,
	"terms" text DEFAULT '' NOT NULL,
	"images" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"status" text DEFAULT 'PENDING_REVIEW' NOT NULL,
	"rejection_reason" text,
	"listed" boolean DEFAULT false NOT NULL,
	"earth" "cube" NOT NULL,
	"search_doc" text GENERATED ALWAYS AS (lower(f_unaccent(coalesce(title, '') || ' ' || coalesce(description, '') || ' ' || coalesce(terms, '')))) STORED NOT NULL,
	"search_vector" "tsvector" GENERATED ALWAYS AS (setweight(to_tsvector('simple'::regconfig, lower(f_unaccent(coalesce(title, '')))), 'A') || setweight(to_tsvector('simple'::regconfig, lower(f_unaccent(coalesce(description, '')))), 'B') || setweight(to_tsvector('simple'::regconfig, lower(f_unaccent(coalesce(terms, '')))), 'C')) STORED NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"deleted_at" timestamp with time zone,
	CONSTRAINT "deals_prices" CHECK (price >= 0 and original_value > 0 and price < original_value),
	CONSTRAINT "deals_places" CHECK (places_taken >= 0 and places_taken <= total_places and places_per_client >= 1),
	CONSTRAINT "deals_validity" CHECK (valid_from < valid_until)
);
--> statement-breakpoint
ALTER TABLE "deal_bookings" ADD CONSTRAINT "deal_bookings_deal_id_deals_id_fk" FOREIGN KEY ("deal_id") REFERENCES "public"."deals"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deal_bookings" ADD CONSTRAINT "deal_bookings_client_id_users_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deal_bookings" ADD CONSTRAINT "deal_bookings_supplier_id_supplier_profiles_id_fk" FOREIGN KEY ("supplier_id") REFERENCES "public"."supplier_profiles"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deal_bookings" ADD CONSTRAINT "deal_bookings_store_id_stores_id_fk" FOREIGN KEY ("store_id") REFERENCES "public"."stores"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deal_bookings" ADD CONSTRAINT "deal_bookings_used_by_users_id_fk" FOREIGN KEY ("used_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deals" ADD CONSTRAINT "deals_supplier_id_supplier_profiles_id_fk" FOREIGN KEY ("supplier_id") REFERENCES "public"."supplier_profiles"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deals" ADD CONSTRAINT "deals_store_id_stores_id_fk" FOREIGN KEY ("store_id") REFERENCES "public"."stores"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "deal_bookings_client_idx" ON "deal_bookings" USING btree ("client_id","created_at");--> statement-breakpoint
CREATE INDEX "deal_bookings_deal_client_idx" ON "deal_bookings" USING btree ("deal_id","client_id");--> statement-breakpoint
CREATE INDEX "deal_bookings_store_idx" ON "deal_bookings" USING btree ("store_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "deal_bookings_store_code_key" ON "deal_bookings" USING btree ("store_id","code") WHERE status = 'CONFIRMED';--> statement-breakpoint
CREATE INDEX "deal_bookings_open_idx" ON "deal_bookings" USING btree ("pickup_ends_at") WHERE status = 'CONFIRMED';--> statement-breakpoint
CREATE INDEX "deals_supplier_idx" ON "deals" USING btree ("supplier_id","created_at") WHERE status <> 'DELETED';--> statement-breakpoint
CREATE INDEX "deals_store_idx" ON "deals" USING btree ("store_id") WHERE status <> 'DELETED';--> statement-breakpoint
CREATE INDEX "deals_status_idx" ON "deals" USING btree ("status","created_at");--> statement-breakpoint
CREATE INDEX "deals_listed_earth_idx" ON "deals" USING gist ("earth") WHERE listed;--> statement-breakpoint
CREATE INDEX "deals_listed_search_vector_idx" ON "deals" USING gin ("search_vector") WHERE listed;--> statement-breakpoint
CREATE INDEX "deals_listed_search_trgm_idx" ON "deals" USING gin ("search_doc" gin_trgm_ops) WHERE listed;--> statement-breakpoint
CREATE INDEX "deals_listed_newest_idx" ON "deals" USING btree ("created_at","id") WHERE listed;--> statement-breakpoint
CREATE INDEX "deals_listed_price_idx" ON "deals" USING btree ("price","id") WHERE listed;--> statement-breakpoint
CREATE INDEX "deals_listed_ending_idx" ON "deals" USING btree ("valid_until","id") WHERE listed;--> statement-breakpoint
-- deals.listed and deals.earth (docs/deals.md): the deal is ACTIVE, its store live and active, its
-- supplier public (store_lists_products of 0021_products_listed_triggers, the products' rule), and
-- its position is its store's. Kept here from every write so the public list reads one row, never
-- its store; validity, places and temporary closures come with time and bookings: checked when reading.
CREATE OR REPLACE FUNCTION public.deals_set_listed() RETURNS trigger
  LANGUAGE plpgsql
  AS $$ BEGIN
    NEW.listed := NEW.status = 'ACTIVE' AND public.store_lists_products(NEW.store_id);
    SELECT public.ll_to_earth(s.latitude, s.longitude) INTO NEW.earth FROM public.stores s WHERE s.id = NEW.store_id;
    RETURN NEW;
  END $$;--> statement-breakpoint
CREATE TRIGGER deals_listed BEFORE INSERT OR UPDATE OF status, store_id, listed, earth ON deals
  FOR EACH ROW EXECUTE FUNCTION public.deals_set_listed();--> statement-breakpoint
CREATE OR REPLACE FUNCTION public.stores_to_deals() RETURNS trigger
  LANGUAGE plpgsql
  AS $$ BEGIN
    UPDATE public.deals d SET listed = d.listed WHERE d.store_id = NEW.id AND d.status <> 'DELETED';
    RETURN NULL;
  END $$;--> statement-breakpoint
CREATE TRIGGER stores_to_deals AFTER UPDATE ON stores
  FOR EACH ROW WHEN (OLD.deleted_at IS DISTINCT FROM NEW.deleted_at OR OLD.is_active IS DISTINCT FROM NEW.is_active
    OR OLD.supplier_public IS DISTINCT FROM NEW.supplier_public OR OLD.latitude IS DISTINCT FROM NEW.latitude
    OR OLD.longitude IS DISTINCT FROM NEW.longitude)
  EXECUTE FUNCTION public.stores_to_deals();
