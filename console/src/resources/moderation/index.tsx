import BallotIcon from '@mui/icons-material/Ballot';
import CampaignIcon from '@mui/icons-material/Campaign';
import FactCheckIcon from '@mui/icons-material/FactCheck';
import Inventory2Icon from '@mui/icons-material/Inventory2';
import LocalOfferIcon from '@mui/icons-material/LocalOffer';
import ReportProblemIcon from '@mui/icons-material/ReportProblem';
import { lazy } from 'react';
import { Resource } from 'react-admin';

const ProductQueue = lazy(() => import('./Products').then((m) => ({ default: m.ProductQueue })));
const ProductList = lazy(() => import('./Products').then((m) => ({ default: m.ProductList })));
const DealQueue = lazy(() => import('./Deals'));
const CampaignQueue = lazy(() => import('./Campaigns').then((m) => ({ default: m.CampaignQueue })));
const CampaignList = lazy(() => import('./Campaigns').then((m) => ({ default: m.CampaignList })));
const ReportedReviews = lazy(() => import('./Reviews'));

/** The moderation queues first (the daily work), then the full lists they come from. */
export const moderationResources = [
  <Resource key="moderation-products" name="moderation-products" list={ProductQueue} icon={FactCheckIcon} />,
  <Resource key="moderation-deals" name="moderation-deals" list={DealQueue} icon={LocalOfferIcon} />,
  <Resource key="moderation-campaigns" name="moderation-campaigns" list={CampaignQueue} icon={BallotIcon} />,
  <Resource key="reported-reviews" name="reported-reviews" list={ReportedReviews} icon={ReportProblemIcon} />,
  <Resource key="products" name="products" list={ProductList} icon={Inventory2Icon} />,
  <Resource key="campaigns" name="campaigns" list={CampaignList} icon={CampaignIcon} />,
];
