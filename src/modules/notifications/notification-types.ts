// The closed list of notification types, their category and their French text. A later domain
// adds its types here (and to docs/notifications.md); `notify` refuses a type not listed.

export const CATEGORIES = ['orders', 'bookings', 'donations', 'reviews', 'promotions', 'account', 'system'] as const;
export type Category = (typeof CATEGORIES)[number];

export const CHANNELS = ['push', 'sms', 'email'] as const;
export type Channel = (typeof CHANNELS)[number];

type Data = Record<string, unknown>;

interface TypeDefinition {
  category: Category;
  /**
   * Security messages (someone may be in the account) go out on push and email whatever the
   * preferences and quiet hours say.
   */
  security?: boolean;
  title: (d: Data) => string;
  body: (d: Data) => string;
}

const text = (v: unknown, fallback = '') => (typeof v === 'string' && v.length > 0 ? v : fallback);

const ORDER_STATUS_TITLES: Record<string, string> = {
  CONFIRMED: 'Commande confirmée',
  PREPARING: 'Commande en préparation',
  READY: 'Commande prête',
  COMPLETED: 'Commande retirée',
};
const ORDER_STATUS_BODIES: Record<string, (store: string) => string> = {
  CONFIRMED: (s) => `${s} a confirmé votre commande.`,
  PREPARING: (s) => `${s} prépare votre commande.`,
  READY: (s) => `Votre commande vous attend chez ${s} : présentez votre code de retrait.`,
  COMPLETED: () => 'Commande retirée. Merci et bon appétit !',
};

