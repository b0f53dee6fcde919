/**
 * Every domain event: its name (`<domain>.<past_tense>`) and payload. Payloads carry ids, not
 * copies of records: a handler loads what it needs, as it is when the handler runs.
 * `docs/events.md` lists them with their subscribers; test/events-doc.test.ts holds it to this file.
 */
export interface DomainEvents {
  'users.password_changed': { userId: string };
  'users.signed_in_with_provider': { userId: string; provider: string };
  'suppliers.verified': { supplierId: string; userId: string };
  'suppliers.rejected': { supplierId: string; userId: string; reason: string };
  'suppliers.payout_phone_changed': { supplierId: string; userId: string };
  'associations.payout_phone_changed': { associationId: string; userId: string };
  'kyc.decided': {
    supplierId: string;
    userId: string;
    status: 'APPROVED' | 'REJECTED' | 'RESUBMISSION_REQUESTED';
    reason?: string;
  };
  'staff.invited': { invitationId: string; storeId: string; userId?: string; phoneNumber?: string; email?: string };
  'products.created': { productId: string; supplierId: string; storeId: string; status: 'PENDING_REVIEW' | 'ACTIVE' };
  'products.approved': { productId: string; supplierId: string; storeId: string };
  'products.rejected': { productId: string; supplierId: string; reason: string };
  'products.published': { productId: string; supplierId: string; storeId: string };
  'orders.created': { orderId: string; clientId: string; supplierId: string; storeId: string; amount: number };
  'orders.paid': { orderId: string; paymentId: string; supplierId: string; clientId: string; amount: number };
  'orders.status_changed': { orderId: string; from: string; to: string };
  'orders.cancelled': {
    orderId: string;
    clientId: string;
    supplierId: string;
    paid: boolean;
    reason: string;
    by: string;
  };
  'orders.completed': { orderId: string; supplierId: string; storeId: string; clientId: string };
  'payments.succeeded': {
    paymentId: string;
    subjectType: string;
    subjectId: string;
    orderId: string | null;
    amount: number;
    currency: string;
  };
  'payments.failed': {
    paymentId: string;
    subjectType: string;
    subjectId: string;
    orderId: string | null;
    status: 'FAILED' | 'EXPIRED';
    reason: string;
  };
  'payments.refunded': {
    paymentId: string;
    subjectType: string;
    subjectId: string;
    orderId: string | null;
    amount: number;
    currency: string;
  };
}

export type EventName = keyof DomainEvents;

/**
 * What each event means and each payload field holds. The mapped type makes the compiler refuse an
 * event or a field (optional ones included) left out, so the catalogue the documentation is checked
 * against cannot drift from the interface above.
 */
