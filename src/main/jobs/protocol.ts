/** Messages between the job runner and its worker threads. */

/** A worker's workerData: what stays the same for every job the worker runs. */
export interface WorkerBoot {
  /** Run the job thread (and the onnxruntime threads it starts) at this niceness (Linux, where it is per thread). */
  nice?: number;
  /** Source mode only: the TypeScript worker entry that ts-worker-boot.mjs loads. */
  entryUrl?: string;
}

/** One job, posted to an idle worker; a worker runs one job at a time. */
export interface WorkerStart {
  kind: string;
  input: unknown;
  /** Int32Array over a SharedArrayBuffer; [0] becomes 1 when cancel is requested. A new one per job. */
  cancelFlag: SharedArrayBuffer;
}

export type RunnerMessage =
  | ({ type: 'start' } & WorkerStart)
  /** Release what the worker holds (onnxruntime sessions) and end the thread. */
  | { type: 'dispose' };

import type { ProgressDetail } from './task';

export type WorkerMessage =
  | { type: 'progress'; stage: string; done: number; total: number; detail?: ProgressDetail }
  | { type: 'result'; result: unknown }
  | { type: 'error'; error: { name: string; message: string; code?: string; field?: string; retry?: boolean } };
