CREATE TABLE "kyc_attempts" (
	"id" uuid PRIMARY KEY NOT NULL,
	"supplier_id" uuid NOT NULL,
	"submitted_by" uuid NOT NULL,
	"status" text DEFAULT 'PENDING' NOT NULL,
	"document_type" text,
	"business_registration_number" text,
	"submitted_at" timestamp with time zone NOT NULL,
	"reviewer_id" uuid,
	"reviewed_at" timestamp with time zone,
	"review_reason" text,
	"first_reviewed_at" timestamp with time zone,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "kyc_documents" (
	"id" uuid PRIMARY KEY NOT NULL,
	"attempt_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"storage_key" text NOT NULL,
	"content_type" text NOT NULL,
	"size_bytes" integer NOT NULL,
	"sha256" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "kyc_attempts" ADD CONSTRAINT "kyc_attempts_supplier_id_supplier_profiles_id_fk" FOREIGN KEY ("supplier_id") REFERENCES "public"."supplier_profiles"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "kyc_attempts" ADD CONSTRAINT "kyc_attempts_submitted_by_users_id_fk" FOREIGN KEY ("submitted_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "kyc_attempts" ADD CONSTRAINT "kyc_attempts_reviewer_id_users_id_fk" FOREIGN KEY ("reviewer_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "kyc_documents" ADD CONSTRAINT "kyc_documents_attempt_id_kyc_attempts_id_fk" FOREIGN KEY ("attempt_id") REFERENCES "public"."kyc_attempts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "kyc_attempts_one_pending_key" ON "kyc_attempts" USING btree ("supplier_id") WHERE status = 'PENDING';--> statement-breakpoint
CREATE INDEX "kyc_attempts_supplier_idx" ON "kyc_attempts" USING btree ("supplier_id","submitted_at");--> statement-breakpoint
CREATE INDEX "kyc_attempts_status_idx" ON "kyc_attempts" USING btree ("status","submitted_at");--> statement-breakpoint
CREATE UNIQUE INDEX "kyc_documents_attempt_kind_key" ON "kyc_documents" USING btree ("attempt_id","kind");--> statement-breakpoint
CREATE UNIQUE INDEX "kyc_documents_storage_key" ON "kyc_documents" USING btree ("storage_key");