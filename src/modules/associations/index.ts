import { defineModule } from '../module.js';
import { createAssociationsAdminService } from './associations-admin.service.js';
import { associationsRoutes } from './associations.routes.js';
import { createAssociationsService, type AssociationsService } from './associations.service.js';

/** Charities: their profiles and documents, verification by administrators, the public directory. */
export interface AssociationsApi {
  figures: AssociationsService['figures'];
  findById: AssociationsService['findById'];
  requireOwn: AssociationsService['requireOwn'];
  requirePublic: AssociationsService['requirePublic'];
}

declare module '../module.js' {
  interface ModuleApis {
    associations: AssociationsApi;
  }
}

export const associationsModule = defineModule({
  name: 'associations',
  needs: ['notifications'],
  build(ctx, { notifications }) {
    const associations = createAssociationsService(ctx);
    const admin = createAssociationsAdminService(ctx, { notifications });
    return { api: Object.assign(associations, { admin }), routes: associationsRoutes(associations, admin) };
  },
});
