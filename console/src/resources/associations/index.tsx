import PendingActionsIcon from '@mui/icons-material/PendingActions';
import VolunteerActivismIcon from '@mui/icons-material/VolunteerActivism';
import { lazy } from 'react';
import { Resource } from 'react-admin';

const AssociationList = lazy(() => import('./AssociationList'));
const PendingAssociationList = lazy(() =>
  import('./AssociationList').then((m) => ({ default: m.PendingAssociationList })),
);

export const associationsResources = [
  <Resource key="associations" name="associations" list={AssociationList} icon={VolunteerActivismIcon} />,
  <Resource
    key="associations-pending"
    name="associations-pending"
    list={PendingAssociationList}
    icon={PendingActionsIcon}
  />,
];
