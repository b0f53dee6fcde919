import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ICruiseResult } from 'dependency-cruiser';
import { beforeAll, describe, expect, it } from 'vitest';
import { BEGIN, cruiseTree, END, renderModuleGraph } from '../scripts/boundaries.js';
import { checkModuleGraph, readKnownModuleCycles } from '../scripts/check-module-graph.js';
import { FACES_BEGIN, FACES_END, renderFaces } from '../scripts/module-faces.js';

// Each fixture is a small tree laid out like the project's, cruised with the project's own rules
// (.dependency-cruiser.cjs), as `npm run lint:boundaries` cruises the real one.
const fixture = (name: string) => cruiseTree(fileURLToPath(new URL(`./fixtures/boundaries/${name}/`, import.meta.url)));
const rejected = (r: ICruiseResult) =>
  r.summary.violations
    .filter((v) => v.rule.severity !== 'ignore')
    .map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`)
    .sort();

describe('module boundaries: what the checker rejects', () => {
  it('rejects an import of another module’s private file, from a module or from outside the modules', async () => {
    expect(rejected(await fixture('deep-import'))).toEqual([
      'no-deep-import: src/app.ts -> src/modules/a/a.service.ts',
      'no-deep-import: src/modules/b/b.service.ts -> src/modules/a/a.repository.ts',
      'undeclared-tooling-internal: test/helpers/factories.ts -> src/modules/a/a.repository.ts',
      'undeclared-tooling-internal: test/helpers/money-invariants.ts -> src/modules/ledger/ledger.repository.ts',
    ]);
    // Not listed above, so accepted: b through a's index.ts, b's test support into a, and the ledger accounts
    // that TOOLING_INTERNALS declares for the money invariants.
  });

  it('rejects a module reading another domain’s tables, every table at once, or an unowned table file', async () => {
    expect(rejected(await fixture('foreign-table'))).toEqual([
      'no-foreign-tables: src/http/access.ts -> src/db/schema/index.ts',
      'no-foreign-tables: src/modules/payments/payments.repository.ts -> src/db/schema/orders.ts',
      'unmapped-table-file: src/modules/payments/payments.repository.ts -> src/db/schema/widgets.ts',
    ]);
    // Accepted: orders reading orders.ts, auth reading users.ts (which holds its sessions), the seed, src/db.
  });

  it('rejects a cycle between files, a type-only one included', async () => {
    const result = await fixture('file-cycle');
    expect(rejected(result)).toEqual([
      'no-circular: src/shared/a.ts -> src/shared/b.ts',
      'no-circular: src/shared/c.ts -> src/shared/d.ts',
    ]);
    const cycles = result.summary.violations.map((v) => v.cycle?.map((c) => c.name));
    expect(cycles).toContainEqual(['src/shared/b.ts', 'src/shared/a.ts']);
  });

  it('rejects a loop between modules made of value imports, though no file imports itself back', async () => {
    const result = await fixture('module-cycle');
    expect(rejected(result)).toEqual([]);
    const check = checkModuleGraph(result, []);
    // c's service imports a type of a, and a imports c: type-only imports are erased, that is no loop.
    expect(check.cycles).toEqual([['a', 'b']]);
    expect(check.failures).toHaveLength(1);
    expect(check.failures[0]).toContain('module-cycle: a, b import each other in a loop');
    expect(check.failures[0]).toContain('b -> a (src/modules/b/b.service.ts -> src/modules/a/index.ts)');
    // A known loop is tolerated, and so is one that shrank; one that grew is not.
    expect(checkModuleGraph(result, [['a', 'b']])).toMatchObject({ failures: [], notes: [] });
    const shrunk = checkModuleGraph(result, [['a', 'b', 'c']]);
    expect(shrunk.failures).toEqual([]);
    expect(shrunk.notes).toEqual([expect.stringContaining('known module cycle a, b, c is gone or smaller')]);
    expect(checkModuleGraph(result, [['a', 'c']]).failures).toHaveLength(1);
  });
});

describe('module boundaries: the project', () => {
  let result: ICruiseResult;
  beforeAll(async () => {
    result = await cruiseTree(undefined, { ignoreKnown: true });
  }, 180_000);

  it('breaks no rule beyond the known violations, and no module loop beyond the known ones', () => {
    expect(result.summary.totalCruised).toBeGreaterThan(300);
    expect(rejected(result)).toEqual([]);
    expect(checkModuleGraph(result, readKnownModuleCycles()).failures).toEqual([]);
  });

  it('draws the module graph of docs/architecture.md from the imports as they are', () => {
    const doc = readFileSync(new URL('../docs/architecture.md', import.meta.url), 'utf8');
    const drawn = doc.slice(doc.indexOf(BEGIN), doc.indexOf(END) + END.length);
    // When this fails, run `npm run docs:modules` and commit the result.
    expect(drawn).toBe(renderModuleGraph(result));
  });

  it("lists each module's needs and what its face offers in docs/architecture.md as they are", () => {
    const doc = readFileSync(new URL('../docs/architecture.md', import.meta.url), 'utf8');
    const table = doc.slice(doc.indexOf(FACES_BEGIN), doc.indexOf(FACES_END) + FACES_END.length);
    // When this fails, run `npm run docs:modules` and commit the result.
    expect(table).toBe(renderFaces());
  });
});
