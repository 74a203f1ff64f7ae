import { CancelledError } from '../../shared/errors';
import type { TaskContext } from '../jobs/task';
import { ProgressThrottle } from './progress-lines';

/**
 * A task context for work run inline by the CLI: progress lines on stderr as
 * ProgressThrottle allows (every stage change, then at most once a second and once per
 * percent), Ctrl+C cancels cleanly.
 */
export function cliTaskContext(write: (line: string) => void): TaskContext & { dispose(): void } {
  let cancelled = false;
  const throttle = new ProgressThrottle();
  const started = new Map<string, number>();
  const onSigint = () => {
    if (cancelled) process.exit(130);
    cancelled = true;
    write('cancelling… (press Ctrl+C again to stop at once)');
  };
  process.on('SIGINT', onSigint);
  return {
    progress(stage, done, total, detail) {
      const now = Date.now();
      if (!started.has(stage)) started.set(stage, now);
      if (!throttle.shouldPrint({ stage, done, total, label: detail?.label })) return;
      const elapsed = (now - started.get(stage)!) / 1000;
      const eta = done > 0 && done < total ? Math.ceil((elapsed / done) * (total - done)) : null;
      // The task's paced figure when it measured its stages (WorkTracker), else the rate book's.
      const estimate = detail?.pacedSecondsLeft ?? detail?.estimatedSecondsLeft;
      const left = estimate !== undefined ? Math.ceil(estimate) : eta;
      // "stage: done/total" first: scripts and tests read that part.
      // Before its first count a stage has no total: "comparison 0 of 0" says nothing, so only its words are printed.
      const what = detail?.label ? ` — ${detail.label}${detail.unit && total > 0 ? `, ${detail.unit} ${done} of ${total}` : total === 0 ? ', starting' : ''}` : '';
      write(`${stage}: ${done}/${total}${what}${left !== null ? ` (about ${left} s left)` : ''}`);
    },
    cancelled: () => cancelled,
    throwIfCancelled() {
      if (cancelled) throw new CancelledError();
    },
    dispose() {
      process.off('SIGINT', onSigint);
    },
  };
}
