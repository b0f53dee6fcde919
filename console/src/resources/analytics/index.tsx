import LeaderboardIcon from '@mui/icons-material/Leaderboard';
import { lazy } from 'react';
import { Resource } from 'react-admin';

const TopAnalytics = lazy(() => import('./TopAnalytics'));

export const analyticsResources = [
  <Resource key="analytics-top" name="analytics-top" list={TopAnalytics} icon={LeaderboardIcon} />,
];
