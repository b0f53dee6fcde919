CREATE TABLE "platform_setting_changes" (
	"id" uuid PRIMARY KEY NOT NULL,
	"key" text NOT NULL,
	"old_value" jsonb NOT NULL,
	"new_value" jsonb NOT NULL,
	"actor_id" uuid NOT NULL,
	"reason" text,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "platform_settings" (
	"key" text PRIMARY KEY NOT NULL,
	"value" jsonb NOT NULL,
	"updated_by" uuid NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "platform_setting_changes" ADD CONSTRAINT "platform_setting_changes_actor_id_users_id_fk" FOREIGN KEY ("actor_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "platform_settings" ADD CONSTRAINT "platform_settings_updated_by_users_id_fk" FOREIGN KEY ("updated_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "platform_setting_changes_created_idx" ON "platform_setting_changes" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "platform_setting_changes_key_idx" ON "platform_setting_changes" USING btree ("key","created_at");--> statement-breakpoint
CREATE INDEX "platform_setting_changes_actor_idx" ON "platform_setting_changes" USING btree ("actor_id","created_at");