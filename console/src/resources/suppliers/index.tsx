import HourglassTopIcon from '@mui/icons-material/HourglassTop';
import StorefrontIcon from '@mui/icons-material/Storefront';
import { lazy } from 'react';
import { Resource } from 'react-admin';

const SupplierList = lazy(() => import('./SupplierList'));
const PendingSupplierList = lazy(() => import('./SupplierList').then((m) => ({ default: m.PendingSupplierList })));
const SupplierShow = lazy(() => import('./SupplierShow'));

export const suppliersResources = [
  <Resource
    key="suppliers"
    name="suppliers"
    list={SupplierList}
    show={SupplierShow}
    icon={StorefrontIcon}
    recordRepresentation="businessName"
  />,
  <Resource key="suppliers-pending" name="suppliers-pending" list={PendingSupplierList} icon={HourglassTopIcon} />,
  <Resource key="supplier-stores" name="supplier-stores" />,
];
