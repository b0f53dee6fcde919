import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

/**
 * The directory of the package.json nearest above this file: the installation's root, whatever the
 * working directory. The same code runs from src/ and, compiled, from dist/src/.
 */
export function packageRoot(): string {
  if (root) return root;
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return (root = dir);
    if (dirname(dir) === dir) throw new Error(`No package.json above ${fileURLToPath(import.meta.url)}`);
  }
}
