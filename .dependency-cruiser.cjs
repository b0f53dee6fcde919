// Module boundaries, checked by `npm run lint:boundaries` (docs/architecture.md, "Module boundaries").
// Today's violations are listed in .dependency-cruiser-known-violations.json (`npm run lint:boundaries:baseline`):
// they are tolerated, anything new fails. The list is meant to shrink to nothing.

// A test arranges states and reads rows through internals: that is its job, and it never ships.
const TEST = ['\\.test\\.ts$', '\\.test-support\\.ts$', '^test/(?!helpers/)'];

// Folders with a face: only their index.ts may be imported from outside them.
const FACED = '^src/(modules/[^/]+|listings)/';
const FACE = '^src/(modules/[^/]+|listings)/index\\.ts$';

// Each file of src/db/schema/ belongs to the code that owns its tables; nothing else imports it (src/db itself,
// the seed and tests excepted). Where a file holds the tables of two modules, both own it until it is split.
const TABLE_OWNERS = {
  advertising: ['src/modules/advertising/'],
  announcements: ['src/modules/announcements/'],
  associations: ['src/modules/associations/'],
  audit: ['src/modules/audit/'],
  deals: ['src/modules/deals/'],
  donations: ['src/modules/donations/'],
  escrow: ['src/modules/escrow/'],
  // event_handlings: which subscriber already handled which event, the event bus's own bookkeeping.
  events: ['src/jobs/'],
  // idempotency_keys: the stored answers of the Idempotency-Key header.
  idempotency: ['src/http/'],
  // Every table at once: only the database client may take them all.
  index: [],
  kyc: ['src/modules/kyc/'],
  ledger: ['src/modules/ledger/'],
  notifications: ['src/modules/notifications/'],
  orders: ['src/modules/orders/'],
  payments: ['src/modules/payments/'],
  payouts: ['src/modules/payouts/'],
  // Also holds product_searches and product_search_lexemes, written by product-search.
  products: ['src/modules/products/', 'src/modules/product-search/'],
  reviews: ['src/modules/reviews/'],
  // The sandbox provider's checkout sessions and payouts.
  'sandbox-payments': ['src/providers/payments/'],
  settings: ['src/modules/settings/'],
  staff: ['src/modules/staff/'],
  stores: ['src/modules/stores/'],
  subscriptions: ['src/modules/subscriptions/'],
  suppliers: ['src/modules/suppliers/'],
  // Also holds auth's sessions, otp_codes, otp_sends and identities.
  users: ['src/modules/users/', 'src/modules/auth/'],
};

// Read models: a file allowed to read another domain's tables, with the reason. Keep the list short: each is a
// query that would otherwise ask another module row by row (lists at scale, a guard on every request).
const READ_MODELS = {
  'src/http/access.ts': { tables: ['users'], why: "the guard reads the caller's role and status on every request" },
  'src/modules/suppliers/supplier-visibility.ts': {
    tables: ['users'],
    why: "a supplier is public while its account is active: the one rule other modules' lists filter with",
  },
  'src/modules/suppliers/suppliers.repository.ts': {
    tables: ['users'],
    why: "a profile is shown with its account's status",
  },
  'src/modules/suppliers/suppliers-search.repository.ts': {
    tables: ['users'],
    why: 'the supplier lists filter on the account',
  },
  'src/modules/associations/associations.repository.ts': {
    tables: ['users'],
    why: 'as suppliers: active accounts only',
  },
  'src/modules/associations/associations-search.repository.ts': { tables: ['users'], why: 'as suppliers' },
  'src/modules/products/product-visibility.ts': { tables: ['stores'], why: 'a product is public while its store is' },
  'src/modules/products/products.repository.ts': {
    tables: ['stores', 'suppliers'],
    why: "the product page is one query with its store's and supplier's card",
  },
  'src/modules/product-search/product-search.repository.ts': {
    tables: ['stores'],
    why: 'the search filters on the store (city, open now) inside the ranked query',
  },
  'src/modules/deals/deals.repository.ts': { tables: ['stores'], why: "bookings are listed with their store's name" },
  'src/modules/deals/deals-search.repository.ts': { tables: ['stores'], why: 'as product search: open now, city' },
  'src/modules/staff/staff.repository.ts': {
    tables: ['stores'],
    why: 'members and invitations are listed with their store',
  },
  'src/modules/escrow/escrow-admin.repository.ts': {
    tables: ['orders', 'payments', 'payouts', 'stores', 'suppliers', 'users'],
    why: "the operators' escrow list: each hold with its order, payer, supplier, store and payout, paged in one query",
  },
  'src/modules/payouts/payouts-admin.repository.ts': {
    tables: ['associations', 'suppliers'],
    why: "the operators' payout list with each payee's name, paged in one query",
  },
};

