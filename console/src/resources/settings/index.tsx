import SettingsIcon from '@mui/icons-material/Settings';
import { lazy } from 'react';
import { Resource } from 'react-admin';

const SettingsPage = lazy(() => import('./SettingsPage'));

export const settingsResources = [<Resource key="settings" name="settings" list={SettingsPage} icon={SettingsIcon} />];
