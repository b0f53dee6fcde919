export * from './audit.js';
export * from './subscriptions.js';
export * from './suppliers.js';
export * from './users.js';
