import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { CancelledError } from '../../shared/errors';
import { toErrorShape } from '../error-shape';
import type { WorkerMessage, WorkerStart } from './protocol';
import { taskRegistry } from './registry';
import type { TaskContext } from './task';

const PROGRESS_INTERVAL_MS = 100;

async function main(): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('worker.ts must run in a worker thread');
  const start = workerData as WorkerStart;
  const flag = new Int32Array(start.cancelFlag);
  // On Linux setpriority(0) applies to the calling thread only, and threads it starts inherit it;
  // elsewhere it would lower the whole process, so it is left alone there.
  if (start.nice !== undefined && process.platform === 'linux') {
    try {
      setPriority(start.nice);
    } catch {
      // Not allowed here (a container's limits): the job runs at normal priority.
    }
  }
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
    // Through the hosts' own shaping, so a full disk or a busy database arrives as a user error.
    const shape = toErrorShape(err);
    post({ type: 'error', error: { name: (err as { name?: string }).name ?? 'Error', message: shape.message, code: shape.code, field: shape.field } });
  }
}

void main();
