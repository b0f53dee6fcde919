// Prints the OpenAPI document.
import { buildOpenApiDocument } from './openapi-document.js';

process.stdout.write(`${JSON.stringify(await buildOpenApiDocument(), null, 2)}\n`);
