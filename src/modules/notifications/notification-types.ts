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

const DOWNGRADE_REASONS: Record<string, string> = {
  CANCELLED: 'Votre abonnement annulé est terminé',
  REFUNDED: 'Votre paiement d’abonnement a été remboursé et sa période retirée',
};

const DONATION_STATUS_TITLES: Record<string, string> = {
  ACCEPTED: 'Don accepté',
  DECLINED: 'Don refusé',
  PICKUP_SCHEDULED: 'Retrait du don planifié',
  COLLECTED: 'Don retiré',
  CANCELLED: 'Don annulé',
};

const TYPES = {
  password_changed: {
    category: 'account',
    security: true,
    title: () => 'Mot de passe modifié',
    body: () =>
      "Le mot de passe de votre compte vient d'être modifié. Si ce n'est pas vous, réinitialisez-le tout de suite.",
  },
  provider_sign_in: {
    category: 'account',
    security: true,
    title: () => 'Nouvelle connexion',
    body: (d) =>
      `Connexion à votre compte avec ${text(d.provider, 'un fournisseur d’identité')}. Si ce n'est pas vous, changez votre mot de passe.`,
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
    body: (d) =>
      `${text(d.productName, 'Votre produit')} n'a pas été approuvé${text(d.reason) ? ` : ${text(d.reason)}` : '.'} Modifiez-le pour le soumettre à nouveau.`,
  },
  followed_store_new_product: {
    category: 'promotions',
    title: (d) => `Nouveau chez ${text(d.storeName, 'une boutique que vous suivez')}`,
    body: (d) => `${text(d.productName, 'Un nouveau produit')} vient d'être publié.`,
  },
  order_paid: {
    category: 'orders',
    title: () => 'Nouvelle commande payée',
    body: (d) =>
      `Une commande de ${typeof d.amount === 'number' ? d.amount : ''} ${text(d.currency, 'XOF')} est payée : confirmez-la et préparez-la pour le retrait.`,
  },
  order_status_changed: {
    category: 'orders',
    title: (d) => ORDER_STATUS_TITLES[text(d.status)] ?? 'Commande mise à jour',
    body: (d) =>
      ORDER_STATUS_BODIES[text(d.status)]?.(text(d.storeName, 'la boutique')) ?? 'Votre commande a changé de statut.',
  },
  payment_refunded: {
    category: 'orders',
    title: () => 'Remboursement effectué',
    body: (d) =>
      `${typeof d.amount === 'number' ? d.amount : ''} ${text(d.currency, 'XOF')} vous ont été remboursés sur votre compte de paiement.`,
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
    body: (d) =>
      d.reason === 'PAYMENT_FAILED'
        ? "Le paiement a échoué et n'a pas été repris : la commande est annulée et les produits remis en vente."
        : "Le paiement n'a pas été reçu à temps : la commande est annulée et les produits remis en vente.",
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
    body: (d) =>
      `${d.forSupplier ? 'Le montant de la commande est remboursé au client' : 'Votre paiement vous est remboursé'}${text(d.reason) ? ` : ${text(d.reason)}` : '.'}`,
  },
  escrow_disputed: {
    category: 'orders',
    title: () => 'Litige ouvert',
    body: (d) =>
      `Un litige est ouvert sur une commande ; le paiement reste bloqué jusqu'à sa résolution${text(d.reason) ? ` : ${text(d.reason)}` : '.'}`,
  },
  payout_sent: {
    category: 'orders',
    title: () => 'Virement effectué',
    body: (d) =>
      `${typeof d.amount === 'number' ? d.amount : ''} ${text(d.currency, 'XOF')} ont été envoyés sur votre numéro ${text(d.mobile)}.`,
  },
  payout_failed: {
    category: 'account',
    title: () => 'Virement refusé',
    body: (d) =>
      `Le virement de ${typeof d.amount === 'number' ? d.amount : ''} ${text(d.currency, 'XOF')} vers ${text(d.mobile, 'votre numéro')} a échoué${text(d.error) ? ` (${text(d.error)})` : ''}. Vérifiez votre numéro de paiement : il repartira dès que vous le changerez.`,
  },
  payout_waiting_for_number: {
    category: 'account',
    title: () => 'Numéro de paiement manquant',
    body: (d) =>
      `${typeof d.amount === 'number' ? d.amount : ''} ${text(d.currency, 'XOF')} vous attendent : renseignez votre numéro de paiement dans votre profil pour les recevoir.`,
  },
  subscription_payment_received: {
    category: 'account',
    title: () => 'Abonnement payé',
    body: (d) =>
      `Paiement de ${typeof d.amount === 'number' ? d.amount : ''} ${text(d.currency, 'XOF')} reçu : ${d.kind === 'RENEW' ? 'votre abonnement est prolongé' : 'votre nouvel abonnement est actif'}.`,
  },
  subscription_payment_refunded: {
    category: 'account',
    title: () => "Paiement d'abonnement remboursé",
    body: (d) =>
      `${typeof d.amount === 'number' ? d.amount : ''} ${text(d.currency, 'XOF')} ${d.reason === 'ADMIN' ? "d'abonnement vous ont été remboursés par l'équipe" : "payés après l'expiration de la demande vous ont été remboursés"}.`,
  },
  subscription_expiring: {
    category: 'account',
    title: () => 'Abonnement bientôt terminé',
    body: () =>
      'Votre abonnement se termine dans moins de 3 jours : renouvelez-le pour garder votre limite de produits.',
  },
  subscription_downgraded: {
    category: 'account',
    title: () => 'Retour au plan gratuit',
    body: (d) =>
      `${DOWNGRADE_REASONS[text(d.reason)] ?? "Votre période d'abonnement n'a pas été renouvelée"} : vous êtes sur le plan gratuit.${typeof d.maxProducts === 'number' && typeof d.currentProducts === 'number' && d.currentProducts >= d.maxProducts ? ' Vos produits restent en ligne, mais vous ne pourrez en créer de nouveaux que sous la limite du plan.' : ''}`,
  },
  review_received: {
    category: 'reviews',
    title: () => 'Nouvel avis',
    body: (d) =>
      `${typeof d.rating === 'number' ? `${d.rating}/5` : 'Un avis'} sur ${text(d.name, 'votre boutique')}. Vous pouvez y répondre une fois.`,
  },
  review_replied: {
    category: 'reviews',
    title: () => 'Réponse à votre avis',
    body: (d) => `${text(d.supplierName, 'Le commerçant')} a répondu à votre avis.`,
  },
  association_verified: {
    category: 'account',
    title: () => 'Association vérifiée',
    body: (d) => `${text(d.name, 'Votre association')} est vérifiée : elle est visible par les donateurs.`,
  },
  association_rejected: {
    category: 'account',
    title: () => 'Association non validée',
    body: (d) =>
      `${text(d.name, 'Votre association')} n'a pas été validée${text(d.reason) ? ` : ${text(d.reason)}` : '.'} Modifiez votre profil pour la soumettre à nouveau.`,
  },
  donation_received: {
    category: 'donations',
    title: () => 'Nouveau don',
    body: (d) =>
      `${text(d.supplierName, 'Un commerçant')} vous propose un don${typeof d.weightKg === 'number' ? ` de ${d.weightKg} kg` : ''}.`,
  },
  donation_status_changed: {
    category: 'donations',
    title: (d) => DONATION_STATUS_TITLES[text(d.status)] ?? 'Don mis à jour',
    body: (d) =>
      `${DONATION_STATUS_TITLES[text(d.status)] ?? 'Don mis à jour'}${text(d.pickupAt) ? ` : retrait prévu le ${text(d.pickupAt)}` : ''}${text(d.reason) ? ` (${text(d.reason)})` : ''}.`,
  },
  ad_campaign_approved: {
    category: 'account',
    title: () => 'Campagne approuvée',
    body: (d) =>
      `Votre campagne ${text(d.campaignName, 'publicitaire')} est approuvée : elle est diffusée selon son calendrier et son budget.`,
  },
  ad_campaign_rejected: {
    category: 'account',
    title: () => 'Campagne refusée',
    body: (d) =>
      `Votre campagne ${text(d.campaignName, 'publicitaire')} n'a pas été approuvée${text(d.reason) ? ` : ${text(d.reason)}` : '.'} Modifiez-la pour la soumettre à nouveau.`,
  },
  ad_campaign_completed: {
    category: 'account',
    title: () => 'Campagne terminée',
    body: (d) =>
      `Votre campagne ${text(d.campaignName, 'publicitaire')} est terminée (${d.reason === 'BUDGET_SPENT' ? 'budget dépensé' : d.reason === 'END_DATE' ? 'date de fin atteinte' : 'date de fin atteinte ou budget dépensé'}).`,
  },
  ad_campaign_paused: {
    category: 'account',
    title: () => 'Campagne suspendue : solde épuisé',
    body: (d) =>
      `Votre solde publicitaire ne peut plus payer votre campagne ${text(d.campaignName, 'publicitaire')} : elle reprendra dès que vous l'aurez rechargé.`,
  },
  ad_topup_paid: {
    category: 'account',
    title: () => 'Solde publicitaire rechargé',
    body: (d) =>
      `${typeof d.amount === 'number' ? d.amount : ''} ${text(d.currency, 'XOF')} ajoutés à votre solde publicitaire${typeof d.resumed === 'number' && d.resumed > 0 ? ` : ${d.resumed} campagne(s) reprennent` : ''}.`,
  },
  deal_approved: {
    category: 'account',
    title: () => 'Bon plan publié',
    body: (d) => `${text(d.dealTitle, 'Votre bon plan')} a été approuvé et est visible par les clients.`,
  },
  deal_rejected: {
    category: 'account',
    title: () => 'Bon plan refusé',
    body: (d) =>
      `${text(d.dealTitle, 'Votre bon plan')} n'a pas été approuvé${text(d.reason) ? ` : ${text(d.reason)}` : '.'} Modifiez-le pour le soumettre à nouveau.`,
  },
  deal_booked: {
    category: 'bookings',
    title: () => 'Réservation confirmée',
    body: (d) =>
      `${text(d.dealTitle, 'Votre bon plan')} chez ${text(d.storeName, 'la boutique')} : présentez votre QR code au retrait${d.paid === true ? ' (déjà payé).' : ', à régler sur place.'}`,
  },
  deal_booking_received: {
    category: 'bookings',
    title: () => 'Nouvelle réservation',
    body: (d) =>
      `${typeof d.quantity === 'number' ? d.quantity : 1} place(s) réservée(s) sur ${text(d.dealTitle, 'un bon plan')}.`,
  },
  deal_booking_cancelled: {
    category: 'bookings',
    title: () => 'Réservation annulée',
    body: (d) =>
      `Le client a annulé sa réservation de ${typeof d.quantity === 'number' ? d.quantity : 1} place(s) : elles sont de nouveau disponibles.`,
  },
  deal_booking_used: {
    category: 'bookings',
    title: () => 'Réservation retirée',
    body: () => 'Votre réservation a été validée en boutique. Merci et bon appétit !',
  },
  deal_booking_no_show: {
    category: 'bookings',
    title: () => 'Réservation non retirée',
    body: (d) =>
      `Le créneau de retrait de votre réservation est passé sans qu'elle soit retirée.${d.paid === true ? (d.refunded === true ? ' Votre paiement vous sera remboursé.' : ' Votre paiement reste acquis à la boutique.') : ''}`,
  },
  deal_booking_expired: {
    category: 'bookings',
    title: () => 'Réservation expirée',
    body: () => "Le paiement de votre réservation n'est pas arrivé à temps : les places ont été libérées.",
  },
  deal_booking_refunded: {
    category: 'bookings',
    title: () => 'Réservation remboursée',
    body: (d) =>
      `${typeof d.amount === 'number' ? d.amount : ''} ${text(d.currency, 'XOF')} payés pour votre réservation vous ont été remboursés.`,
  },
  donation_paid: {
    category: 'donations',
    title: () => 'Merci pour votre don',
    body: (d) =>
      `Votre don de ${typeof d.amount === 'number' ? d.amount : ''} ${text(d.currency, 'XOF')}${text(d.associationName) ? ` à ${text(d.associationName)}` : ''} est payé. Votre reçu est disponible.`,
  },
  donation_payment_received: {
    category: 'donations',
    title: () => 'Don financier reçu',
    body: (d) =>
      `Vous avez reçu un don de ${typeof d.amount === 'number' ? d.amount : ''} ${text(d.currency, 'XOF')}${d.anonymous ? ' (anonyme)' : ''}. Il vous sera versé sur votre numéro de paiement.`,
  },
  donation_payment_refunded: {
    category: 'donations',
    title: () => 'Don remboursé',
    body: (d) =>
      `Votre paiement de ${typeof d.amount === 'number' ? d.amount : ''} ${text(d.currency, 'XOF')} est arrivé après l'expiration ou l'annulation du don : il vous a été remboursé.`,
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
