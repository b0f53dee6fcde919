-- What a request made with its Idempotency-Key (an order's id...), written in its business transaction:
-- the same request retried after its process died before answering answers it instead of making it again.
ALTER TABLE "idempotency_keys" ADD COLUMN "made" text;
