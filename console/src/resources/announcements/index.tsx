import AnnouncementIcon from '@mui/icons-material/Announcement';
import { lazy } from 'react';
import { Resource } from 'react-admin';

const AnnouncementList = lazy(() => import('./AnnouncementList'));
const AnnouncementCreate = lazy(() => import('./AnnouncementCreate'));

export const announcementsResources = [
  <Resource
    key="announcements"
    name="announcements"
    list={AnnouncementList}
    create={AnnouncementCreate}
    icon={AnnouncementIcon}
  />,
];
