import type { App } from '../../http/types.js';
import { OkPage, okPage } from '../../shared/schemas.js';
import * as S from './payouts-admin.schemas.js';
import type { PayoutsAdminService } from './payouts-admin.service.js';

export function payoutsAdminRoutes(admin: PayoutsAdminService) {
  return async (app: App) => {
    app.get(
      '/admin/payments/payouts',
      {
        config: { access: 'ADM' },
        schema: {
          tags: ['admin: payments'],
          summary:
            'Payouts to suppliers and associations, newest first: filters by state, payee, waiting for a number and time created',
          querystring: S.PayoutListQuerySchema,
          response: { 200: OkPage(S.AdminPayoutSchema) },
        },
      },
      async (req) => {
        const r = await admin.list(req.query);
        return okPage(r.items, r.meta);
      },
    );
  };
}
