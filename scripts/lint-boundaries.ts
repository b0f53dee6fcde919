// `npm run lint:boundaries`: one cruise of the tree, checked against the rules of .dependency-cruiser.cjs (today's
// violations in .dependency-cruiser-known-violations.json tolerated) and for loops between modules
// (.module-cycles-known.json tolerated). `--baseline` (`npm run lint:boundaries:baseline`) rewrites both lists
// from the tree as it is: run it when a violation is fixed, never to hide a new one.
import { writeFileSync } from 'node:fs';
import { format } from 'dependency-cruiser';
import { cruiseTree, KNOWN_MODULE_CYCLES, KNOWN_VIOLATIONS } from './boundaries.js';
import { checkModuleGraph, readKnownModuleCycles } from './check-module-graph.js';

const baseline = process.argv.includes('--baseline');
const result = await cruiseTree(undefined, { ignoreKnown: !baseline });

if (baseline) {
  const { output } = await format(result, { outputType: 'baseline' });
  writeFileSync(KNOWN_VIOLATIONS, String(output));
  const { cycles } = checkModuleGraph(result, []);
  writeFileSync(KNOWN_MODULE_CYCLES, `${JSON.stringify(cycles, null, 2)}\n`);
  const known = (JSON.parse(String(output)) as unknown[]).length;
  console.log(`${known} known violations, ${cycles.length} known module cycles written.`);
} else {
  const { output, exitCode } = await format(result, { outputType: 'err' });
  const { failures, notes } = checkModuleGraph(result, readKnownModuleCycles());
  if (exitCode) process.stdout.write(String(output));
  for (const line of [...failures, ...notes]) console.log(line);
  const ignored = result.summary.ignore;
  if (!exitCode && !failures.length) console.log(`Module boundaries hold (${ignored} known violations tolerated).`);
  process.exitCode = exitCode || failures.length ? 1 : 0;
}
