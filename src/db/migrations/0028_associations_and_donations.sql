CREATE TABLE "association_documents" (
	"id" uuid PRIMARY KEY NOT NULL,
	"association_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"storage_key" text NOT NULL,
	"content_type" text NOT NULL,
	"size_bytes" integer NOT NULL,
	"sha256" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "association_reports" (
	"id" uuid PRIMARY KEY NOT NULL,
	"association_id" uuid NOT NULL,
	"title" text NOT NULL,
	"period_start" date NOT NULL,
	"period_end" date NOT NULL,
	"body" text NOT NULL,
	"meals_served" integer,
	"people_helped" integer,
	"pdf_key" text,
	"pdf_size_bytes" integer,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "associations" (
	"id" uuid PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"name" text NOT NULL,
	"registration_number" text NOT NULL,
	"mission" text DEFAULT '' NOT NULL,
	"categories" text[] NOT NULL,
	"address" text NOT NULL,
	"city" text NOT NULL,
	"latitude" double precision NOT NULL,
	"longitude" double precision NOT NULL,
	"contact_phone" text NOT NULL,
	"contact_email" text,
	"pickup_capacity_kg" integer NOT NULL,
	"payout_phone" text,
	"status" text DEFAULT 'PENDING' NOT NULL,
	"rejection_reason" text,
	"verified_at" timestamp with time zone,
	"submitted_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"earth" "cube" GENERATED ALWAYS AS (ll_to_earth(latitude, longitude)) STORED NOT NULL,
	"search_doc" text GENERATED ALWAYS AS (lower(f_unaccent(coalesce(name, '') || ' ' || coalesce(mission, '') || ' ' || coalesce(city, '')))) STORED NOT NULL,
	"search_vector" "tsvector" GENERATED ALWAYS AS (setweight(to_tsvector('simple'::regconfig, lower(f_unaccent(coalesce(name, '')))), 'A') || setweight(to_tsvector('simple'::regconfig, lower(f_unaccent(coalesce(mission, '')))), 'B') || setweight(to_tsvector('simple'::regconfig, lower(f_unaccent(coalesce(city, '')))), 'C')) STORED NOT NULL
);
--> statement-breakpoint
CREATE TABLE "donation_items" (
	"id" uuid PRIMARY KEY NOT NULL,
	"donation_id" uuid NOT NULL,
	"product_id" uuid,
	"name" text NOT NULL,
	"quantity" integer NOT NULL,
	"unit_weight_grams" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "donation_status_history" (
	"id" uuid PRIMARY KEY NOT NULL,
	"donation_id" uuid NOT NULL,
	"from_status" text,
	"to_status" text NOT NULL,
	"actor_id" uuid,
	"reason" text,
	"at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "donations" (
	"id" uuid PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"donor_user_id" uuid NOT NULL,
	"supplier_id" uuid,
	"association_id" uuid NOT NULL,
	"status" text NOT NULL,
	"total_weight_grams" integer,
	"amount" integer,
	"currency" text,
	"message" text,
	"pickup_window_start" timestamp with time zone,
	"pickup_window_end" timestamp with time zone,
	"scheduled_pickup_at" timestamp with time zone,
	"pickup_note" text,
	"closing_reason" text,
	"collected_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "association_documents" ADD CONSTRAINT "association_documents_association_id_associations_id_fk" FOREIGN KEY ("association_id") REFERENCES "public"."associations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "association_reports" ADD CONSTRAINT "association_reports_association_id_associations_id_fk" FOREIGN KEY ("association_id") REFERENCES "public"."associations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "associations" ADD CONSTRAINT "associations_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "donation_items" ADD CONSTRAINT "donation_items_donation_id_donations_id_fk" FOREIGN KEY ("donation_id") REFERENCES "public"."donations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "donation_status_history" ADD CONSTRAINT "donation_status_history_donation_id_donations_id_fk" FOREIGN KEY ("donation_id") REFERENCES "public"."donations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "donation_status_history" ADD CONSTRAINT "donation_status_history_actor_id_users_id_fk" FOREIGN KEY ("actor_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "donations" ADD CONSTRAINT "donations_donor_user_id_users_id_fk" FOREIGN KEY ("donor_user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "donations" ADD CONSTRAINT "donations_association_id_associations_id_fk" FOREIGN KEY ("association_id") REFERENCES "public"."associations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "association_documents_association_idx" ON "association_documents" USING btree ("association_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "association_documents_storage_key" ON "association_documents" USING btree ("storage_key");--> statement-breakpoint
CREATE INDEX "association_reports_association_idx" ON "association_reports" USING btree ("association_id","period_end","id");--> statement-breakpoint
CREATE UNIQUE INDEX "associations_user_key" ON "associations" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "associations_status_idx" ON "associations" USING btree ("status","submitted_at");--> statement-breakpoint
CREATE INDEX "associations_name_order_idx" ON "associations" USING btree (lower(f_unaccent("name") collate "C"),"id") WHERE status = 'VERIFIED';--> statement-breakpoint
CREATE INDEX "associations_verified_order_idx" ON "associations" USING btree ("verified_at" DESC NULLS LAST,"id" DESC NULLS LAST) WHERE status = 'VERIFIED';--> statement-breakpoint
CREATE INDEX "associations_search_vector_idx" ON "associations" USING gin ("search_vector");--> statement-breakpoint
CREATE INDEX "associations_search_trgm_idx" ON "associations" USING gin ("search_doc" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "associations_earth_idx" ON "associations" USING gist ("earth") WHERE status = 'VERIFIED';--> statement-breakpoint
CREATE INDEX "donation_items_donation_idx" ON "donation_items" USING btree ("donation_id");--> statement-breakpoint
CREATE INDEX "donation_items_product_idx" ON "donation_items" USING btree ("product_id");--> statement-breakpoint
CREATE INDEX "donation_status_history_donation_idx" ON "donation_status_history" USING btree ("donation_id","at");--> statement-breakpoint
CREATE INDEX "donations_donor_idx" ON "donations" USING btree ("donor_user_id","created_at");--> statement-breakpoint
CREATE INDEX "donations_association_idx" ON "donations" USING btree ("association_id","status","created_at");--> statement-breakpoint
CREATE INDEX "donations_supplier_open_idx" ON "donations" USING btree ("supplier_id") WHERE status in ('PENDING', 'ACCEPTED', 'PICKUP_SCHEDULED');