import type { WorkBudget } from './task';

/** A budget a running job is held to (jobs/runner.ts holdTo). */
export interface HeldBudget {
  budget: WorkBudget;
  /** The job process's resident memory when the budget was set; null where the worker is a thread (memory is not told apart there). */
  rssAtSet: number | null;
  timer: NodeJS.Timeout;
}

function words(b: WorkBudget): { time: string; memory: string } {
  const time = b.seconds >= 120 ? `${Math.round(b.seconds / 60)} minutes` : `${Math.max(1, Math.round(b.seconds))} s`;
  const gb = b.bytes / 1024 ** 3;
  const memory = gb >= 1 ? `${gb.toFixed(1)} GB` : `${Math.max(1, Math.round(b.bytes / 1024 ** 2))} MB`;
  return { time, memory };
}

/** The failure of a job whose worker went past its budget, in the auditor's words, naming the model and what it was doing. */
export function budgetMessage(b: WorkBudget, over: 'time' | 'memory'): string {
  const w = words(b);
  const what =
    over === 'time'
      ? `${b.doing} took longer than the ${w.time} allowed for it`
      : `${b.doing} needed more than the ${w.memory} of memory allowed for it`;
  return (
    `Equivox stopped ${b.subject}: ${what}. A model that never finishes (a loop that does not end) or that keeps taking memory does this; so can a model far too large for this computer. ` +
    `Nothing else was affected. If you trust the model and this computer is slow, set EQUIVOX_MODEL_${over === 'time' ? 'TIME' : 'MEMORY'}_SCALE=2 (or more) and try again.`
  );
}
