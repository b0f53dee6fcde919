CREATE TABLE "ad_campaign_daily" (
	"campaign_id" uuid NOT NULL,
	"day" date NOT NULL,
	"impressions" integer DEFAULT 0 NOT NULL,
	"clicks" integer DEFAULT 0 NOT NULL,
	"spend" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "ad_campaign_daily_campaign_id_day_pk" PRIMARY KEY("campaign_id","day")
);
--> statement-breakpoint
CREATE TABLE "ad_campaigns" (
	"id" uuid PRIMARY KEY NOT NULL,
	"advertiser_id" uuid NOT NULL,
	"name" text NOT NULL,
	"status" text DEFAULT 'DRAFT' NOT NULL,
	"title" text NOT NULL,
	"text" text DEFAULT '' NOT NULL,
	"image_key" text,
	"target_type" text NOT NULL,
	"target_id" uuid,
	"target_url" text,
	"placement" text NOT NULL,
	"cities" text[] DEFAULT '{}'::text[] NOT NULL,
	"latitude" double precision,
	"longitude" double precision,
	"radius_km" double precision,
	"categories" text[] DEFAULT '{}'::text[] NOT NULL,
	"starts_at" timestamp with time zone NOT NULL,
	"ends_at" timestamp with time zone NOT NULL,
	"total_budget" integer NOT NULL,
	"daily_budget" integer NOT NULL,
	"currency" text DEFAULT 'XOF' NOT NULL,
	"pricing_model" text NOT NULL,
	"bid" integer NOT NULL,
	"spent" integer DEFAULT 0 NOT NULL,
	"impressions" integer DEFAULT 0 NOT NULL,
	"clicks" integer DEFAULT 0 NOT NULL,
	"rejection_reason" text,
	"submitted_at" timestamp with time zone,
	"approved_at" timestamp with time zone,
	"completed_at" timestamp with time zone,
	"deleted_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "ad_campaigns_spent_within_budget" CHECK ("ad_campaigns"."spent" >= 0 AND "ad_campaigns"."spent" <= "ad_campaigns"."total_budget"),
	CONSTRAINT "ad_campaigns_budgets" CHECK ("ad_campaigns"."daily_budget" > 0 AND "ad_campaigns"."daily_budget" <= "ad_campaigns"."total_budget" AND "ad_campaigns"."bid" > 0)
);
--> statement-breakpoint
CREATE TABLE "ad_click_viewers" (
	"campaign_id" uuid NOT NULL,
	"viewer_key" text NOT NULL,
	"counted_at" timestamp with time zone NOT NULL,
	CONSTRAINT "ad_click_viewers_campaign_id_viewer_key_pk" PRIMARY KEY("campaign_id","viewer_key")
);
--> statement-breakpoint
CREATE TABLE "advertiser_profiles" (
	"id" uuid PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"company_name" text NOT NULL,
	"contact_name" text NOT NULL,
	"contact_email" text NOT NULL,
	"contact_phone" text NOT NULL,
	"website" text,
	"billing_address" text NOT NULL,
	"billing_tax_id" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "advertiser_profiles_user_id_unique" UNIQUE("user_id")
);
--> statement-breakpoint
ALTER TABLE "ad_campaign_daily" ADD CONSTRAINT "ad_campaign_daily_campaign_id_ad_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."ad_campaigns"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ad_campaigns" ADD CONSTRAINT "ad_campaigns_advertiser_id_advertiser_profiles_id_fk" FOREIGN KEY ("advertiser_id") REFERENCES "public"."advertiser_profiles"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ad_click_viewers" ADD CONSTRAINT "ad_click_viewers_campaign_id_ad_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."ad_campaigns"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "advertiser_profiles" ADD CONSTRAINT "advertiser_profiles_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "ad_campaigns_advertiser_idx" ON "ad_campaigns" USING btree ("advertiser_id","created_at");--> statement-breakpoint
CREATE INDEX "ad_campaigns_status_idx" ON "ad_campaigns" USING btree ("status","submitted_at");