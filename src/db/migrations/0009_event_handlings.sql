CREATE TABLE "event_handlings" (
	"event_id" uuid NOT NULL,
	"handler" text NOT NULL,
	"handled_at" timestamp with time zone NOT NULL,
	CONSTRAINT "event_handlings_event_id_handler_pk" PRIMARY KEY("event_id","handler")
);
