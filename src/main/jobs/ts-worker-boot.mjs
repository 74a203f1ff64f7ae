// Source-mode worker bootstrap (tsx CLI, web host, vitest): register tsx in this
// thread, then load the TypeScript worker. Bundled builds use worker.js directly.
import { register } from 'tsx/esm/api';
import { workerData } from 'node:worker_threads';

register();
await import(workerData.entryUrl);
