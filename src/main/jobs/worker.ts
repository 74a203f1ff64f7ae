import { parentPort, workerData } from 'node:worker_threads';
import { CancelledError } from '../../shared/errors';
import type { WorkerMessage, WorkerStart } from './protocol';
import { taskRegistry } from './registry';
import type { TaskContext } from './task';

const PROGRESS_INTERVAL_MS = 100;

async function main(): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('worker.ts must run in a worker thread');
  const start = workerData as WorkerStart;
  const flag = new Int32Array(start.cancelFlag);
  const post = (m: WorkerMessage) => port.postMessage(m);
  let lastSent = 0;
  let lastStage = '';
  const ctx: TaskContext = {
    progress(stage, done, total, detail) {
      const now = Date.now();
      // Throttle, but never drop a stage change or the final count.
      if (stage === lastStage && done < total && now - lastSent < PROGRESS_INTERVAL_MS) return;
      lastSent = now;
      lastStage = stage;
      post({ type: 'progress', stage, done, total, ...(detail ? { detail } : {}) });
    },
    cancelled: () => Atomics.load(flag, 0) === 1,
    throwIfCancelled() {
      if (Atomics.load(flag, 0) === 1) throw new CancelledError();
    },
  };
  const task = taskRegistry[start.kind];
  try {
    if (!task) throw new Error(`unknown job kind ${start.kind}`);
    const result = await task(start.input as never, ctx);
    post({ type: 'result', result });
  } catch (err) {
    const e = err as { name?: string; message?: string; code?: string; field?: string };
    post({ type: 'error', error: { name: e.name ?? 'Error', message: e.message ?? String(err), code: e.code, field: e.field } });
  }
}

void main();
