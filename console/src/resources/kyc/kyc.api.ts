import { api, unwrap, unwrapPage, type Query } from '../../api';
import { given, page, type ResourceApi } from '../resource-api';

type AttemptStatus = Query<'/api/v1/admin/kyc/attempts'>['status'];

export const kycApis: Record<string, ResourceApi> = {
  'kyc-attempts': {
    list: async ({ page: p, perPage, filter }) => {
      const status = given<AttemptStatus>(filter.status);
      const supplierId = given<string>(filter.supplierId);
      // Pending ones alone are the review queue, oldest first; any other view is newest first.
      if (status === 'PENDING' && !supplierId) {
        return page(
          await unwrapPage(api.GET('/api/v1/admin/kyc/pending', { params: { query: { page: p, limit: perPage } } })),
        );
      }
      const query: Query<'/api/v1/admin/kyc/attempts'> = { page: p, limit: perPage, status, supplierId };
      return page(await unwrapPage(api.GET('/api/v1/admin/kyc/attempts', { params: { query } })));
    },
    one: (attemptId) => unwrap(api.GET('/api/v1/admin/kyc/attempts/{attemptId}', { params: { path: { attemptId } } })),
  },
};

export const reviewAttempt = (attemptId: string, decision: 'APPROVE' | 'REJECT', reason?: string) =>
  unwrap(
    api.POST('/api/v1/admin/kyc/attempts/{attemptId}/review', {
      params: { path: { attemptId } },
      body: { decision, reason },
    }),
  );

export const requestResubmission = (supplierId: string, reason: string) =>
  unwrap(
    api.POST('/api/v1/admin/kyc/suppliers/{supplierId}/request-resubmission', {
      params: { path: { supplierId } },
      body: { reason },
    }),
  );

export const kycStats = () => unwrap(api.GET('/api/v1/admin/kyc/stats'));
