/**
 * Whether this thread runs job after job (a job worker, src/main/job-worker.ts) or one piece of
 * work and ends with its caller (the CLI's main thread, a test): what a module that could
 * keep expensive state between jobs (inference/session-pool.ts) asks, so jobs/ need not
 * know about that state.
 */

let outlivesJobs = false;
const onEnd: (() => Promise<void> | void)[] = [];

/** Called once by a job worker at start. */
export function markThreadOutlivesJobs(): void {
  outlivesJobs = true;
}

/** True in a job worker: state kept after a job serves the next one on this thread. */
export function threadOutlivesJobs(): boolean {
  return outlivesJobs;
}

/** Runs `fn` when the worker is told to end (it releases what it kept, before the thread exits). */
export function atThreadEnd(fn: () => Promise<void> | void): void {
  onEnd.push(fn);
}

/** The worker's end: every atThreadEnd callback, in order; a failing one does not stop the rest. */
export async function endThread(): Promise<void> {
  for (const fn of onEnd.splice(0)) {
    try {
      await fn();
    } catch {
      // The thread exits next: what failed to release goes with it.
    }
  }
}
