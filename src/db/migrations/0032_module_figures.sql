-- The impact report reads collected food per period over long ranges (a year by month): these
-- partial covering indexes hold only the bookings used at the counter and the food donations
-- collected, by the time they were, with every column the sum needs (index-only scans), so a range
-- costs what was collected in it, never the whole tables (docs/analytics.md).
CREATE INDEX "deal_bookings_used_figures_idx" ON "deal_bookings" USING btree ("used_at") INCLUDE ("deal_id", "quantity") WHERE "status" = 'USED';
--> statement-breakpoint
CREATE INDEX "donations_collected_figures_idx" ON "donations" USING btree ("collected_at") INCLUDE ("total_weight_grams") WHERE "kind" = 'FOOD' AND "status" = 'COLLECTED';
