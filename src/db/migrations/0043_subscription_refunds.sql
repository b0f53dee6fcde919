-- Refunds of subscription payments: a charge remembers the subscription its payment started or extended, so a
-- refund takes that period back. Charges paid before: the subscription started when the charge was paid (a new
-- plan, or a renewal paid after its period), else the one its renewal extended.
ALTER TABLE "subscription_charges" ADD COLUMN "applied_subscription_id" uuid;--> statement-breakpoint
ALTER TABLE "subscription_charges" ADD COLUMN "refunded_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "subscription_charges" ADD CONSTRAINT "subscription_charges_applied_subscription_id_supplier_subscriptions_id_fk" FOREIGN KEY ("applied_subscription_id") REFERENCES "public"."supplier_subscriptions"("id") ON DELETE no action ON UPDATE no action;;--> statement-breakpoint
UPDATE "subscription_charges" c SET "applied_subscription_id" = coalesce(
  (SELECT s.id FROM "supplier_subscriptions" s WHERE s.supplier_id = c.supplier_id AND s.started_at = c.paid_at ORDER BY s.id LIMIT 1),
  c.subscription_id)
WHERE c.status = 'PAID';