export const EVENT_CATALOG: { [E in EventName]: { when: string; fields: { [F in keyof DomainEvents[E]]-?: string } } } =
  {
    'users.password_changed': {
      when: 'A user changed their password, or reset it with a one-time code.',
      fields: { userId: 'the account' },
    },
    'users.signed_in_with_provider': {
      when: 'A user signed in through an identity provider (a new session).',
      fields: { userId: 'the account', provider: 'the identity provider (its issuer)' },
    },
    'suppliers.verified': {
      when: 'An administrator verified a supplier (also through KYC force-verify).',
      fields: { supplierId: 'the supplier profile', userId: "the supplier's account" },
    },
    'suppliers.rejected': {
      when: "An administrator rejected a supplier's verification.",
      fields: { supplierId: 'the supplier profile', userId: "the supplier's account", reason: 'the reason given' },
    },
    'suppliers.payout_phone_changed': {
      when: 'A supplier set or changed the mobile-money number its payouts are sent to.',
      fields: { supplierId: 'the supplier profile', userId: "the supplier's account" },
    },
    'associations.payout_phone_changed': {
      when: 'An association set or changed the mobile-money number its financial donations are paid out to.',
      fields: { associationId: 'the association', userId: "the association's account" },
    },
    'kyc.decided': {
      when: "An administrator decided on a supplier's KYC documents.",
      fields: {
        supplierId: 'the supplier profile',
        userId: "the supplier's account",
        status: 'APPROVED, REJECTED or RESUBMISSION_REQUESTED',
        reason: 'the reason given, when there is one',
      },
    },
    'staff.invited': {
      when: 'A store invited someone to its team.',
      fields: {
        invitationId: 'the invitation',
        storeId: 'the store',
        userId: 'the account holding the invited phone or email, when one exists',
        phoneNumber: 'the invited phone number, when invited by phone',
        email: 'the invited email, when invited by email',
      },
    },
    'products.created': {
      when: 'A supplier (or a member of its store) created a product.',
      fields: {
        productId: 'the product',
        supplierId: 'its supplier',
        storeId: 'its store',
        status: 'PENDING_REVIEW, or ACTIVE when auto-approved',
      },
    },
    'products.approved': {
      when: 'An administrator approved a product waiting for review (alone or in a bulk approval).',
      fields: { productId: 'the product', supplierId: 'its supplier', storeId: 'its store' },
    },
    'products.rejected': {
      when: 'An administrator rejected a product waiting for review.',
      fields: { productId: 'the product', supplierId: 'its supplier', reason: 'the reason given' },
    },
    'products.published': {
      when: 'A product became ACTIVE for the first time (approved, or created or resubmitted with auto-approval): followers of its store may hear of it.',
      fields: { productId: 'the product', supplierId: 'its supplier', storeId: 'its store' },
    },
    'orders.created': {
      when: 'A client placed an order: stock reserved, payment started, not paid yet.',
      fields: {
        orderId: 'the order',
        clientId: "the client's account",
        supplierId: 'the supplier profile',
        storeId: 'the store',
        amount: 'what the client pays (minor units)',
      },
    },
    'orders.paid': {
      when: "The order's payment succeeded while the order was open.",
      fields: {
        orderId: 'the order',
        paymentId: 'the payment (transactionId)',
        supplierId: 'the supplier profile',
        clientId: "the client's account",
        amount: 'the amount paid (minor units)',
      },
    },
    'orders.status_changed': {
      when: 'An order moved from one status to another (cancellations included).',
      fields: { orderId: 'the order', from: 'the status it left', to: 'the status it reached' },
    },
    'orders.cancelled': {
      when: 'An order was cancelled by its client, its seller or its payment deadline; the stock went back.',
      fields: {
        orderId: 'the order',
        clientId: "the client's account",
        supplierId: 'the supplier profile',
        paid: 'whether it had been paid (the escrow then refunds it)',
        reason: 'the reason given, or PAYMENT_TIMEOUT',
        by: 'CLIENT, SUPPLIER, STAFF or SYSTEM',
      },
    },
    'orders.completed': {
      when: 'The client collected the order: its stock counts as sold.',
      fields: {
        orderId: 'the order',
        supplierId: 'the supplier profile',
        storeId: 'the store',
        clientId: "the client's account",
      },
    },
    'payments.succeeded': {
      when: "The provider reported a payment attempt paid (webhook or reconciliation); the money is where its subject puts it (an order's escrow, platform subscription revenue), or on its way back when nobody waits for it.",
      fields: {
        paymentId: 'the payment attempt',
        subjectType: 'what it pays for: order, subscription, ...',
        subjectId: 'the order, subscription charge, ...',
        orderId: 'its order (null for other subjects)',
        amount: 'the amount paid, in minor units',
        currency: 'ISO 4217 currency',
      },
    },
    'payments.failed': {
      when: 'A waiting payment attempt failed (the provider refused it) or its checkout session expired; an order stays PENDING and may be retried until its payment deadline; or the payment deadline of its subject passed (status EXPIRED; an order is then cancelled with PAYMENT_TIMEOUT).',
      fields: {
        paymentId: 'the payment attempt',
        subjectType: 'what it pays for: order, subscription, ...',
        subjectId: 'the order, subscription charge, ...',
        orderId: 'its order (null for other subjects)',
        status: 'FAILED or EXPIRED',
        reason: "the provider's error message, or why it expired",
      },
    },
    'payments.refunded': {
      when: "The provider confirmed a refund: the payer's money is back on their wallet.",
      fields: {
        paymentId: 'the payment refunded',
        subjectType: 'what it paid for: order, subscription, ...',
        subjectId: 'the order, subscription charge, ...',
        orderId: 'its order (null for other subjects)',
        amount: 'the amount refunded, in minor units',
        currency: 'ISO 4217 currency',
      },
    },
  };
