// Writes the typed client's route types (clients/typescript/src/schema.ts) from the routes.
import { writeFileSync } from 'node:fs';
import { CLIENT_SCHEMA_FILE, clientSchemaSource } from './client-schema.js';

writeFileSync(CLIENT_SCHEMA_FILE, await clientSchemaSource());
process.stdout.write(`Wrote ${CLIENT_SCHEMA_FILE}\n`);
