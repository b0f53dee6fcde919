export * from './audit.js';
export * from './kyc.js';
export * from './settings.js';
export * from './staff.js';
export * from './stores.js';
export * from './subscriptions.js';
export * from './suppliers.js';
export * from './users.js';
