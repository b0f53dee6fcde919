// The module boundaries as dependency-cruiser sees them: one cruise of the tree with .dependency-cruiser.cjs, and
// the graph of modules drawn from it. Used by `npm run lint:boundaries`, `npm run docs:modules` and their tests.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseResult, type IViolation } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const CONFIG = join(ROOT, '.dependency-cruiser.cjs');
export const KNOWN_VIOLATIONS = join(ROOT, '.dependency-cruiser-known-violations.json');
export const KNOWN_MODULE_CYCLES = join(ROOT, '.module-cycles-known.json');
const TREES = ['src', 'scripts', 'bench', 'test'];

/** Cruises the tree under `baseDir` (the project, or a fixture laid out like it) with the project's rules. */
export async function cruiseTree(baseDir = ROOT, opts: { ignoreKnown?: boolean } = {}): Promise<ICruiseResult> {
  const options = await extractDepcruiseOptions(CONFIG);
  const knownViolations = opts.ignoreKnown ? (JSON.parse(readFileSync(KNOWN_VIOLATIONS, 'utf8')) as IViolation[]) : [];
  const trees = TREES.filter((t) => existsSync(join(baseDir, t)));
  const { output } = await cruise(trees, { ...options, baseDir, knownViolations, outputType: 'json' });
  return typeof output === 'string' ? (JSON.parse(output) as ICruiseResult) : output;
}

/**
 * The unit a file of src/ belongs to in the module graph: `src/modules/<m>/**` is `<m>`, the other folders of
 * src/ one unit each (`db`, `shared`, `listings`...), a file at the top of src/ its own (`app`, `context`...).
 * The list of modules is part of `app`, their contract `module.ts` a unit of its own. Tests and their
 * support files belong to none: they may reach anywhere.
 */
export function unitOf(path: string): string | null {
  if (!path.startsWith('src/') || /\.test(-support)?\.ts$/.test(path)) return null;
  const parts = path.slice('src/'.length).split('/');
  if (parts[0] === 'modules' && parts.length > 2) return parts[1]!;
  // Beside the modules: their contract (`module.ts`), and the ordered list app.ts assembles (part of it).
  if (path === 'src/modules/index.ts') return 'app';
  if (path === 'src/modules/module.ts') return 'module';
  if (parts.length > 1) return parts[0]!;
  return parts[0]!.replace(/\.ts$/, '');
}

export const isModule = (unit: string, result: ICruiseResult) =>
  result.modules.some((m) => m.source.startsWith(`src/modules/${unit}/`));

/** One import that makes a unit depend on another (the first found, to show where an edge comes from). */
export type Edge = { from: string; to: string; typeOnly: boolean };
export type UnitGraph = Map<string, Map<string, Edge>>;

/** Units and the units they import; with `types: false`, type-only imports (erased when compiled) are left out. */
export function unitGraph(result: ICruiseResult, opts: { types: boolean }): UnitGraph {
  const graph: UnitGraph = new Map();
  for (const m of result.modules) {
    const a = unitOf(m.source);
    if (!a) continue;
    if (!graph.has(a)) graph.set(a, new Map());
    for (const d of m.dependencies) {
      const b = unitOf(d.resolved);
      const typeOnly = d.dependencyTypes.includes('type-only');
      if (!b || b === a || (typeOnly && !opts.types)) continue;
      const edges = graph.get(a)!;
      const seen = edges.get(b);
      if (!seen || (seen.typeOnly && !typeOnly)) edges.set(b, { from: m.source, to: d.resolved, typeOnly });
    }
  }
  return graph;
}

/** The groups of units that import each other in a loop (strongly connected components of two or more). */
export function unitCycles(graph: UnitGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      group.push(w);
    } while (w !== v);
    if (group.length > 1) groups.push(group.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return groups.sort((a, b) => a.join().localeCompare(b.join()));
}

/** One loop through a group, as the imports that make it: `a -> b (file -> file)`, ..., back to the first. */
export function describeLoop(graph: UnitGraph, group: string[]): string[] {
  const inGroup = new Set(group);
  const start = group[0]!;
  // Breadth-first from the start back to itself, inside the group: the shortest loop, the easiest to read.
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const v = queue.shift()!;
    for (const w of graph.get(v)?.keys() ?? []) {
      if (!inGroup.has(w) || previous.has(w)) continue;
      previous.set(w, v);
      if (w === start) break;
      queue.push(w);
    }
    if (previous.has(start)) break;
  }
  const loop: string[] = [];
  for (let w = start, v = previous.get(w)!; ; w = v, v = previous.get(v)!) {
    const e = graph.get(v)!.get(w)!;
    loop.unshift(`${v} -> ${w} (${e.from} -> ${e.to})`);
    if (v === start) break;
  }
  return loop;
}

export const BEGIN = '<!-- modules:start -->';
export const END = '<!-- modules:end -->';

/** The module graph for docs/architecture.md: value imports between modules, as Mermaid and as one line each. */
export function renderModuleGraph(result: ICruiseResult): string {
  const graph = unitGraph(result, { types: false });
  const modules = [...graph.keys()].filter((u) => isModule(u, result)).sort();
  const depsOf = (m: string) => [...graph.get(m)!.keys()].filter((u) => modules.includes(u)).sort();
  const id = (m: string) => m.replace(/-/g, '_');
  const lines = [BEGIN, '<!-- Written by `npm run docs:modules` from the imports; do not edit by hand. -->', ''];
  lines.push('```mermaid', 'flowchart LR');
  for (const m of modules) lines.push(`  ${id(m)}[${m}]`);
  for (const m of modules) for (const d of depsOf(m)) lines.push(`  ${id(m)} --> ${id(d)}`);
  lines.push('```', '', '| module | imports (values) |', '|---|---|');
  for (const m of modules) lines.push(`| ${m} | ${depsOf(m).join(', ') || '-'} |`);
  lines.push('', END);
  return lines.join('\n');
}

export function withModuleGraph(doc: string, graph: string): string {
  const start = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/architecture.md has no ${BEGIN} ... ${END} markers`);
  return doc.slice(0, start) + graph + doc.slice(end + END.length);
}
