CREATE TABLE "provider_events" (
	"id" text PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"payload" jsonb NOT NULL,
	"payment_id" uuid,
	"outcome" text NOT NULL,
	"received_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "escrows" (
	"order_id" uuid PRIMARY KEY NOT NULL,
	"payment_id" uuid NOT NULL,
	"state" text DEFAULT 'HELD' NOT NULL,
	"amount" integer NOT NULL,
	"currency" text NOT NULL,
	"held_at" timestamp with time zone NOT NULL,
	"release_after" timestamp with time zone,
	"released_at" timestamp with time zone,
	"refunded_at" timestamp with time zone,
	"refund_reason" text,
	"dispute_reason" text,
	"dispute_opened_at" timestamp with time zone,
	"dispute_resolved_at" timestamp with time zone,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "escrows_amount" CHECK (amount > 0),
	CONSTRAINT "escrows_state" CHECK (state in ('HELD', 'RELEASED', 'REFUNDED', 'DISPUTED', 'RESOLVED_SUPPLIER', 'RESOLVED_CLIENT'))
);
--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "refunded_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "refund_failed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "refund_failure_reason" text;--> statement-breakpoint
ALTER TABLE "escrows" ADD CONSTRAINT "escrows_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "escrows" ADD CONSTRAINT "escrows_payment_id_payments_id_fk" FOREIGN KEY ("payment_id") REFERENCES "public"."payments"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "provider_events_payment_idx" ON "provider_events" USING btree ("payment_id","received_at");--> statement-breakpoint
CREATE INDEX "escrows_release_idx" ON "escrows" USING btree ("release_after") WHERE state = 'HELD' and release_after is not null;--> statement-breakpoint
CREATE INDEX "escrows_state_idx" ON "escrows" USING btree ("state","updated_at");--> statement-breakpoint
CREATE INDEX "payments_open_idx" ON "payments" USING btree ("created_at") WHERE status in ('PENDING', 'FAILED');--> statement-breakpoint
CREATE INDEX "payments_refund_failed_idx" ON "payments" USING btree ("refund_failed_at") WHERE refund_failed_at is not null;