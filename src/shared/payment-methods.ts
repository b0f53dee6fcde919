// Apart from the provider's protocol so that the tables typed with it (src/db/schema) need nothing of the provider.

/** The methods offered to clients; their names, fees and switches are the `mobilemoney` settings. */
export const PAYMENT_METHODS = ['wave', 'orangeMoney', 'freeMoney', 'card'] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];
