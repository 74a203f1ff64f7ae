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

/** To a job process (job-process.ts): a job without the shared cancel flag, and the cancel as a message. */
export type ProcessMessage = ({ type: 'start' } & Omit<WorkerStart, 'cancelFlag'>) | { type: 'dispose' } | { type: 'cancel' };

import type { ProgressDetail, WorkBudget } from './task';

export type WorkerMessage =
  | { type: 'progress'; stage: string; done: number; total: number; detail?: ProgressDetail }
  | { type: 'result'; result: unknown }
  | { type: 'error'; error: { name: string; message: string; code?: string; field?: string; retry?: boolean } }
  /** The task holds what follows to a budget (null: lifted); the runner ends the worker past it. */
  | { type: 'budget'; budget: WorkBudget | null }
  /** From a job process's own thread, every quarter second: the process's resident memory. */
  | { type: 'usage'; rss: number }
  /** From a job process: its job thread died of an uncaught error (a Worker's 'error' event). */
  | { type: 'crash'; message: string };
