import PeopleIcon from '@mui/icons-material/People';
import { lazy } from 'react';
import { Resource } from 'react-admin';

const UserList = lazy(() => import('./UserList'));
const UserShow = lazy(() => import('./UserShow'));

export const usersResources = [
  <Resource
    key="users"
    name="users"
    list={UserList}
    show={UserShow}
    icon={PeopleIcon}
    recordRepresentation={(u) => [u.profile?.firstName, u.profile?.lastName].filter(Boolean).join(' ') || u.phoneNumber}
  />,
];
