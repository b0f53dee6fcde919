CREATE TABLE "ledger_open_escrows" (
	"account" text PRIMARY KEY NOT NULL,
	"currency" char(3) NOT NULL,
	"balance" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "order_daily_collected" (
	"day" date NOT NULL,
	"shard" smallint NOT NULL,
	"orders" integer NOT NULL,
	"weight_grams" bigint NOT NULL,
	CONSTRAINT "order_daily_collected_day_shard_pk" PRIMARY KEY("day","shard")
);
--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "items_weight_grams" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "users_role_status_idx" ON "users" USING btree ("role","status");--> statement-breakpoint
-- Orders made before the weight was frozen onto them: the weight their products have now.
UPDATE "orders" o SET "items_weight_grams" = w.grams
  FROM (SELECT i.order_id, sum(i.quantity * p.unit_weight_grams)::int AS grams FROM "order_items" i JOIN "products" p ON p.id = i.product_id GROUP BY i.order_id) w
  WHERE w.order_id = o.id;
--> statement-breakpoint
-- The dashboard's and impact's figures over time windows read these indexes alone (index-only
-- scans: every column they need is in the index), so a window costs the orders in it, never the
-- whole table (docs/analytics.md).
CREATE INDEX "orders_created_figures_idx" ON "orders" USING btree ("created_at") INCLUDE ("status", "items_total", "currency");
--> statement-breakpoint
CREATE INDEX "orders_paid_figures_idx" ON "orders" USING btree ("paid_at") INCLUDE ("items_total", "currency") WHERE "paid_at" IS NOT NULL;
--> statement-breakpoint
CREATE INDEX "orders_completed_figures_idx" ON "orders" USING btree ("completed_at") INCLUDE ("items_weight_grams", "currency") WHERE "status" = 'COMPLETED';
--> statement-breakpoint
-- Commission (and any one account's movements) over a window.
CREATE INDEX "ledger_lines_account_created_idx" ON "ledger_lines" USING btree ("account", "created_at") INCLUDE ("amount", "currency");
--> statement-breakpoint
CREATE FUNCTION ledger_track_open_escrow() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  left_over bigint;
BEGIN
  INSERT INTO ledger_open_escrows AS e (account, currency, balance) VALUES (NEW.account, NEW.currency, NEW.amount)
    ON CONFLICT (account) DO UPDATE SET balance = e.balance + EXCLUDED.balance
    RETURNING e.balance INTO left_over;
  IF left_over = 0 THEN
    DELETE FROM ledger_open_escrows WHERE account = NEW.account;
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER ledger_lines_open_escrows AFTER INSERT ON ledger_lines
  FOR EACH ROW WHEN (NEW.account LIKE 'escrow:%') EXECUTE FUNCTION ledger_track_open_escrow();
--> statement-breakpoint
INSERT INTO "ledger_open_escrows" ("account", "currency", "balance")
  SELECT account, min(currency), sum(amount) FROM "ledger_lines" WHERE account LIKE 'escrow:%' GROUP BY account HAVING sum(amount) <> 0;
--> statement-breakpoint
CREATE FUNCTION orders_roll_up_collected() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO order_daily_collected AS d (day, shard, orders, weight_grams)
    VALUES ((NEW.completed_at AT TIME ZONE 'UTC')::date, hashtext(NEW.id::text) & 15, 1, NEW.items_weight_grams)
    ON CONFLICT (day, shard) DO UPDATE SET orders = d.orders + 1, weight_grams = d.weight_grams + EXCLUDED.weight_grams;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER orders_collected_roll_up AFTER UPDATE OF status ON orders
  FOR EACH ROW WHEN (NEW.status = 'COMPLETED' AND OLD.status IS DISTINCT FROM 'COMPLETED') EXECUTE FUNCTION orders_roll_up_collected();
--> statement-breakpoint
INSERT INTO "order_daily_collected" ("day", "shard", "orders", "weight_grams")
  SELECT (completed_at AT TIME ZONE 'UTC')::date, hashtext(id::text) & 15, count(*), sum(items_weight_grams) FROM "orders"
  WHERE status = 'COMPLETED' GROUP BY 1, 2;
