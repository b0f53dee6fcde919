import type { PaymentStatus, PaymentSubjectType } from '../../db/schema/payments.js';

const MESSAGES: Record<PaymentStatus, { title: string; text: string }> = {
  SUCCEEDED: {
    title: 'Paiement reçu',
    text: 'Votre commande est payée. Présentez votre code de retrait au commerçant.',
  },
  PENDING: {
    title: 'Paiement en cours',
    text: 'Votre paiement est en cours de traitement. Vous serez prévenu dès sa confirmation.',
  },
  FAILED: { title: 'Paiement refusé', text: "Le paiement n'a pas abouti. Vous pouvez réessayer depuis l'application." },
  EXPIRED: {
    title: 'Paiement expiré',
    text: "Le délai de paiement est dépassé. Vous pouvez réessayer depuis l'application si la commande est encore ouverte.",
  },
  CANCELLED: { title: 'Paiement annulé', text: 'La commande a été annulée.' },
  REFUND_PENDING: { title: 'Remboursement en cours', text: 'Ce paiement est en cours de remboursement.' },
  REFUNDED: { title: 'Paiement remboursé', text: 'Ce paiement vous a été remboursé.' },
};

// What is being paid, as the payer reads it; the messages above speak of orders, the others get a plain one.
const SUBJECT: Record<PaymentSubjectType, string> = {
  order: 'Commande',
  subscription: 'Abonnement',
  donation: 'Don',
  booking: 'Réservation',
  advertising_topup: 'Recharge publicitaire',
};
const OTHER_SUCCESS = { title: 'Paiement reçu', text: 'Votre paiement est confirmé.' };

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The page a payer back from the provider sees: the state read from the database, never from the URL. */
export function returnPage(r: {
  subjectType: PaymentSubjectType;
  subjectId: string;
  paymentId: string;
  status: PaymentStatus;
}): string {
  const m = r.subjectType !== 'order' && r.status === 'SUCCEEDED' ? OTHER_SUCCESS : MESSAGES[r.status];
  return `<!doctype html>
<html lang="fr"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escape(m.title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}</style></head>
<body><h1>${escape(m.title)}</h1><p>${escape(m.text)}</p>
<p data-status="${escape(r.status)}">Statut : <strong>${escape(r.status)}</strong><br>${SUBJECT[r.subjectType]} : <code>${escape(r.subjectId)}</code></p></body></html>
`;
}
