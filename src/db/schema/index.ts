export * from './audit.js';
export * from './suppliers.js';
export * from './users.js';
export * from './staff.js';
export * from './stores.js';
