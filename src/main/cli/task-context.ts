import { CancelledError } from '../../shared/errors';
import type { TaskContext } from '../jobs/task';

/**
 * A task context for work run inline by the CLI: progress lines on stderr at most
 * about once a second per stage (and on every stage change), Ctrl+C cancels cleanly.
 */
export function cliTaskContext(write: (line: string) => void): TaskContext & { dispose(): void } {
  let cancelled = false;
  let lastStage = '';
  let lastAt = 0;
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
      if (stage === lastStage && done < total && now - lastAt < 1000) return;
      lastStage = stage;
      lastAt = now;
      const elapsed = (now - started.get(stage)!) / 1000;
      const eta = done > 0 && done < total ? Math.ceil((elapsed / done) * (total - done)) : null;
      const left = detail?.estimatedSecondsLeft !== undefined ? Math.ceil(detail.estimatedSecondsLeft) : eta;
      // "stage: done/total" first: scripts and tests read that part.
      const what = detail?.label ? ` — ${detail.label}${detail.unit ? `, ${detail.unit} ${done} of ${total}` : ''}` : '';
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
