import { CancelledError } from '../../shared/errors';

/** What a task running inside a worker can do besides computing. */
export interface TaskContext {
  /** Report progress; throttled to about 10 messages a second. */
  progress(stage: string, done: number, total: number): void;
  /** True once cancellation was requested. Cheap: check it inside loops. */
  cancelled(): boolean;
  /** Throw CancelledError when cancellation was requested. */
  throwIfCancelled(): void;
}

export type Task<I = unknown, O = unknown> = (input: I, ctx: TaskContext) => Promise<O>;

/** A context for running a task inline (tests, small inputs) with the same contract. */
export function inlineContext(
  onProgress: (stage: string, done: number, total: number) => void = () => {},
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
