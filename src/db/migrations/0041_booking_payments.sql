-- Deals paid in the app (docs/deals.md): a deal's payment mode, a booking's money (its payment, its state,
-- its frozen commission), a booking's payout, and the escrow accounts of bookings (booking_escrow:<id>)
-- counted with the orders' ones by the dashboard's open escrows.
ALTER TABLE "payouts" DROP CONSTRAINT "payouts_payee";--> statement-breakpoint
DROP INDEX "deal_bookings_store_code_key";--> statement-breakpoint
ALTER TABLE "payouts" ADD COLUMN "booking_id" uuid;--> statement-breakpoint
ALTER TABLE "deal_bookings" ADD COLUMN "payment_mode" text DEFAULT 'AT_COUNTER' NOT NULL;--> statement-breakpoint
ALTER TABLE "deal_bookings" ADD COLUMN "payment_status" text;--> statement-breakpoint
ALTER TABLE "deal_bookings" ADD COLUMN "payment_deadline" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "deal_bookings" ADD COLUMN "payment_id" uuid;--> statement-breakpoint
ALTER TABLE "deal_bookings" ADD COLUMN "commission_bps" integer;--> statement-breakpoint
ALTER TABLE "deal_bookings" ADD COLUMN "paid_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "deal_bookings" ADD COLUMN "released_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "deal_bookings" ADD COLUMN "refunded_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "deals" ADD COLUMN "payment_mode" text DEFAULT 'AT_COUNTER' NOT NULL;--> statement-breakpoint
ALTER TABLE "payouts" ADD CONSTRAINT "payouts_booking_id_deal_bookings_id_fk" FOREIGN KEY ("booking_id") REFERENCES "public"."deal_bookings"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deal_bookings" ADD CONSTRAINT "deal_bookings_payment_id_payments_id_fk" FOREIGN KEY ("payment_id") REFERENCES "public"."payments"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "deal_bookings_unpaid_idx" ON "deal_bookings" USING btree ("payment_deadline") WHERE status = 'PENDING_PAYMENT';--> statement-breakpoint
CREATE UNIQUE INDEX "deal_bookings_store_code_key" ON "deal_bookings" USING btree ("store_id","code") WHERE status in ('CONFIRMED', 'PENDING_PAYMENT');--> statement-breakpoint
ALTER TABLE "payouts" ADD CONSTRAINT "payouts_payee" CHECK ((supplier_id is not null and num_nonnulls(order_id, booking_id) = 1 and association_id is null and donation_id is null) or (supplier_id is null and order_id is null and booking_id is null and association_id is not null and donation_id is not null));--> statement-breakpoint
ALTER TABLE "deal_bookings" ADD CONSTRAINT "deal_bookings_payment" CHECK (case when payment_mode = 'IN_APP' then payment_status is not null and payment_deadline is not null and commission_bps is not null else payment_status is null end);--> statement-breakpoint
ALTER TABLE "deals" ADD CONSTRAINT "deals_payment_mode" CHECK (payment_mode in ('AT_COUNTER', 'IN_APP'));--> statement-breakpoint
DROP TRIGGER "ledger_lines_open_escrows" ON "ledger_lines";--> statement-breakpoint
CREATE TRIGGER "ledger_lines_open_escrows" AFTER INSERT ON "ledger_lines"
  FOR EACH ROW WHEN (NEW.account LIKE 'escrow:%' OR NEW.account LIKE 'booking_escrow:%') EXECUTE FUNCTION ledger_track_open_escrow();
