import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { CancelledError } from '../shared/errors';
import type { JobKind } from '../shared/jobs';
import { toErrorShape } from './error-shape';
import type { RunnerMessage, WorkerBoot, WorkerMessage, WorkerStart } from './jobs/protocol';
import { taskRegistry } from './job-registry';
import { endThread, markThreadOutlivesJobs } from './jobs/thread-life';
import type { TaskContext } from './jobs/task';

const PROGRESS_INTERVAL_MS = 100;

/** Runs one job and posts its progress and its end; nothing of it is posted after that. */
async function runJob(post: (m: WorkerMessage) => void, start: WorkerStart): Promise<void> {
  const flag = new Int32Array(start.cancelFlag);
  // Work a task left running after it ended (a promise nobody awaited) must not report
  // into the job this worker runs next.
  let open = true;
  const send = (m: WorkerMessage) => {
    if (open) post(m);
  };
  let lastSent = 0;
  let lastStage = '';
  const ctx: TaskContext = {
    progress(stage, done, total, detail) {
      const now = Date.now();
      // Throttle, but never drop a stage change or the final count.
      if (stage === lastStage && done < total && now - lastSent < PROGRESS_INTERVAL_MS) return;
      lastSent = now;
      lastStage = stage;
      send({ type: 'progress', stage, done, total, ...(detail ? { detail } : {}) });
    },
    cancelled: () => Atomics.load(flag, 0) === 1,
    throwIfCancelled() {
      if (Atomics.load(flag, 0) === 1) throw new CancelledError();
    },
    budget(budget) {
      send({ type: 'budget', budget });
    },
  };
  // The kind arrives as data: only the registry's own keys name a task (not an Object.prototype member).
  const task = Object.hasOwn(taskRegistry, start.kind) ? taskRegistry[start.kind as JobKind] : undefined;
  try {
    if (!task) throw new Error(`unknown job kind ${start.kind}`);
    // The runner posts each kind with its own input (JobRunner.start's types); here the pair is data again.
    const result = await task(start.input as never, ctx);
    send({ type: 'result', result });
  } catch (err) {
    // Through the hosts' own shaping, so a full disk or a busy database arrives as a user error.
    const shape = toErrorShape(err);
    send({ type: 'error', error: { name: (err as { name?: string }).name ?? 'Error', message: shape.message, code: shape.code, field: shape.field, ...(shape.retry ? { retry: true } : {}) } });
  } finally {
    open = false;
  }
}

function main(): void {
  const port = parentPort;
  if (!port) throw new Error('worker.ts must run in a worker thread');
  const boot = workerData as WorkerBoot;
  // On Linux setpriority(0) applies to the calling thread only, and threads it starts inherit it;
  // elsewhere it would lower the whole process, so it is left alone there.
  if (boot.nice !== undefined && process.platform === 'linux') {
    try {
      setPriority(boot.nice);
    } catch {
      // Not allowed here (a container's limits): the jobs run at normal priority.
    }
  }
  // This thread outlives its job (jobs/runner.ts): what a job loaded (the last model's
  // sessions, inference/embedder-pool.ts) may serve the next one.
  markThreadOutlivesJobs();
  const post = (m: WorkerMessage) => port.postMessage(m);
  // The runner posts a job only to an idle worker; the chain keeps them in order regardless.
  let current: Promise<void> = Promise.resolve();
  port.on('message', (m: RunnerMessage) => {
    if (m.type === 'start') {
      current = current.then(() => runJob(post, m));
    } else {
      current = current
        .then(() => endThread())
        .catch(() => {})
        .finally(() => process.exit(0));
    }
  });
}

main();
