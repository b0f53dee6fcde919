import { runProcess } from './run-process.js';

// The API with its job workers (WORKERS=off for an API-only instance).
runProcess('api');
