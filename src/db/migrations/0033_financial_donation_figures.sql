-- Money donated per period (the impact report) reads paid financial donations by payment time, index-only.
CREATE INDEX IF NOT EXISTS "donations_paid_figures_idx" ON "donations" USING btree ("paid_at") INCLUDE ("amount", "currency") WHERE "kind" = 'FINANCIAL' AND "status" = 'PAID';