const TYPES = {
  password_changed: {
    category: 'account',
    security: true,
    title: () => 'Mot de passe modifié',
    body: () => "Le mot de passe de votre compte vient d'être modifié. Si ce n'est pas vous, réinitialisez-le tout de suite.",
  },
  provider_sign_in: {
    category: 'account',
    security: true,
    title: () => 'Nouvelle connexion',
    body: (d) => `Connexion à votre compte avec ${text(d.provider, 'un fournisseur d’identité')}. Si ce n'est pas vous, changez votre mot de passe.`,
  },
  supplier_verified: {
    category: 'account',
    title: () => 'Compte fournisseur vérifié',
    body: () => 'Votre compte fournisseur est vérifié : vos boutiques sont visibles par les clients.',
  },
  supplier_rejected: {
    category: 'account',
    title: () => 'Compte fournisseur refusé',
    body: (d) => `Votre compte fournisseur n'a pas été validé${text(d.reason) ? ` : ${text(d.reason)}` : '.'}`,
  },
  kyc_approved: {
    category: 'account',
    title: () => 'Documents validés',
    body: () => 'Vos documents d’identité et d’entreprise ont été validés.',
  },
  kyc_rejected: {
    category: 'account',
    title: () => 'Documents refusés',
    body: (d) => `Vos documents n'ont pas été validés${text(d.reason) ? ` : ${text(d.reason)}` : '.'}`,
  },
  kyc_resubmission_requested: {
    category: 'account',
    title: () => 'Documents à renvoyer',
    body: (d) => `Merci de renvoyer vos documents${text(d.reason) ? ` : ${text(d.reason)}` : '.'}`,
  },
  staff_invited: {
    category: 'account',
    title: () => 'Invitation à rejoindre une équipe',
    body: (d) => `Vous êtes invité à rejoindre l'équipe de ${text(d.storeName, 'une boutique')}.`,
  },
  product_approved: {
    category: 'account',
    title: () => 'Produit publié',
    body: (d) => `${text(d.productName, 'Votre produit')} a été approuvé et est visible par les clients.`,
  },
  product_rejected: {
    category: 'account',
    title: () => 'Produit refusé',
    body: (d) => `${text(d.productName, 'Votre produit')} n'a pas été approuvé${text(d.reason) ? ` : ${text(d.reason)}` : '.'} Modifiez-le pour le soumettre à nouveau.`,
  },
  followed_store_new_product: {
    category: 'promotions',
    title: (d) => `Nouveau chez ${text(d.storeName, 'une boutique que vous suivez')}`,
    body: (d) => `${text(d.productName, 'Un nouveau produit')} vient d'être publié.`,
  },
  order_paid: {
    category: 'orders',
    title: () => 'Nouvelle commande payée',
    body: (d) => `Une commande de ${typeof d.amount === 'number' ? d.amount : ''} ${text(d.currency, 'XOF')} est payée : confirmez-la et préparez-la pour le retrait.`,
  },
  order_status_changed: {
    category: 'orders',
    title: (d) => ORDER_STATUS_TITLES[text(d.status)] ?? 'Commande mise à jour',
    body: (d) => ORDER_STATUS_BODIES[text(d.status)]?.(text(d.storeName, 'la boutique')) ?? 'Votre commande a changé de statut.',
  },
  payment_refunded: {
    category: 'orders',
    title: () => 'Remboursement effectué',
    body: (d) => `${typeof d.amount === 'number' ? d.amount : ''} ${text(d.currency, 'XOF')} vous ont été remboursés sur votre compte de paiement.`,
  },
  order_cancelled: {
    category: 'orders',
    title: () => 'Commande annulée',
    body: (d) =>
      `${d.byClient ? 'Le client a annulé sa commande' : 'Votre commande a été annulée'}${text(d.reason) ? ` : ${text(d.reason)}` : '.'}${!d.byClient && d.paid ? ' Vous serez remboursé.' : ''}`,
  },
  order_payment_expired: {
    category: 'orders',
    title: () => 'Commande expirée',
    body: () => "Le paiement n'a pas été reçu à temps : la commande est annulée et les produits remis en vente.",
  },
  escrow_released: {
    category: 'orders',
    title: () => 'Paiement libéré',
    body: (d) =>
      d.forClient
        ? 'Votre commande est clôturée : son paiement a été versé au commerçant.'
        : `${typeof d.net === 'number' ? d.net : ''} ${text(d.currency, 'XOF')} d'une commande vous sont acquis (commission déduite) : le virement part sur votre numéro de paiement.`,
  },
  escrow_refunded: {
    category: 'orders',
    title: () => 'Commande remboursée',
    body: (d) => `${d.forSupplier ? 'Le montant de la commande est remboursé au client' : 'Votre paiement vous est remboursé'}${text(d.reason) ? ` : ${text(d.reason)}` : '.'}`,
  },
  escrow_disputed: {
    category: 'orders',
    title: () => 'Litige ouvert',
    body: (d) => `Un litige est ouvert sur une commande ; le paiement reste bloqué jusqu'à sa résolution${text(d.reason) ? ` : ${text(d.reason)}` : '.'}`,
  },
  payout_sent: {
    category: 'orders',
    title: () => 'Virement effectué',
    body: (d) => `${typeof d.amount === 'number' ? d.amount : ''} ${text(d.currency, 'XOF')} ont été envoyés sur votre numéro ${text(d.mobile)}.`,
  },
  payout_failed: {
    category: 'account',
    title: () => 'Virement refusé',
    body: (d) => `Le virement de ${typeof d.amount === 'number' ? d.amount : ''} ${text(d.currency, 'XOF')} vers ${text(d.mobile, 'votre numéro')} a échoué${text(d.error) ? ` (${text(d.error)})` : ''}. Vérifiez votre numéro de paiement : il repartira dès que vous le changerez.`,
  },
  payout_waiting_for_number: {
    category: 'account',
    title: () => 'Numéro de paiement manquant',
    body: (d) => `${typeof d.amount === 'number' ? d.amount : ''} ${text(d.currency, 'XOF')} vous attendent : renseignez votre numéro de paiement dans votre profil pour les recevoir.`,
  },
  deal_approved: {
    category: 'account',
    title: () => 'Bon plan publié',
    body: (d) => `${text(d.dealTitle, 'Votre bon plan')} a été approuvé et est visible par les clients.`,
  },
  deal_rejected: {
    category: 'account',
    title: () => 'Bon plan refusé',
    body: (d) => `${text(d.dealTitle, 'Votre bon plan')} n'a pas été approuvé${text(d.reason) ? ` : ${text(d.reason)}` : '.'} Modifiez-le pour le soumettre à nouveau.`,
  },
  deal_booked: {
    category: 'bookings',
    title: () => 'Réservation confirmée',
    body: (d) => `${text(d.dealTitle, 'Votre bon plan')} chez ${text(d.storeName, 'la boutique')} : présentez votre QR code au retrait, à régler sur place.`,
  },
  deal_booking_received: {
    category: 'bookings',
    title: () => 'Nouvelle réservation',
    body: (d) => `${typeof d.quantity === 'number' ? d.quantity : 1} place(s) réservée(s) sur ${text(d.dealTitle, 'un bon plan')}.`,
  },
  deal_booking_cancelled: {
    category: 'bookings',
    title: () => 'Réservation annulée',
    body: (d) => `Le client a annulé sa réservation de ${typeof d.quantity === 'number' ? d.quantity : 1} place(s) : elles sont de nouveau disponibles.`,
  },
  deal_booking_used: {
    category: 'bookings',
    title: () => 'Réservation retirée',
    body: () => 'Votre réservation a été validée en boutique. Merci et bon appétit !',
  },
  deal_booking_no_show: {
    category: 'bookings',
    title: () => 'Réservation non retirée',
    body: () => "Le créneau de retrait de votre réservation est passé sans qu'elle soit retirée.",
  },
  system_announcement: {
    category: 'system',
    title: (d) => text(d.title, 'Information'),
    body: (d) => text(d.message),
  },
} as const satisfies Record<string, TypeDefinition>;

export type NotificationType = keyof typeof TYPES;
export const NOTIFICATION_TYPES = Object.keys(TYPES) as NotificationType[];

export function definitionOf(type: NotificationType): TypeDefinition {
  return TYPES[type];
}

export function isNotificationType(type: string): type is NotificationType {
  return Object.hasOwn(TYPES, type);
}
