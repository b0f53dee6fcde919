import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

/** The load average as `uptime` prints it (1, 5, 15 min): written beside every figure. */
export const loadAverage = () =>
  execFileSync('uptime')
    .toString()
    .trim()
    .replace(/.*load average: /, '');

/** Replaces (or appends) the section of docs/benchmarks.md between `<!-- name:begin -->` and `<!-- name:end -->`. */
export function writeBenchSection(name: string, lines: string[]): void {
  const begin = `<!-- ${name}:begin -->`;
  const end = `<!-- ${name}:end -->`;
  const section = [begin, ...lines, end].join('\n');
  const file = new URL('../docs/benchmarks.md', import.meta.url);
  const doc = readFileSync(file, 'utf8');
  const at = doc.indexOf(begin);
  writeFileSync(
    file,
    at >= 0
      ? doc.slice(0, at) + section + doc.slice(doc.indexOf(end) + end.length)
      : `${doc.trimEnd()}\n\n${section}\n`,
  );
  process.stdout.write('\nwritten to docs/benchmarks.md\n');
}
