-- Text search with typo tolerance (pg_trgm) and distance on the Earth's surface (cube + earthdistance).
-- Installed in public so every schema on the search path sees them.
CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;--> statement-breakpoint
CREATE EXTENSION IF NOT EXISTS cube WITH SCHEMA public;--> statement-breakpoint
CREATE EXTENSION IF NOT EXISTS earthdistance WITH SCHEMA public;
