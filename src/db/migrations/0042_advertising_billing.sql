-- Advertising billed through the ledger: prepaid top-ups (a payment subject), impression batches applied once,
-- why the platform stopped a campaign, and what campaigns spent before spend was billed (never posted).
CREATE TABLE "ad_impression_batches" (
	"id" uuid PRIMARY KEY NOT NULL,
	"applied_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ad_topups" (
	"id" uuid PRIMARY KEY NOT NULL,
	"advertiser_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"status" text DEFAULT 'PENDING' NOT NULL,
	"amount" integer NOT NULL,
	"currency" text DEFAULT 'XOF' NOT NULL,
	"method" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"paid_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "ad_topups_amount" CHECK ("ad_topups"."amount" > 0)
);
--> statement-breakpoint
ALTER TABLE "ad_campaigns" ADD COLUMN "spent_unbilled" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "ad_campaigns" ADD COLUMN "stop_reason" text;--> statement-breakpoint
ALTER TABLE "ad_topups" ADD CONSTRAINT "ad_topups_advertiser_id_advertiser_profiles_id_fk" FOREIGN KEY ("advertiser_id") REFERENCES "public"."advertiser_profiles"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ad_topups" ADD CONSTRAINT "ad_topups_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "ad_topups_advertiser_idx" ON "ad_topups" USING btree ("advertiser_id","created_at");;--> statement-breakpoint
UPDATE "ad_campaigns" SET "spent_unbilled" = "spent";
