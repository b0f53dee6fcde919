CREATE TABLE "donation_document_counters" (
	"kind" text NOT NULL,
	"year" integer NOT NULL,
	"last" integer NOT NULL,
	CONSTRAINT "donation_document_counters_kind_year_pk" PRIMARY KEY("kind","year")
);
--> statement-breakpoint
CREATE TABLE "donation_documents" (
	"id" uuid PRIMARY KEY NOT NULL,
	"donation_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"year" integer NOT NULL,
	"sequence" integer NOT NULL,
	"number" text NOT NULL,
	"code" text NOT NULL,
	"storage_key" text NOT NULL,
	"size_bytes" integer NOT NULL,
	"issued_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "payouts" ALTER COLUMN "supplier_id" DROP NOT NULL;
--> statement-breakpoint
ALTER TABLE "payouts" ALTER COLUMN "order_id" DROP NOT NULL;
--> statement-breakpoint
ALTER TABLE "payouts" ADD COLUMN "association_id" uuid;
--> statement-breakpoint
ALTER TABLE "payouts" ADD COLUMN "donation_id" uuid;
--> statement-breakpoint
ALTER TABLE "donations" ADD COLUMN "anonymous" boolean DEFAULT false NOT NULL;
--> statement-breakpoint
ALTER TABLE "donations" ADD COLUMN "paid_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "donation_documents" ADD CONSTRAINT "donation_documents_donation_id_donations_id_fk" FOREIGN KEY ("donation_id") REFERENCES "public"."donations"("id") ON DELETE no action ON UPDATE no action;
--> statement-breakpoint
CREATE UNIQUE INDEX "donation_documents_donation_key" ON "donation_documents" USING btree ("donation_id","kind");
--> statement-breakpoint
CREATE UNIQUE INDEX "donation_documents_number_key" ON "donation_documents" USING btree ("kind","year","sequence");
--> statement-breakpoint
CREATE UNIQUE INDEX "donation_documents_code_key" ON "donation_documents" USING btree ("code");
--> statement-breakpoint
ALTER TABLE "payouts" ADD CONSTRAINT "payouts_association_id_associations_id_fk" FOREIGN KEY ("association_id") REFERENCES "public"."associations"("id") ON DELETE no action ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "payouts" ADD CONSTRAINT "payouts_donation_id_donations_id_fk" FOREIGN KEY ("donation_id") REFERENCES "public"."donations"("id") ON DELETE no action ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "payouts_association_idx" ON "payouts" USING btree ("association_id","state");
--> statement-breakpoint
ALTER TABLE "payouts" ADD CONSTRAINT "payouts_payee" CHECK ((supplier_id is not null and order_id is not null and association_id is null and donation_id is null) or (supplier_id is null and order_id is null and association_id is not null and donation_id is not null));
