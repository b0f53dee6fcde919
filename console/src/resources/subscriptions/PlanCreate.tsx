import { Create } from 'react-admin';
import { PlanForm } from './PlanForm';

const DEFAULTS = {
  priceAmount: 0,
  periodDays: 30,
  maxProducts: null,
  commissionDiscountBps: 0,
  features: [],
  sortOrder: 0,
  isPublic: true,
  isActive: true,
};

export default function PlanCreate() {
  return (
    <Create redirect="list" record={DEFAULTS}>
      <PlanForm creating />
    </Create>
  );
}
