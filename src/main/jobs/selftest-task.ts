import { threadId } from 'node:worker_threads';
import type { JobInput, JobOutput } from '../../shared/jobs';
import type { Task } from './task';

/** Busy-work that counts units; proves jobs run off the main thread, report and stop. */
export const countTask: Task<JobInput<'selftest.count'>, JobOutput<'selftest.count'>> = async ({ units, unitMs }, ctx) => {
  let counted = 0;
  for (let i = 0; i < units; i += 1) {
    ctx.throwIfCancelled();
    const until = Date.now() + unitMs;
    // Deliberately synchronous: a job that would freeze the main thread if it ran there.
    while (Date.now() < until) counted += 0;
    counted += 1;
    ctx.progress('counting', counted, units);
  }
  // threadId 0 is the main thread: anything else proves the work ran elsewhere.
  return { counted, threadId };
};
