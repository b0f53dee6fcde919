import FactCheckIcon from '@mui/icons-material/FactCheck';
import { lazy } from 'react';
import { Resource } from 'react-admin';

const KycList = lazy(() => import('./KycList'));
const KycAttemptShow = lazy(() => import('./KycAttemptShow'));

export const kycResources = [
  <Resource
    key="kyc-attempts"
    name="kyc-attempts"
    list={KycList}
    show={KycAttemptShow}
    icon={FactCheckIcon}
    recordRepresentation={(a) => a.supplier?.businessName ?? a.supplierId}
  />,
];
