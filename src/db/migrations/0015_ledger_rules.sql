-- The ledger's rules, enforced by the database itself so that no code path (nor a hand-typed
-- statement) can break them: lines are never zero, every line has its transaction's currency,
-- a transaction has at least two lines summing to zero (checked at commit, once all its lines
-- are in), and nothing is ever updated or deleted (a correction is a new, reversing transaction).
ALTER TABLE "ledger_lines" ADD CONSTRAINT "ledger_lines_amount_not_zero" CHECK ("amount" <> 0);
--> statement-breakpoint
ALTER TABLE "ledger_transactions" ADD CONSTRAINT "ledger_transactions_currency_format" CHECK ("currency" ~ '^[A-Z]{3}$');
--> statement-breakpoint
CREATE FUNCTION ledger_check_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  tx_id uuid;
  tx_currency char(3);
  n integer;
  total numeric;
  odd_currency integer;
BEGIN
  IF TG_TABLE_NAME = 'ledger_transactions' THEN tx_id := NEW.id; ELSE tx_id := NEW.transaction_id; END IF;
  SELECT currency INTO tx_currency FROM ledger_transactions WHERE id = tx_id;
  SELECT count(*), coalesce(sum(amount), 0), count(*) FILTER (WHERE currency <> tx_currency)
    INTO n, total, odd_currency FROM ledger_lines WHERE transaction_id = tx_id;
  IF n < 2 THEN
    RAISE EXCEPTION 'ledger transaction % has % line(s); at least 2 are required', tx_id, n USING ERRCODE = 'check_violation';
  END IF;
  IF total <> 0 THEN
    RAISE EXCEPTION 'ledger transaction % does not balance: its lines sum to %', tx_id, total USING ERRCODE = 'check_violation';
  END IF;
  IF odd_currency > 0 THEN
    RAISE EXCEPTION 'ledger transaction % has lines in another currency than %', tx_id, tx_currency USING ERRCODE = 'check_violation';
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER ledger_transactions_balanced AFTER INSERT ON ledger_transactions
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ledger_check_balanced();
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER ledger_lines_balanced AFTER INSERT ON ledger_lines
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ledger_check_balanced();
--> statement-breakpoint
CREATE FUNCTION ledger_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'the ledger is append-only: % on % is refused', TG_OP, TG_TABLE_NAME USING ERRCODE = 'insufficient_privilege';
END;
$$;
--> statement-breakpoint
CREATE TRIGGER ledger_transactions_append_only BEFORE UPDATE OR DELETE ON ledger_transactions
  FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();
--> statement-breakpoint
CREATE TRIGGER ledger_lines_append_only BEFORE UPDATE OR DELETE ON ledger_lines
  FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();
--> statement-breakpoint
CREATE TRIGGER ledger_transactions_no_truncate BEFORE TRUNCATE ON ledger_transactions
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_change();
--> statement-breakpoint
CREATE TRIGGER ledger_lines_no_truncate BEFORE TRUNCATE ON ledger_lines
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_change();
