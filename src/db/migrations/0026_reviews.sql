CREATE TABLE "review_helpful_votes" (
	"review_id" uuid NOT NULL,
	"voter_key" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "review_helpful_votes_review_id_voter_key_pk" PRIMARY KEY("review_id","voter_key")
);
--> statement-breakpoint
CREATE TABLE "review_images" (
	"id" uuid PRIMARY KEY NOT NULL,
	"review_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"thumbnail_key" text NOT NULL,
	"large_key" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "review_reports" (
	"id" uuid PRIMARY KEY NOT NULL,
	"review_id" uuid NOT NULL,
	"reporter_id" uuid NOT NULL,
	"reason" text NOT NULL,
	"comment" text,
	"created_at" timestamp with time zone NOT NULL,
	"closed_at" timestamp with time zone,
	"closed_by" uuid
);
--> statement-breakpoint
CREATE TABLE "review_summaries" (
	"target_id" uuid PRIMARY KEY NOT NULL,
	"review_count" integer DEFAULT 0 NOT NULL,
	"rating_sum" integer DEFAULT 0 NOT NULL,
	"stars_1" integer DEFAULT 0 NOT NULL,
	"stars_2" integer DEFAULT 0 NOT NULL,
	"stars_3" integer DEFAULT 0 NOT NULL,
	"stars_4" integer DEFAULT 0 NOT NULL,
	"stars_5" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "review_summaries_consistent" CHECK (stars_1 >= 0 and stars_2 >= 0 and stars_3 >= 0 and stars_4 >= 0 and stars_5 >= 0
        and review_count = stars_1 + stars_2 + stars_3 + stars_4 + stars_5
        and rating_sum = stars_1 + 2 * stars_2 + 3 * stars_3 + 4 * stars_4 + 5 * stars_5)
);
--> statement-breakpoint
CREATE TABLE "reviews" (
	"id" uuid PRIMARY KEY NOT NULL,
	"author_id" uuid NOT NULL,
	"author_name" text NOT NULL,
	"target_type" text NOT NULL,
	"target_id" uuid NOT NULL,
	"product_id" uuid,
	"supplier_id" uuid NOT NULL,
	"rating" smallint NOT NULL,
	"title" text,
	"comment" text,
	"helpful_count" integer DEFAULT 0 NOT NULL,
	"hidden" boolean DEFAULT false NOT NULL,
	"open_reports" integer DEFAULT 0 NOT NULL,
	"reply" text,
	"replied_at" timestamp with time zone,
	"replied_by" uuid,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "reviews_rating" CHECK (rating between 1 and 5),
	CONSTRAINT "reviews_target" CHECK ((target_type = 'PRODUCT' and product_id = target_id) or (target_type = 'SUPPLIER' and product_id is null and supplier_id = target_id)),
	CONSTRAINT "reviews_counters" CHECK (helpful_count >= 0 and open_reports >= 0)
);
--> statement-breakpoint
ALTER TABLE "supplier_profiles" ADD COLUMN "rating_average" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "supplier_profiles" ADD COLUMN "rating_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "review_helpful_votes" ADD CONSTRAINT "review_helpful_votes_review_id_reviews_id_fk" FOREIGN KEY ("review_id") REFERENCES "public"."reviews"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "review_images" ADD CONSTRAINT "review_images_review_id_reviews_id_fk" FOREIGN KEY ("review_id") REFERENCES "public"."reviews"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "review_reports" ADD CONSTRAINT "review_reports_review_id_reviews_id_fk" FOREIGN KEY ("review_id") REFERENCES "public"."reviews"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "review_reports" ADD CONSTRAINT "review_reports_reporter_id_users_id_fk" FOREIGN KEY ("reporter_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "review_reports" ADD CONSTRAINT "review_reports_closed_by_users_id_fk" FOREIGN KEY ("closed_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reviews" ADD CONSTRAINT "reviews_author_id_users_id_fk" FOREIGN KEY ("author_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reviews" ADD CONSTRAINT "reviews_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reviews" ADD CONSTRAINT "reviews_supplier_id_supplier_profiles_id_fk" FOREIGN KEY ("supplier_id") REFERENCES "public"."supplier_profiles"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reviews" ADD CONSTRAINT "reviews_replied_by_users_id_fk" FOREIGN KEY ("replied_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "review_images_position_key" ON "review_images" USING btree ("review_id","position");--> statement-breakpoint
CREATE UNIQUE INDEX "review_reports_reporter_key" ON "review_reports" USING btree ("review_id","reporter_id");--> statement-breakpoint
CREATE INDEX "review_reports_open_idx" ON "review_reports" USING btree ("review_id") WHERE closed_at is null;--> statement-breakpoint
CREATE UNIQUE INDEX "reviews_author_target_key" ON "reviews" USING btree ("author_id","target_id");--> statement-breakpoint
CREATE INDEX "reviews_author_idx" ON "reviews" USING btree ("author_id","created_at");--> statement-breakpoint
CREATE INDEX "reviews_target_newest_idx" ON "reviews" USING btree ("target_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST) WHERE not hidden;--> statement-breakpoint
CREATE INDEX "reviews_target_highest_idx" ON "reviews" USING btree ("target_id","rating" DESC NULLS LAST,"created_at" DESC NULLS LAST,"id" DESC NULLS LAST) WHERE not hidden;--> statement-breakpoint
CREATE INDEX "reviews_target_lowest_idx" ON "reviews" USING btree ("target_id","rating","created_at" DESC NULLS LAST,"id" DESC NULLS LAST) WHERE not hidden;--> statement-breakpoint
CREATE INDEX "reviews_target_helpful_idx" ON "reviews" USING btree ("target_id","helpful_count" DESC NULLS LAST,"created_at" DESC NULLS LAST,"id" DESC NULLS LAST) WHERE not hidden;--> statement-breakpoint
CREATE INDEX "reviews_reported_idx" ON "reviews" USING btree ("open_reports","created_at") WHERE open_reports > 0;