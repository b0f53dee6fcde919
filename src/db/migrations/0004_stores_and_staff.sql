CREATE TABLE "staff_invitations" (
	"id" uuid PRIMARY KEY NOT NULL,
	"store_id" uuid NOT NULL,
	"invited_by" uuid NOT NULL,
	"phone_number" text,
	"email" text,
	"role" text NOT NULL,
	"token_hash" text NOT NULL,
	"status" text DEFAULT 'PENDING' NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"responded_at" timestamp with time zone,
	"responded_by" uuid,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "staff_invitations_one_contact" CHECK ((phone_number is null) <> (email is null))
);
--> statement-breakpoint
CREATE TABLE "store_members" (
	"id" uuid PRIMARY KEY NOT NULL,
	"store_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"role" text NOT NULL,
	"invitation_id" uuid,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"removed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "stores" (
	"id" uuid PRIMARY KEY NOT NULL,
	"supplier_id" uuid NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"address" text NOT NULL,
	"city" text NOT NULL,
	"latitude" double precision NOT NULL,
	"longitude" double precision NOT NULL,
	"phone" text,
	"opening_hours" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"timezone" text DEFAULT 'Africa/Dakar' NOT NULL,
	"pickup_instructions" text,
	"is_active" boolean DEFAULT true NOT NULL,
	"closure_starts_at" timestamp with time zone,
	"closure_ends_at" timestamp with time zone,
	"closure_reason" text,
	"search_text" text GENERATED ALWAYS AS (lower(name || ' ' || description || ' ' || city)) STORED,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "staff_invitations" ADD CONSTRAINT "staff_invitations_store_id_stores_id_fk" FOREIGN KEY ("store_id") REFERENCES "public"."stores"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "staff_invitations" ADD CONSTRAINT "staff_invitations_invited_by_users_id_fk" FOREIGN KEY ("invited_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "staff_invitations" ADD CONSTRAINT "staff_invitations_responded_by_users_id_fk" FOREIGN KEY ("responded_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "store_members" ADD CONSTRAINT "store_members_store_id_stores_id_fk" FOREIGN KEY ("store_id") REFERENCES "public"."stores"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "store_members" ADD CONSTRAINT "store_members_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "store_members" ADD CONSTRAINT "store_members_invitation_id_staff_invitations_id_fk" FOREIGN KEY ("invitation_id") REFERENCES "public"."staff_invitations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "stores" ADD CONSTRAINT "stores_supplier_id_supplier_profiles_id_fk" FOREIGN KEY ("supplier_id") REFERENCES "public"."supplier_profiles"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "staff_invitations_token_key" ON "staff_invitations" USING btree ("token_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "staff_invitations_pending_phone_key" ON "staff_invitations" USING btree ("store_id","phone_number") WHERE status = 'PENDING';--> statement-breakpoint
CREATE UNIQUE INDEX "staff_invitations_pending_email_key" ON "staff_invitations" USING btree ("store_id","email") WHERE status = 'PENDING';--> statement-breakpoint
CREATE INDEX "staff_invitations_phone_idx" ON "staff_invitations" USING btree ("phone_number") WHERE status = 'PENDING';--> statement-breakpoint
CREATE INDEX "staff_invitations_email_idx" ON "staff_invitations" USING btree ("email") WHERE status = 'PENDING';--> statement-breakpoint
CREATE INDEX "staff_invitations_store_idx" ON "staff_invitations" USING btree ("store_id","status");--> statement-breakpoint
CREATE UNIQUE INDEX "store_members_store_user_key" ON "store_members" USING btree ("store_id","user_id") WHERE removed_at is null;--> statement-breakpoint
CREATE INDEX "store_members_user_idx" ON "store_members" USING btree ("user_id") WHERE removed_at is null;--> statement-breakpoint
CREATE INDEX "stores_supplier_idx" ON "stores" USING btree ("supplier_id","created_at") WHERE deleted_at is null;--> statement-breakpoint
CREATE INDEX "stores_city_idx" ON "stores" USING btree (lower(city)) WHERE deleted_at is null;--> statement-breakpoint
CREATE INDEX "stores_location_idx" ON "stores" USING gist (ll_to_earth(latitude, longitude));--> statement-breakpoint
CREATE INDEX "stores_search_trgm_idx" ON "stores" USING gin ("search_text" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "stores_search_fts_idx" ON "stores" USING gin (to_tsvector('simple', search_text));