export const announcementsMessages = {
  fr: {
    resources: {
      announcements: {
        name: 'Annonce |||| Annonces',
        fields: {
          title: 'Titre',
          message: 'Message',
          role: 'Destinataires',
          status: 'Statut',
          sent: 'Envoi',
          createdAt: 'Créée le',
          finishedAt: 'Terminée le',
        },
      },
    },
    console: {
      announcementStatus: { QUEUED: 'En file d’attente', SENDING: 'En cours d’envoi', SENT: 'Envoyée' },
      announcements: {
        new: 'Nouvelle annonce',
        intro:
          'Le message part comme une notification (et selon les préférences de chacun, en push, SMS ou e-mail) à chaque compte actif et vérifié, de tous les rôles ou d’un seul.',
        messageHelp: '500 caractères au plus : c’est aussi le texte du push, du SMS et de l’e-mail',
        everyone: 'Tous les utilisateurs',
        review: 'Envoyer…',
        send: 'Envoyer',
        toEveryone: 'tous les utilisateurs',
        toRole: 'les utilisateurs du rôle %{role}',
        confirmTitle: 'Envoyer « %{title} » ?',
        confirmContent:
          'L’annonce partira vers %{audience} : %{smart_count} compte actif et vérifié aujourd’hui. Elle ne peut pas être retirée une fois envoyée. |||| L’annonce partira vers %{audience} : %{smart_count} comptes actifs et vérifiés aujourd’hui. Elle ne peut pas être retirée une fois envoyée.',
        queued: 'Annonce mise en file d’envoi',
        progress: '%{sent} sur %{recipients}',
        progressLabel: 'Envoi de « %{title} »',
      },
    },
  },
  en: {
    resources: {
      announcements: {
        name: 'Announcement |||| Announcements',
        fields: {
          title: 'Title',
          message: 'Message',
          role: 'Recipients',
          status: 'Status',
          sent: 'Sending',
          createdAt: 'Created',
          finishedAt: 'Finished',
        },
      },
    },
    console: {
      announcementStatus: { QUEUED: 'Queued', SENDING: 'Sending', SENT: 'Sent' },
      announcements: {
        new: 'New announcement',
        intro:
          'The message goes out as a notification (and by push, SMS or email as each user chose) to every active, verified account, of every role or of one.',
        messageHelp: '500 characters at most: it is also the text of the push, SMS and email',
        everyone: 'Every user',
        review: 'Send…',
        send: 'Send',
        toEveryone: 'every user',
        toRole: 'the users of the role %{role}',
        confirmTitle: 'Send “%{title}”?',
        confirmContent:
          'The announcement will go to %{audience}: %{smart_count} active, verified account today. It cannot be withdrawn once sent. |||| The announcement will go to %{audience}: %{smart_count} active, verified accounts today. It cannot be withdrawn once sent.',
        queued: 'Announcement queued for sending',
        progress: '%{sent} of %{recipients}',
        progressLabel: 'Sending “%{title}”',
      },
    },
  },
};
