import polyglotI18nProvider from 'ra-i18n-polyglot';
import french from 'ra-language-french';
import english from 'ra-language-english';
import { mergeTranslations, type TranslationMessages } from 'react-admin';
import { analyticsMessages } from '../resources/analytics/analytics.messages';
import { announcementsMessages } from '../resources/announcements/announcements.messages';
import { dashboardMessages } from '../dashboard/dashboard.messages';
import { associationsMessages } from '../resources/associations/associations.messages';
import { kycMessages } from '../resources/kyc/kyc.messages';
import { moderationMessages } from '../resources/moderation/moderation.messages';
import { moneyMessages } from '../resources/money/money.messages';
import { settingsMessages } from '../resources/settings/settings.messages';
import { subscriptionsMessages } from '../resources/subscriptions/subscriptions.messages';
import { suppliersMessages } from '../resources/suppliers/suppliers.messages';
import { usersMessages } from '../resources/users/users.messages';
import { commonMessages } from './common';

/** Each domain's words, French and English: one line per domain. */
const DOMAINS = [
  commonMessages,
  dashboardMessages,
  usersMessages,
  moderationMessages,
  suppliersMessages,
  kycMessages,
  associationsMessages,
  subscriptionsMessages,
  settingsMessages,
  analyticsMessages,
  announcementsMessages,
  moneyMessages,
];

const fr = mergeTranslations(french, ...DOMAINS.map((d) => d.fr)) as TranslationMessages;
const en = mergeTranslations(english, ...DOMAINS.map((d) => d.en)) as TranslationMessages;

export const LOCALES = [
  { locale: 'fr', name: 'Français' },
  { locale: 'en', name: 'English' },
];

/** French first; English from the switch in the top bar (kept by react-admin's store). */
export const i18nProvider = polyglotI18nProvider((locale) => (locale === 'en' ? en : fr), 'fr', LOCALES, {
  allowMissing: true,
});
