DROP INDEX "products_status_idx";--> statement-breakpoint
CREATE INDEX "users_last_name_order_idx" ON "users" USING btree (lower(f_unaccent("last_name") collate "C"),"id");--> statement-breakpoint
CREATE INDEX "products_created_idx" ON "products" USING btree ("created_at","id") WHERE status <> 'DELETED';--> statement-breakpoint
CREATE INDEX "products_name_order_idx" ON "products" USING btree (lower(f_unaccent("name") collate "C"),"id") WHERE status <> 'DELETED';--> statement-breakpoint
CREATE INDEX "escrows_held_idx" ON "escrows" USING btree ("held_at","order_id");--> statement-breakpoint
CREATE INDEX "escrows_amount_idx" ON "escrows" USING btree ("amount","order_id");--> statement-breakpoint
CREATE INDEX "products_status_idx" ON "products" USING btree ("status","created_at","id");