import CardMembershipIcon from '@mui/icons-material/CardMembership';
import LocalOfferIcon from '@mui/icons-material/LocalOffer';
import { lazy } from 'react';
import { Resource } from 'react-admin';
import { Route } from 'react-router-dom';

const PlanList = lazy(() => import('./PlanList'));
const PlanCreate = lazy(() => import('./PlanCreate'));
const PlanEdit = lazy(() => import('./PlanEdit'));
const PromoCodeList = lazy(() => import('./PromoCodeList'));
const PromoCodeCreate = lazy(() => import('./PromoCodeCreate'));
const PromoCodeBulk = lazy(() => import('./PromoCodeBulk'));

export const subscriptionsResources = [
  <Resource key="plans" name="plans" list={PlanList} create={PlanCreate} edit={PlanEdit} icon={CardMembershipIcon} />,
  <Resource key="promo-codes" name="promo-codes" list={PromoCodeList} create={PromoCodeCreate} icon={LocalOfferIcon}>
    <Route path="bulk" element={<PromoCodeBulk />} />
  </Resource>,
];
