CREATE TABLE "subscription_plans" (
	"id" uuid PRIMARY KEY NOT NULL,
	"code" text NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"max_products" integer NOT NULL,
	"price_amount" integer DEFAULT 0 NOT NULL,
	"currency" text DEFAULT 'XOF' NOT NULL,
	"period_days" integer,
	"is_active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "supplier_subscriptions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"supplier_id" uuid NOT NULL,
	"plan_id" uuid NOT NULL,
	"status" text NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"ends_at" timestamp with time zone,
	"cancelled_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "supplier_commission_changes" (
	"id" uuid PRIMARY KEY NOT NULL,
	"supplier_id" uuid NOT NULL,
	"actor_id" uuid NOT NULL,
	"old_rate_bps" integer NOT NULL,
	"new_rate_bps" integer NOT NULL,
	"reason" text,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "supplier_subscriptions" ADD CONSTRAINT "supplier_subscriptions_supplier_id_supplier_profiles_id_fk" FOREIGN KEY ("supplier_id") REFERENCES "public"."supplier_profiles"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "supplier_subscriptions" ADD CONSTRAINT "supplier_subscriptions_plan_id_subscription_plans_id_fk" FOREIGN KEY ("plan_id") REFERENCES "public"."subscription_plans"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "supplier_commission_changes" ADD CONSTRAINT "supplier_commission_changes_supplier_id_supplier_profiles_id_fk" FOREIGN KEY ("supplier_id") REFERENCES "public"."supplier_profiles"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "supplier_commission_changes" ADD CONSTRAINT "supplier_commission_changes_actor_id_users_id_fk" FOREIGN KEY ("actor_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "subscription_plans_code_key" ON "subscription_plans" USING btree ("code");--> statement-breakpoint
CREATE UNIQUE INDEX "supplier_subscriptions_active_key" ON "supplier_subscriptions" USING btree ("supplier_id") WHERE status = 'ACTIVE';--> statement-breakpoint
CREATE INDEX "supplier_subscriptions_supplier_idx" ON "supplier_subscriptions" USING btree ("supplier_id","started_at");--> statement-breakpoint
CREATE INDEX "supplier_commission_changes_supplier_idx" ON "supplier_commission_changes" USING btree ("supplier_id","created_at");--> statement-breakpoint
CREATE INDEX "supplier_profiles_city_idx" ON "supplier_profiles" USING btree (lower("city"));--> statement-breakpoint
CREATE INDEX "supplier_profiles_search_fts_idx" ON "supplier_profiles" USING gin (to_tsvector('simple', "business_name" || ' ' || "description"));--> statement-breakpoint
CREATE INDEX "supplier_profiles_search_trgm_idx" ON "supplier_profiles" USING gin (("business_name" || ' ' || "description") gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "supplier_profiles_earth_idx" ON "supplier_profiles" USING gist (ll_to_earth("latitude", "longitude"));--> statement-breakpoint
-- Seed: the FREE plan every supplier is on until it subscribes to another one (fixed id and code).
INSERT INTO "subscription_plans" ("id", "code", "name", "description", "max_products", "price_amount", "currency", "period_days", "is_active", "created_at", "updated_at")
VALUES ('019aa8e0-0000-7000-8000-000000000001', 'FREE', 'Free', 'Up to 10 products, no fee', 10, 0, 'XOF', NULL, true, '2026-11-22T00:00:00Z', '2026-11-22T00:00:00Z')
ON CONFLICT ("code") DO NOTHING;
