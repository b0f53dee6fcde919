// Rewrites the module graph of docs/architecture.md (between its modules:start/end markers) from the imports, as
// dependency-cruiser finds them, and the table of faces (faces:start/end) from src/modules. test/boundaries.test.ts fails when the document is stale.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cruiseTree, renderModuleGraph, ROOT, withModuleGraph } from './boundaries.js';
import { renderFaces, withFaces } from './module-faces.js';

const file = join(ROOT, 'docs/architecture.md');
const graph = renderModuleGraph(await cruiseTree());
writeFileSync(file, withFaces(withModuleGraph(readFileSync(file, 'utf8'), graph), renderFaces()));
