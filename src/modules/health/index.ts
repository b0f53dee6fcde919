export { healthRoutes } from './health.routes.js';
export { createReadiness } from './readiness.js';
