CREATE TABLE "admin_actions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"actor_id" uuid NOT NULL,
	"action" text NOT NULL,
	"target_type" text NOT NULL,
	"target_id" uuid NOT NULL,
	"reason" text,
	"data" jsonb,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "supplier_profiles" (
	"id" uuid PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"business_name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"category" text NOT NULL,
	"contact_phone" text,
	"contact_email" text,
	"address" text NOT NULL,
	"city" text NOT NULL,
	"latitude" double precision NOT NULL,
	"longitude" double precision NOT NULL,
	"logo_key" text,
	"payout_phone" text,
	"opening_hours" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"timezone" text DEFAULT 'Africa/Dakar' NOT NULL,
	"verification_status" text DEFAULT 'PENDING' NOT NULL,
	"rejection_reason" text,
	"verified_at" timestamp with time zone,
	"kyc_status" text DEFAULT 'NOT_SUBMITTED' NOT NULL,
	"commission_rate_bps" integer NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "admin_actions" ADD CONSTRAINT "admin_actions_actor_id_users_id_fk" FOREIGN KEY ("actor_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "supplier_profiles" ADD CONSTRAINT "supplier_profiles_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "admin_actions_target_idx" ON "admin_actions" USING btree ("target_type","target_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "supplier_profiles_user_key" ON "supplier_profiles" USING btree ("user_id") WHERE deleted_at is null;--> statement-breakpoint
CREATE INDEX "supplier_profiles_status_idx" ON "supplier_profiles" USING btree ("verification_status","created_at");--> statement-breakpoint
CREATE INDEX "supplier_profiles_kyc_idx" ON "supplier_profiles" USING btree ("kyc_status","updated_at");