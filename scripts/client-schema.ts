// The typed client's route types, generated from the OpenAPI document by openapi-typescript.
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';
import { buildOpenApiDocument } from './openapi-document.js';

export const CLIENT_SCHEMA_FILE = 'clients/typescript/src/schema.ts';

export async function clientSchemaSource(): Promise<string> {
  const ast = await openapiTS((await buildOpenApiDocument()) as never, { alphabetize: true });
  return `${COMMENT_HEADER}// Regenerate with \`npm run client:generate\`; a test fails when it no longer matches the routes.\n\n${astToString(ast)}`;
}
