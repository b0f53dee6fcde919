import { defineModule } from '../module.js';
import { kycRoutes } from './kyc.routes.js';
import { createKycService, type KycService } from './kyc.service.js';

/** Suppliers' identity checks: attempts, private documents, administrators' decisions. */
export interface KycApi {
  approveSupplier: KycService['approveSupplier'];
  figures: KycService['figures'];
  submit: KycService['submit'];
}

declare module '../module.js' {
  interface ModuleApis {
    kyc: KycApi;
  }
}

export const kycModule = defineModule({
  name: 'kyc',
  needs: ['suppliers'],
  build(ctx, { suppliers }) {
    const kyc = createKycService(ctx, { suppliers });
    return { api: kyc, routes: kycRoutes(kyc) };
  },
});
