/**
 * A job process (jobs/process-worker.ts): one job thread (job-worker.ts, the same tasks as
 * the engine's worker threads) in a process the runner can end at once. This thread only
 * relays: the runner's messages to the job thread, the job thread's back, and every
 * quarter second while a job runs the process's resident memory, which it can measure
 * even while the job thread is held inside onnxruntime (the runner ends the process when
 * a model goes past its memory budget).
 */
// First, before anything can load onnxruntime-node: its native telemetry off.
import './security/telemetry-off';
import { Worker } from 'node:worker_threads';
import { workerEntry } from './jobs/entries';
import type { ProcessMessage, RunnerMessage, WorkerBoot, WorkerMessage } from './jobs/protocol';

const USAGE_INTERVAL_MS = 250;

function main(): void {
  const send = process.send?.bind(process);
  if (!send) throw new Error('job-process.ts must be started with an IPC channel (jobs/process-worker.ts)');
  const post = (m: WorkerMessage) => {
    if (process.connected) send(m);
  };
  // The runner ends this process when it is done with it. Without a runner (it died) there is
  // nobody to report to; SIGKILL rather than exit(), which would wait for a job thread held in native code.
  process.on('disconnect', () => process.kill(process.pid, 'SIGKILL'));
  // Ctrl+C or a stop signal to the whole process group: the runner decides when this process ends.
  process.on('SIGINT', () => undefined);
  process.on('SIGTERM', () => undefined);

  const boot = JSON.parse(process.argv[2] ?? '{}') as WorkerBoot;
  const entry = workerEntry();
  const worker = new Worker(entry.file, { workerData: { ...boot, ...(entry.entryUrl ? { entryUrl: entry.entryUrl } : {}) } satisfies WorkerBoot });
  let flag: Int32Array | null = null;
  let usage: NodeJS.Timeout | undefined;
  const stopUsage = () => {
    if (usage) clearInterval(usage);
    usage = undefined;
  };
  process.on('message', (m: ProcessMessage) => {
    if (m.type === 'start') {
      const shared = new SharedArrayBuffer(4);
      flag = new Int32Array(shared);
      worker.postMessage({ ...m, cancelFlag: shared } satisfies RunnerMessage);
      post({ type: 'usage', rss: process.memoryUsage.rss() });
      stopUsage();
      usage = setInterval(() => post({ type: 'usage', rss: process.memoryUsage.rss() }), USAGE_INTERVAL_MS);
    } else if (m.type === 'cancel') {
      if (flag) Atomics.store(flag, 0, 1);
    } else {
      worker.postMessage(m satisfies RunnerMessage);
    }
  });
  worker.on('message', (m: WorkerMessage) => {
    if (m.type === 'result' || m.type === 'error') stopUsage();
    post(m);
  });
  worker.on('error', (err) => post({ type: 'crash', message: err.message }));
  worker.on('exit', (code) => process.exit(code));
}

main();
