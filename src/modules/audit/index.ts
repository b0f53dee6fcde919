export { listAdminActions, recordAdminAction } from './audit.service.js';
