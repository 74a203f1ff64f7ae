/** Messages between the job runner and its worker threads. */
export interface WorkerStart {
  kind: string;
  input: unknown;
  /** Int32Array over a SharedArrayBuffer; [0] becomes 1 when cancel is requested. */
  cancelFlag: SharedArrayBuffer;
  /** Run the job's thread (and the onnxruntime threads it starts) at this niceness (Linux, where it is per thread). */
  nice?: number;
}

import type { ProgressDetail } from './task';

export type WorkerMessage =
  | { type: 'progress'; stage: string; done: number; total: number; detail?: ProgressDetail }
  | { type: 'result'; result: unknown }
  | { type: 'error'; error: { name: string; message: string; code?: string; field?: string } };
