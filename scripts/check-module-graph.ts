// Fails on a loop between modules. Reads dependency-cruiser's JSON (a file named as argument, or standard input),
// collapses files to their unit (scripts/boundaries.ts: `unitOf`) and looks for groups of units that import each
// other through value imports. The groups tolerated today are listed in .module-cycles-known.json: a known group
// may shrink, never grow, and a new one fails.
//   npx depcruise src scripts bench test -T json | node --import tsx scripts/check-module-graph.ts
import { readFileSync } from 'node:fs';
import type { ICruiseResult } from 'dependency-cruiser';
import { describeLoop, KNOWN_MODULE_CYCLES, unitCycles, unitGraph } from './boundaries.js';

export type ModuleGraphCheck = { failures: string[]; notes: string[]; cycles: string[][] };

/**
 * Type-only imports are left out: they are erased when compiled and the application context (`AppContext`, the
 * types of every service) is imported by every module, so counted with types everything would be one loop.
 */
export function checkModuleGraph(result: ICruiseResult, known: string[][]): ModuleGraphCheck {
  const graph = unitGraph(result, { types: false });
  const cycles = unitCycles(graph);
  const failures: string[] = [];
  for (const group of cycles) {
    if (known.some((k) => group.every((u) => k.includes(u)))) continue;
    failures.push(
      `error module-cycle: ${group.join(', ')} import each other in a loop, e.g.\n` +
        describeLoop(graph, group)
          .map((l) => `      ${l}`)
          .join('\n'),
    );
  }
  // A known loop no group covers any more has shrunk or gone: its entry can shrink too.
  const notes = known
    .filter((k) => !cycles.some((g) => k.every((u) => g.includes(u))))
    .map((k) => `note: known module cycle ${k.join(', ')} is gone or smaller: run npm run lint:boundaries:baseline`);
  return { failures, notes, cycles };
}

export function readKnownModuleCycles(): string[][] {
  return JSON.parse(readFileSync(KNOWN_MODULE_CYCLES, 'utf8')) as string[][];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const input = readFileSync(process.argv[2] ?? 0, 'utf8');
  const { failures, notes } = checkModuleGraph(JSON.parse(input) as ICruiseResult, readKnownModuleCycles());
  for (const line of [...failures, ...notes]) console.log(line);
  process.exitCode = failures.length ? 1 : 0;
}
