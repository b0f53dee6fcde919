-- A booking remembers its client's Idempotency-Key: a retry with it waits at the insert for the first run (as an
-- order does). Nullable column (no rewrite); the partial index holds keyed bookings only, built in about a tenth
-- of a second per 100,000 bookings while writes to deal_bookings wait.
ALTER TABLE "deal_bookings" ADD COLUMN "idempotency_key" text;--> statement-breakpoint
CREATE UNIQUE INDEX "deal_bookings_client_idempotency_key" ON "deal_bookings" USING btree ("client_id","idempotency_key") WHERE idempotency_key is not null;
