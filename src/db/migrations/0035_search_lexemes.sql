-- The words of product names and descriptions as the search stores them (docs/product-search.md): a
-- word found here as typed is not taken for a misspelling. "C" collation: a prefix is a range of the key.
CREATE TABLE "product_search_lexemes" (
	"lexeme" text COLLATE "C" PRIMARY KEY NOT NULL
);--> statement-breakpoint
-- New words only; in the words' order, so that two transactions adding the same new words wait for one
-- another instead of locking each other out.
CREATE OR REPLACE FUNCTION public.products_add_search_lexemes() RETURNS trigger
  LANGUAGE plpgsql
  AS $$ BEGIN
    INSERT INTO public.product_search_lexemes (lexeme)
      SELECT l FROM unnest(tsvector_to_array(NEW.search_vector)) AS l ORDER BY l COLLATE "C"
      ON CONFLICT DO NOTHING;
    RETURN NULL;
  END $$;--> statement-breakpoint
CREATE TRIGGER products_search_lexemes AFTER INSERT OR UPDATE OF name, search_document ON products
  FOR EACH ROW EXECUTE FUNCTION public.products_add_search_lexemes();--> statement-breakpoint
INSERT INTO product_search_lexemes (lexeme)
  SELECT DISTINCT unnest(tsvector_to_array(search_vector)) FROM products ON CONFLICT DO NOTHING;
