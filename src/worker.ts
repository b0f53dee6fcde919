import { runProcess } from './run-process.js';

// A worker-only process: runs the job handlers and cron schedules, serves only health and metrics.
runProcess('worker');
