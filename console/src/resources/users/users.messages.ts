export const usersMessages = {
  fr: {
    resources: {
      users: {
        name: 'Utilisateur |||| Utilisateurs',
        fields: { q: 'Téléphone, e-mail ou nom', role: 'Rôle', status: 'Statut', phoneNumber: 'Téléphone', email: 'E-mail', createdAt: 'Inscrit le', lastLoginAt: 'Dernière connexion', 'profile.firstName': 'Prénom', 'profile.lastName': 'Nom' },
      },
    },
    console: {
      roles: { CLIENT: 'Client', SUPPLIER_FOOD: 'Commerçant', SUPPLIER_DEALS: 'Partenaire bons plans', ASSOCIATION: 'Association', ADVERTISER: 'Annonceur', ADMIN: 'Administrateur', SUPER_ADMIN: 'Super-administrateur' },
      userStatus: { ACTIVE: 'Actif', SUSPENDED: 'Suspendu', DELETED: 'Supprimé' },
    },
  },
  en: {
    resources: {
      users: {
        name: 'User |||| Users',
        fields: { q: 'Phone, email or name', role: 'Role', status: 'Status', phoneNumber: 'Phone', email: 'Email', createdAt: 'Joined', lastLoginAt: 'Last sign-in', 'profile.firstName': 'First name', 'profile.lastName': 'Last name' },
      },
    },
    console: {
      roles: { CLIENT: 'Client', SUPPLIER_FOOD: 'Food supplier', SUPPLIER_DEALS: 'Deals partner', ASSOCIATION: 'Association', ADVERTISER: 'Advertiser', ADMIN: 'Administrator', SUPER_ADMIN: 'Super administrator' },
      userStatus: { ACTIVE: 'Active', SUSPENDED: 'Suspended', DELETED: 'Deleted' },
    },
  },
};
