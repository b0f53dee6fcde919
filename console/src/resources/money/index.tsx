import AccountBalanceIcon from '@mui/icons-material/AccountBalance';
import AssessmentIcon from '@mui/icons-material/Assessment';
import PaymentsIcon from '@mui/icons-material/Payments';
import ReceiptLongIcon from '@mui/icons-material/ReceiptLong';
import { lazy } from 'react';
import { Resource } from 'react-admin';

const EscrowList = lazy(() => import('./EscrowList'));
const EscrowShow = lazy(() => import('./EscrowShow'));
const PayoutList = lazy(() => import('./PayoutList'));
const PaymentStatistics = lazy(() => import('./PaymentStatistics'));
const FinancialReport = lazy(() => import('./FinancialReport'));

// The statistics and the report are pages of their own, declared as resources so the menu lists them.
export const moneyResources = [
  <Resource key="escrows" name="escrows" list={EscrowList} show={EscrowShow} icon={AccountBalanceIcon} />,
  <Resource key="payouts" name="payouts" list={PayoutList} icon={PaymentsIcon} />,
  <Resource key="payment-statistics" name="payment-statistics" list={PaymentStatistics} icon={AssessmentIcon} />,
  <Resource key="financial-report" name="financial-report" list={FinancialReport} icon={ReceiptLongIcon} />,
];
