CREATE TABLE "promo_codes" (
	"id" uuid PRIMARY KEY NOT NULL,
	"code" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"discount_bps" integer,
	"discount_amount" integer,
	"currency" text DEFAULT 'XOF' NOT NULL,
	"plan_ids" uuid[] DEFAULT '{}'::uuid[] NOT NULL,
	"valid_from" timestamp with time zone,
	"valid_until" timestamp with time zone,
	"max_uses" integer,
	"max_uses_per_supplier" integer,
	"first_subscription_only" boolean DEFAULT false NOT NULL,
	"is_public" boolean DEFAULT false NOT NULL,
	"disabled_at" timestamp with time zone,
	"uses_count" integer DEFAULT 0 NOT NULL,
	"batch_id" uuid,
	"created_by" uuid,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "promo_codes_discount" CHECK ((discount_bps is null) <> (discount_amount is null) and (discount_bps is null or discount_bps between 1 and 10000) and (discount_amount is null or discount_amount > 0)),
	CONSTRAINT "promo_codes_uses" CHECK (uses_count >= 0 and (max_uses is null or max_uses >= 1) and (max_uses_per_supplier is null or max_uses_per_supplier >= 1))
);
--> statement-breakpoint
CREATE TABLE "subscription_charges" (
	"id" uuid PRIMARY KEY NOT NULL,
	"supplier_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"plan_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"subscription_id" uuid,
	"status" text DEFAULT 'PENDING' NOT NULL,
	"method" text,
	"list_price" integer NOT NULL,
	"discount_amount" integer DEFAULT 0 NOT NULL,
	"amount" integer NOT NULL,
	"currency" text NOT NULL,
	"period_days" integer NOT NULL,
	"promo_code_id" uuid,
	"expires_at" timestamp with time zone NOT NULL,
	"paid_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "subscription_charges_amounts" CHECK (list_price >= 0 and discount_amount >= 0 and amount = list_price - discount_amount and amount >= 0 and period_days > 0)
);
--> statement-breakpoint
DROP INDEX "payments_order_attempt_key";--> statement-breakpoint
DROP INDEX "payments_order_pending_key";--> statement-breakpoint
ALTER TABLE "subscription_plans" ALTER COLUMN "max_products" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "payments" ALTER COLUMN "order_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "subscription_plans" ADD COLUMN "commission_discount_bps" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "subscription_plans" ADD COLUMN "features" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "subscription_plans" ADD COLUMN "is_public" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "subscription_plans" ADD COLUMN "sort_order" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "subscription_plans" ADD COLUMN "deleted_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "supplier_subscriptions" ADD COLUMN "cancel_at_period_end" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "supplier_subscriptions" ADD COLUMN "expiry_warned_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "subject_type" text DEFAULT 'order' NOT NULL;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "subject_id" uuid;--> statement-breakpoint
UPDATE "payments" SET "subject_id" = "order_id";--> statement-breakpoint
ALTER TABLE "payments" ALTER COLUMN "subject_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "promo_codes" ADD CONSTRAINT "promo_codes_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscription_charges" ADD CONSTRAINT "subscription_charges_supplier_id_supplier_profiles_id_fk" FOREIGN KEY ("supplier_id") REFERENCES "public"."supplier_profiles"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscription_charges" ADD CONSTRAINT "subscription_charges_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscription_charges" ADD CONSTRAINT "subscription_charges_plan_id_subscription_plans_id_fk" FOREIGN KEY ("plan_id") REFERENCES "public"."subscription_plans"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscription_charges" ADD CONSTRAINT "subscription_charges_subscription_id_supplier_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "public"."supplier_subscriptions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscription_charges" ADD CONSTRAINT "subscription_charges_promo_code_id_promo_codes_id_fk" FOREIGN KEY ("promo_code_id") REFERENCES "public"."promo_codes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "promo_codes_code_key" ON "promo_codes" USING btree (lower("code"));--> statement-breakpoint
CREATE INDEX "promo_codes_public_idx" ON "promo_codes" USING btree ("created_at") WHERE is_public and disabled_at is null;--> statement-breakpoint
CREATE UNIQUE INDEX "subscription_charges_pending_key" ON "subscription_charges" USING btree ("supplier_id") WHERE status = 'PENDING';--> statement-breakpoint
CREATE INDEX "subscription_charges_supplier_idx" ON "subscription_charges" USING btree ("supplier_id","created_at");--> statement-breakpoint
CREATE INDEX "subscription_charges_promo_idx" ON "subscription_charges" USING btree ("promo_code_id","supplier_id") WHERE promo_code_id is not null;--> statement-breakpoint
CREATE INDEX "supplier_subscriptions_ends_idx" ON "supplier_subscriptions" USING btree ("ends_at") WHERE status = 'ACTIVE' and ends_at is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "payments_subject_attempt_key" ON "payments" USING btree ("subject_type","subject_id","attempt");--> statement-breakpoint
CREATE UNIQUE INDEX "payments_subject_pending_key" ON "payments" USING btree ("subject_type","subject_id") WHERE status = 'PENDING';--> statement-breakpoint
ALTER TABLE "subscription_plans" ADD CONSTRAINT "subscription_plans_values" CHECK (price_amount >= 0 and (max_products is null or max_products >= 0) and commission_discount_bps between 0 and 10000 and (price_amount = 0 or period_days > 0));--> statement-breakpoint
ALTER TABLE "payments" ADD CONSTRAINT "payments_order_subject" CHECK (case when subject_type = 'order' then order_id is not null and order_id = subject_id else order_id is null end);