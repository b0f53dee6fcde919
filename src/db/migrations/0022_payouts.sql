CREATE TABLE "payouts" (
	"id" uuid PRIMARY KEY NOT NULL,
	"supplier_id" uuid NOT NULL,
	"order_id" uuid NOT NULL,
	"release_transaction_id" uuid NOT NULL,
	"amount" integer NOT NULL,
	"currency" text NOT NULL,
	"mobile" text,
	"state" text DEFAULT 'PENDING' NOT NULL,
	"waiting_reason" text,
	"provider_payout_id" text,
	"generation" integer DEFAULT 0 NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"sent_at" timestamp with time zone,
	"succeeded_at" timestamp with time zone,
	"failed_at" timestamp with time zone,
	CONSTRAINT "payouts_amount" CHECK (amount > 0 and attempts >= 0 and generation >= 0),
	CONSTRAINT "payouts_state" CHECK (state in ('PENDING', 'PROCESSING', 'SUCCEEDED', 'FAILED'))
);
--> statement-breakpoint
ALTER TABLE "payouts" ADD CONSTRAINT "payouts_supplier_id_supplier_profiles_id_fk" FOREIGN KEY ("supplier_id") REFERENCES "public"."supplier_profiles"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payouts" ADD CONSTRAINT "payouts_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "payouts_release_key" ON "payouts" USING btree ("release_transaction_id");--> statement-breakpoint
CREATE UNIQUE INDEX "payouts_provider_key" ON "payouts" USING btree ("provider_payout_id");--> statement-breakpoint
CREATE INDEX "payouts_supplier_idx" ON "payouts" USING btree ("supplier_id","state");--> statement-breakpoint
CREATE INDEX "payouts_order_idx" ON "payouts" USING btree ("order_id");--> statement-breakpoint
CREATE INDEX "ledger_lines_created_idx" ON "ledger_lines" USING btree ("created_at");