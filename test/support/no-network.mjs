/**
 * ESM entry of the no-network guard (node --import ./test/support/no-network.mjs).
 * Prefer `--require ./test/support/no-network.cjs`: --import preloads do not run in
 * `eval: true` worker threads, --require preloads do.
 */
import { createRequire } from 'node:module';

createRequire(import.meta.url)('./no-network.cjs');
