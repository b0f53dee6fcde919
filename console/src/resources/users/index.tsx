import PeopleIcon from '@mui/icons-material/People';
import { lazy } from 'react';
import { Resource } from 'react-admin';

const UserList = lazy(() => import('./UserList'));

export const usersResources = [<Resource key="users" name="users" list={UserList} icon={PeopleIcon} />];
