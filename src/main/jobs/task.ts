import { CancelledError } from '../../shared/errors';

/** What a progress report may add to its stage and count. */
export interface ProgressDetail {
  /**
   * The stage in the auditor's words, naming the dataset and the model: "Reading “clips.csv”
   * with Acoustic baseline". The stage name itself stays short and stable (scripts match it).
   */
  label?: string;
  /** What one counted item is, in words: "recording", "step", "comparison". */
  unit?: string;
  /** Fraction of the whole job done (0–1), when the task knows it (an audit's stages weighted by measured rates). */
  overall?: number;
  /** Estimated seconds of work left in the whole job, from measured rates, before any correction. */
  estimatedSecondsLeft?: number;
  /**
   * Fraction of the whole job done, each stage weighted by its duration as this run measures
   * it (src/main/audits/progress.ts, StagePace); agrees with `pacedSecondsLeft`.
   */
  pacedOverall?: number;
  /** Seconds left in the whole job, each stage's estimate corrected by this run's own pace: what to show. */
  pacedSecondsLeft?: number;
  /** The part of the current stage done (0–1), when the shown count is only part of the stage. */
  stageFraction?: number;
}

/**
 * A limit a worker is held to while it runs something that may never end or may allocate
 * without end (a model from someone else: inference/budget.ts). Past it the runner ends the
 * worker and fails the job with a message naming the subject.
 */
export interface WorkBudget {
  /** Who is held to it, as the failure message names it: `the model “X” (/path/model.onnx)`. */
  subject: string;
  /** What it was doing, in words: "checking its layers on a 1 s test clip". */
  doing: string;
  /** Wall-clock seconds from when the budget is set. */
  seconds: number;
  /** Bytes the worker's process may grow by from when the budget is set (enforced where the worker is a process). */
  bytes: number;
}

/** What a task running inside a worker can do besides computing. */
export interface TaskContext {
  /** Report progress; throttled to about 10 messages a second. */
  progress(stage: string, done: number, total: number, detail?: ProgressDetail): void;
  /** True once cancellation was requested. Cheap: check it inside loops. */
  cancelled(): boolean;
  /** Throw CancelledError when cancellation was requested. */
  throwIfCancelled(): void;
  /** Hold the rest of the work to a budget (null: lift it). Absent when the task runs inline. */
  budget?(b: WorkBudget | null): void;
}

export type Task<I = unknown, O = unknown> = (input: I, ctx: TaskContext) => Promise<O>;

/** A context for running a task inline (tests, small inputs) with the same contract. */
export function inlineContext(
  onProgress: (stage: string, done: number, total: number, detail?: ProgressDetail) => void = () => {},
  isCancelled: () => boolean = () => false,
): TaskContext {
  return {
    progress: onProgress,
    cancelled: isCancelled,
    throwIfCancelled() {
      if (isCancelled()) throw new CancelledError();
    },
  };
}
