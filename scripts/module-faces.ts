// The table of module faces in docs/architecture.md: each module in the order app.ts builds them, the modules it
// needs (from its definition) and what its index.ts exports. Written by `npm run docs:modules`, checked by
// test/boundaries.test.ts like the graph.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { MODULES } from '../src/modules/index.js';
import { ROOT } from './boundaries.js';

export const FACES_BEGIN = '<!-- faces:start -->';
export const FACES_END = '<!-- faces:end -->';

/** The names a face exports, the module object itself left out. */
export function faceExports(source: string): string[] {
  const names = new Set<string>();
  for (const m of source.matchAll(/export (?:type )?\{([^}]*)\}/g))
    for (const part of m[1]!.split(',')) {
      const name = part
        .trim()
        .replace(/^type /, '')
        .split(/\s+as\s+/)
        .pop();
      if (name) names.add(name);
    }
  for (const m of source.matchAll(/export (?:type|interface|const|function|async function|class) (\w+)/g)) {
    if (!m[1]!.endsWith('Module')) names.add(m[1]!);
  }
  return [...names].sort((a, b) => a.localeCompare(b));
}

const folderOf = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

export function renderFaces(): string {
  const lines = [FACES_BEGIN, '<!-- Written by `npm run docs:modules` from src/modules; do not edit by hand. -->', ''];
  lines.push('| module | needs | its face offers |', '|---|---|---|');
  const offers = (folder: string) =>
    faceExports(readFileSync(join(ROOT, 'src/modules', folder, 'index.ts'), 'utf8'))
      .map((n) => `\`${n}\``)
      .join(', ');
  for (const m of MODULES) lines.push(`| ${m.name} | ${m.needs.join(', ') || '-'} | ${offers(folderOf(m.name))} |`);
  // Folders with a face and no module object: code the others call, built by nobody.
  const built = new Set(MODULES.map((m) => folderOf(m.name)));
  const dir = join(ROOT, 'src/modules');
  for (const f of readdirSync(dir).sort()) {
    if (built.has(f) || !statSync(join(dir, f)).isDirectory()) continue;
    lines.push(`| ${f} (no module object) | - | ${offers(f)} |`);
  }
  lines.push('', FACES_END);
  return lines.join('\n');
}

export function withFaces(doc: string, table: string): string {
  const start = doc.indexOf(FACES_BEGIN);
  const end = doc.indexOf(FACES_END);
  if (start < 0 || end < start) throw new Error(`docs/architecture.md has no ${FACES_BEGIN} ... ${FACES_END} markers`);
  return doc.slice(0, start) + table + doc.slice(end + FACES_END.length);
}
