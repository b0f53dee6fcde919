/** The console's own words outside any one domain; a domain's words live beside its pages. */
export const commonMessages = {
  fr: {
    console: {
      title: 'FoodSave · Console',
      login: {
        phone: 'Numéro de téléphone',
        password: 'Mot de passe',
        submit: 'Se connecter',
        failed: 'Connexion refusée',
      },
      refusal: {
        title: 'Accès réservé aux administrateurs',
        body: 'Ce compte n’est pas un compte administrateur. La console sert à l’équipe qui gère la plateforme ; utilisez l’application mobile avec ce compte.',
        again: 'Se connecter avec un autre compte',
      },
      auth: { signed_out: 'Votre session est terminée ; reconnectez-vous.' },
      confirm: { amount: 'Montant : %{amount}' },
      decision: {
        reasonRequired: 'Motif',
        reasonOptional: 'Motif (facultatif)',
        reasonHelp: 'Au moins %{min} caractères.',
      },
    },
  },
  en: {
    console: {
      title: 'FoodSave · Console',
      login: { phone: 'Phone number', password: 'Password', submit: 'Sign in', failed: 'Sign-in refused' },
      refusal: {
        title: 'For administrators only',
        body: 'This account is not an administrator’s. The console is for the team that runs the platform; use the mobile app with this account.',
        again: 'Sign in with another account',
      },
      auth: { signed_out: 'Your session has ended; sign in again.' },
      confirm: { amount: 'Amount: %{amount}' },
      decision: {
        reasonRequired: 'Reason',
        reasonOptional: 'Reason (optional)',
        reasonHelp: 'At least %{min} characters.',
      },
    },
  },
};
