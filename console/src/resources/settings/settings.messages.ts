export const settingsMessages = {
  fr: {
    resources: {
      settings: { name: 'Réglage |||| Réglages' },
      'settings-audit': {
        name: 'Historique des réglages',
        fields: {
          key: 'Réglage',
          actorId: 'Administrateur',
          from: 'Du',
          to: 'Au (inclus)',
          createdAt: 'Le',
          change: 'Changement',
          reason: 'Raison',
        },
      },
    },
    console: {
      settings: {
        title: 'Réglages de la plateforme',
        groupsLabel: 'Groupes de réglages',
        history: 'Historique des modifications',
        review: 'Enregistrer…',
        saved: '%{smart_count} réglage modifié |||| %{smart_count} réglages modifiés',
        unchanged: 'Aucun réglage n’a changé',
        yes: 'Oui',
        no: 'Non',
        quoted: '« %{value} »',
        range: 'de %{min} à %{max} %{unit}',
        outOfRange: 'Entre %{min} et %{max} %{unit}, sans décimale de trop',
        units: {
          minutes: '%{smart_count} minute |||| %{smart_count} minutes',
          hours: '%{smart_count} heure |||| %{smart_count} heures',
        },
        unitShort: { minutes: 'min', hours: 'h' },
        groups: { business: 'Règles commerciales', mobilemoney: 'Moyens de paiement', features: 'Fonctionnalités' },
        groupIntro: {
          business:
            'Commission, délais de paiement et de versement, montant minimum, code de retrait, bons plans payés',
          mobilemoney: 'Les trois porte-monnaie mobiles et la carte : nom affiché, activation, frais',
          features:
            'Ce qui est ouvert aux utilisateurs ; une fonctionnalité coupée refuse les nouvelles demandes, ce qui est en cours se termine',
        },
        methods: { wave: 'Wave', orangeMoney: 'Orange Money', freeMoney: 'Free Money', card: 'Carte bancaire' },
        keys: {
          business: {
            defaultCommissionBps: 'Commission par défaut',
            paymentTimeoutMinutes: 'Délai de paiement',
            paymentFailureGraceMinutes: 'Délai après un paiement refusé',
            escrowReleaseDelayHours: 'Délai de versement au fournisseur',
            minimumOrderAmount: 'Commande minimum',
            pickupCodeRequired: 'Code de retrait obligatoire',
            dealsPaidInAppByDefault: 'Bons plans payés dans l’application',
            noShowRefunded: 'Réservation non retirée remboursée',
          },
          mobilemoney: { displayName: 'Nom affiché', enabled: 'Proposé aux clients', feeBps: 'Frais' },
          features: {
            autoApproveVerifiedSupplierProducts: 'Publication directe des produits des fournisseurs vérifiés',
            donationsEnabled: 'Dons aux associations',
            advertisingEnabled: 'Publicité',
            reviewsRequirePurchase: 'Avis réservés aux acheteurs',
          },
        },
        help: {
          business: {
            defaultCommissionBps:
              'Taux de départ d’un nouveau fournisseur ; les fournisseurs existants gardent le leur',
            paymentTimeoutMinutes: 'Une commande non payée dans ce délai expire et rend son stock',
            paymentFailureGraceMinutes:
              'Après un refus du fournisseur de paiement, la commande garde son stock ce temps pour un nouvel essai',
            escrowReleaseDelayHours:
              'Après le retrait d’une commande, avant que les fonds séquestrés aillent au fournisseur (sauf litige)',
            minimumOrderAmount: '0 : pas de minimum',
            pickupCodeRequired: 'Le fournisseur vérifie le code du client avant de remettre la commande',
            dealsPaidInAppByDefault:
              'Un nouveau bon plan est payé à la réservation, sauf choix contraire du fournisseur ; sinon au comptoir',
            noShowRefunded:
              'L’argent d’une réservation payée et non retirée revient au client ; sinon la boutique le garde, moins la commission',
          },
          mobilemoney: {
            displayName: 'Nom montré aux clients',
            feeBps: 'Frais d’un paiement, en pourcentage de son montant',
          },
          features: {
            autoApproveVerifiedSupplierProducts: 'Leurs produits et bons plans sont publiés sans modération',
            donationsEnabled: 'Coupé : les nouveaux dons sont refusés',
            advertisingEnabled: 'Coupé : plus de nouvelles campagnes ni d’annonces affichées',
            reviewsRequirePurchase: 'Seul un client ayant retiré une commande peut donner son avis',
          },
        },
        confirm: {
          title: 'Appliquer ce changement ? |||| Appliquer ces %{smart_count} changements ?',
          body: 'Ces réglages changent pour toute la plateforme dès la confirmation. Chaque changement est inscrit dans l’historique à votre nom.',
          setting: 'Réglage',
          before: 'Avant',
          after: 'Après',
          reason: 'Raison (facultative)',
          reasonHelp: 'Gardée dans l’historique avec chaque changement',
          apply: 'Appliquer',
        },
        cache: {
          button: 'Vider les caches',
          title: 'Vider tous les caches de la plateforme ?',
          content:
            'Les réglages et les listes publiques (recherche, à proximité) gardés en mémoire seront relus depuis la base de données, sur toutes les instances. Les premières requêtes seront un peu plus lentes.',
          confirm: 'Vider les caches',
          doneEverywhere: 'Caches vidés sur toutes les instances : %{caches}',
          doneHere: 'Caches vidés sur cette instance (%{caches}) ; les autres suivront à l’expiration des leurs',
        },
      },
    },
  },
  en: {
    resources: {
      settings: { name: 'Setting |||| Settings' },
      'settings-audit': {
        name: 'Settings history',
        fields: {
          key: 'Setting',
          actorId: 'Administrator',
          from: 'From',
          to: 'To (included)',
          createdAt: 'When',
          change: 'Change',
          reason: 'Reason',
        },
      },
    },
    console: {
      settings: {
        title: 'Platform settings',
        groupsLabel: 'Groups of settings',
        history: 'History of changes',
        review: 'Save…',
        saved: '%{smart_count} setting changed |||| %{smart_count} settings changed',
        unchanged: 'No setting changed',
        yes: 'Yes',
        no: 'No',
        quoted: '“%{value}”',
        range: '%{min} to %{max} %{unit}',
        outOfRange: 'Between %{min} and %{max} %{unit}, without extra decimals',
        units: {
          minutes: '%{smart_count} minute |||| %{smart_count} minutes',
          hours: '%{smart_count} hour |||| %{smart_count} hours',
        },
        unitShort: { minutes: 'min', hours: 'h' },
        groups: { business: 'Business rules', mobilemoney: 'Payment methods', features: 'Features' },
        groupIntro: {
          business: 'Commission, payment and payout delays, minimum order, pickup code, paid deals',
          mobilemoney: 'The three mobile-money wallets and card: name shown, switched on, fee',
          features: 'What users may use; a feature switched off refuses new requests, what is under way completes',
        },
        methods: { wave: 'Wave', orangeMoney: 'Orange Money', freeMoney: 'Free Money', card: 'Bank card' },
        keys: {
          business: {
            defaultCommissionBps: 'Default commission',
            paymentTimeoutMinutes: 'Payment deadline',
            paymentFailureGraceMinutes: 'Grace after a refused payment',
            escrowReleaseDelayHours: 'Delay before the supplier is paid',
            minimumOrderAmount: 'Minimum order',
            pickupCodeRequired: 'Pickup code required',
            dealsPaidInAppByDefault: 'Deals paid in the app',
            noShowRefunded: 'Uncollected bookings refunded',
          },
          mobilemoney: { displayName: 'Name shown', enabled: 'Offered to clients', feeBps: 'Fee' },
          features: {
            autoApproveVerifiedSupplierProducts: 'Verified suppliers publish without moderation',
            donationsEnabled: 'Donations to associations',
            advertisingEnabled: 'Advertising',
            reviewsRequirePurchase: 'Reviews by buyers only',
          },
        },
        help: {
          business: {
            defaultCommissionBps: 'Rate a new supplier starts with; existing suppliers keep theirs',
            paymentTimeoutMinutes: 'An order not paid within this time expires and gives its stock back',
            paymentFailureGraceMinutes:
              'After the provider refuses a payment, the order keeps its stock this long for a retry',
            escrowReleaseDelayHours:
              'After an order is collected, before its escrowed funds go to the supplier (unless disputed)',
            minimumOrderAmount: '0: no minimum',
            pickupCodeRequired: 'The supplier checks the client’s code before handing over the order',
            dealsPaidInAppByDefault:
              'A new deal is paid when booked unless its supplier chooses; otherwise at the counter',
            noShowRefunded:
              'The money of a paid booking never collected goes back to the client; otherwise the shop keeps it, less commission',
          },
          mobilemoney: {
            displayName: 'Name shown to clients',
            feeBps: 'Fee of a payment, as a percentage of its amount',
          },
          features: {
            autoApproveVerifiedSupplierProducts: 'Their products and deals are published without moderation',
            donationsEnabled: 'Off: new donations are refused',
            advertisingEnabled: 'Off: no new campaigns, no ads shown',
            reviewsRequirePurchase: 'Only a client who collected an order may review',
          },
        },
        confirm: {
          title: 'Apply this change? |||| Apply these %{smart_count} changes?',
          body: 'These settings change for the whole platform once confirmed. Each change is written in the history under your name.',
          setting: 'Setting',
          before: 'Before',
          after: 'After',
          reason: 'Reason (optional)',
          reasonHelp: 'Kept in the history with each change',
          apply: 'Apply',
        },
        cache: {
          button: 'Clear the caches',
          title: 'Clear every cache of the platform?',
          content:
            'The settings and public listings (search, nearby) kept in memory will be read again from the database, on every instance. The first requests will be a little slower.',
          confirm: 'Clear the caches',
          doneEverywhere: 'Caches cleared on every instance: %{caches}',
          doneHere: 'Caches cleared on this instance (%{caches}); the others follow as theirs expire',
        },
      },
    },
  },
};