// Test helpers and benchmarks arrange large states faster than the API could: each internal file they use is
// declared here with the reason, so a new one is a decision and not an accident.
const TOOLING_INTERNALS = {
  'bench/seed.ts': {
    uses: [
      'src/db/schema/users.ts',
      'src/db/schema/suppliers.ts',
      'src/db/schema/stores.ts',
      'src/db/schema/products.ts',
      'src/db/schema/deals.ts',
      'src/modules/products/product-catalog.ts',
      'src/modules/products/product-search-document.ts',
      'src/modules/products/products.repository.ts',
    ],
    why: 'inserts a hundred thousand rows in bulk, with the search documents the products repository computes',
  },
  'bench/ads-setup.ts': {
    uses: ['src/db/schema/advertising.ts', 'src/modules/products/product-catalog.ts'],
    why: 'inserts campaigns in bulk',
  },
  'bench/reviews-setup.ts': {
    uses: ['src/db/schema/users.ts', 'src/db/schema/reviews.ts'],
    why: 'inserts reviewers and reviews in bulk',
  },
  'bench/server.ts': {
    uses: ['src/db/schema/users.ts', 'src/db/schema/notifications.ts'],
    why: 'a reference route reads one user by id, the floor of one read; the bench inbox is inserted in bulk',
  },
  'test/helpers/factories.ts': {
    uses: [
      'src/db/schema/users.ts',
      'src/db/schema/suppliers.ts',
      'src/db/schema/stores.ts',
      'src/db/schema/subscriptions.ts',
    ],
    why: 'creates verified suppliers and their stores directly: most tests need one, the API takes many steps',
  },
  'test/helpers/money-invariants.ts': {
    uses: ['src/modules/ledger/accounts.ts'],
    why: 'the invariants name ledger accounts to sum them',
  },
};

// Module files the database schema may import: leaf files (they import nothing), whose closed lists type columns.
const SCHEMA_TYPES = {
  'src/modules/products/product-catalog.ts':
    "the catalogue's categories, dietary tags and allergens type their columns",
};

const exactly = (file) => `^${file.replace(/[.]/g, '\\.')}$`;
const readersOf = (table) => Object.keys(READ_MODELS).filter((f) => READ_MODELS[f].tables.includes(table));

// One rule a table file: what may import it is its owners, its declared readers, src/db, the seed and tests.
const tableRules = Object.entries(TABLE_OWNERS).map(([file, owners]) => ({
  name: 'no-foreign-tables',
  comment: `src/db/schema/${file}.ts belongs to ${owners.join(', ') || 'src/db'}: read its rows through that face`,
  severity: 'error',
  from: {
    path: '^(src|scripts)/',
    pathNot: ['^src/db/', '^src/seed/', ...TEST, ...owners.map((o) => `^${o}`), ...readersOf(file).map(exactly)],
  },
  to: { path: `^src/db/schema/${file}\\.ts$` },
}));

const INTERNAL = [`${FACED}(?!index\\.ts$)`, '^src/db/schema/'];
const TOOLING = '^(bench|test)/';
// Each declared tooling file may use its list; any other tooling file, no internal at all.
const toolingRules = [
  {
    name: 'undeclared-tooling-internal',
    comment: 'Test helpers and benchmarks use module internals and tables only as declared in TOOLING_INTERNALS.',
    severity: 'error',
    from: { path: TOOLING, pathNot: [...TEST, ...Object.keys(TOOLING_INTERNALS).map(exactly)] },
    to: { path: INTERNAL },
  },
  ...Object.entries(TOOLING_INTERNALS).map(([file, { uses }]) => ({
    name: 'undeclared-tooling-internal',
    comment: `${file} uses only the internals TOOLING_INTERNALS declares for it.`,
    severity: 'error',
    from: { path: exactly(file) },
    to: { path: INTERNAL, pathNot: uses.map(exactly) },
  })),
];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-deep-import',
      comment: "A module imports another only through its index.ts; the rest of a module's folder is private.",
      severity: 'error',
      from: { path: '^src/(modules/[^/]+|listings)/', pathNot: TEST },
      to: { path: FACED, pathNot: ['^src/$1/', FACE] },
    },
    {
      name: 'no-deep-import',
      comment: 'Code outside the modules imports a module only through its index.ts.',
      severity: 'error',
      from: { path: '^(src|scripts)/', pathNot: [FACED, '^src/db/schema/', ...TEST] },
      to: { path: FACED, pathNot: FACE },
    },
    {
      name: 'no-deep-import',
      comment: 'The database schema imports a module only for the closed lists SCHEMA_TYPES names.',
      severity: 'error',
      from: { path: '^src/db/schema/' },
      to: { path: FACED, pathNot: [FACE, ...Object.keys(SCHEMA_TYPES).map(exactly)] },
    },
    ...tableRules,
    {
      name: 'unmapped-table-file',
      comment: 'A new file of src/db/schema/ needs its owner in TABLE_OWNERS of .dependency-cruiser.cjs.',
      severity: 'error',
      from: { pathNot: '^src/db/' },
      to: { path: '^src/db/schema/', pathNot: `^src/db/schema/(${Object.keys(TABLE_OWNERS).join('|')})\\.ts$` },
    },
    ...toolingRules,
    {
      name: 'no-circular',
      comment:
        'No file needs itself through others, type-only imports included: two files that need each other cannot ' +
        'be read or changed apart (a shared types file cures it). Loops between modules: scripts/check-module-graph.ts.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Test files are leaves (nothing imports them) and exempt from every rule: no need to read them.
    exclude: { path: ['^test/fixtures/', '\\.test\\.ts$'] },
    // Only the project's own files: packages are neither followed nor resolved.
    includeOnly: '^(src|scripts|bench|test)/',
    // Keeps type-only imports in the graph, marked `type-only`, instead of dropping them as compiled code does.
    tsPreCompilationDeps: true,
    skipAnalysisNotInRules: true,
  },
};
