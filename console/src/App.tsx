import { lazy } from 'react';
import { Admin } from 'react-admin';
import { BrowserRouter } from 'react-router-dom';
import { authProvider } from './authProvider';
import { dataProvider } from './dataProvider';
import { i18nProvider } from './i18n';
import { Layout } from './Layout';
import { LoginPage } from './LoginPage';
import { analyticsResources } from './resources/analytics';
import { announcementsResources } from './resources/announcements';
import { associationsResources } from './resources/associations';
import { kycResources } from './resources/kyc';
import { moderationResources } from './resources/moderation';
import { moneyResources } from './resources/money';
import { settingsResources } from './resources/settings';
import { subscriptionsResources } from './resources/subscriptions';
import { suppliersResources } from './resources/suppliers';
import { usersResources } from './resources/users';
import { darkTheme, lightTheme } from './theme';

const Dashboard = lazy(() => import('./dashboard/Dashboard'));

export function App() {
  return (
    // Real paths under /console (the server answers the page for any of them), not a hash router.
    <BrowserRouter basename="/console">
      <Admin
        title="FoodSave"
        dashboard={Dashboard}
        authProvider={authProvider}
        dataProvider={dataProvider}
        i18nProvider={i18nProvider}
        loginPage={LoginPage}
        layout={Layout}
        theme={lightTheme}
        darkTheme={darkTheme}
        requireAuth
        disableTelemetry
      >
        {usersResources}
        {suppliersResources}
        {kycResources}
        {associationsResources}
        {moderationResources}
        {moneyResources}
        {subscriptionsResources}
        {settingsResources}
        {analyticsResources}
        {announcementsResources}
      </Admin>
    </BrowserRouter>
  );
}
