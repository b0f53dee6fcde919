CREATE TABLE "product_activity_daily" (
	"product_id" uuid NOT NULL,
	"day" date NOT NULL,
	"views" integer DEFAULT 0 NOT NULL,
	"favourites" integer DEFAULT 0 NOT NULL,
	"sales" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "product_activity_daily_product_id_day_pk" PRIMARY KEY("product_id","day")
);
--> statement-breakpoint
CREATE TABLE "product_searches" (
	"day" date NOT NULL,
	"query" text NOT NULL,
	"searches" integer DEFAULT 0 NOT NULL,
	"zero_result_searches" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "product_searches_day_query_pk" PRIMARY KEY("day","query")
);
--> statement-breakpoint
ALTER TABLE "product_activity_daily" ADD CONSTRAINT "product_activity_daily_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "product_activity_daily_day_idx" ON "product_activity_daily" USING btree ("day");