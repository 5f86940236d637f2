// The whole database schema, gathered from the modules for drizzle-kit (`npm run db:generate`).
export * from './modules/accounts/schema.js';
export * from './modules/catalog/schema.js';
export * from './modules/entries/schema.js';
export * from './modules/events/schema.js';
export * from './modules/invoices/schema.js';
export * from './modules/tokens/schema.js';
export * from './modules/webhooks/schema.js';
export * from './modules/sessions/schema.js';
export * from './modules/imports/schema.js';
export * from './modules/mail/schema.js';
export * from './modules/oidc/schema.js';
export * from './modules/approvals/schema.js';
export * from './modules/expenses/schema.js';
