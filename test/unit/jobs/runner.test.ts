import { describe, expect, it } from 'vitest';
import type { JobProgress } from '../../../src/shared/api';
import { JobRunner } from '../../../src/main/jobs/runner';

describe('JobRunner', () => {
  it('runs a CPU job in a worker, reports throttled progress and finishes', async () => {
    const runner = new JobRunner();
    const seen: JobProgress[] = [];
    const started = Date.now();
    const { result } = runner.start<{ counted: number; threadId: number }>('selftest.count', { units: 60, unitMs: 10 }, { onProgress: (p) => seen.push(p) });
    const out = await result;
    expect(out.counted).toBe(60);
    // The busy loop ran in a worker thread, not on the main thread (id 0).
    expect(out.threadId).toBeGreaterThan(0);
    expect(seen.length).toBeGreaterThan(0);
    const last = seen[seen.length - 1]!;
    expect(last.done).toBe(60);
    expect(last.total).toBe(60);
    // Throttled: at most ~10 per second plus the final one.
    const seconds = (Date.now() - started) / 1000;
    expect(seen.length).toBeLessThanOrEqual(Math.ceil(seconds * 10) + 2);
    expect(runner.list().find((j) => j.state === 'finished')).toBeTruthy();
  });

  it('says which jobs of a kind are running, with their inputs, also for a job started under a given id (a restarted engine taking one over)', async () => {
    const runner = new JobRunner();
    const input = { units: 100_000, unitMs: 5 };
    const { result } = runner.start('selftest.count', input, { jobId: 'taken-over' });
    expect(runner.runningOf('selftest.count')).toEqual([{ jobId: 'taken-over', input }]);
    expect(runner.runningOf('audits.run')).toEqual([]);
    runner.cancel('taken-over');
    await expect(result).rejects.toMatchObject({ code: 'cancelled' });
    expect(runner.runningOf('selftest.count')).toEqual([]);
  });

  it('cancels a running job and the job stops', async () => {
    const events: string[] = [];
    const runner = new JobRunner((e) => events.push(e.type === 'job.ended' ? `ended:${e.state}` : 'progress'));
    let lastDone = 0;
    const { jobId, result } = runner.start('selftest.count', { units: 100_000, unitMs: 5 }, { onProgress: (p) => (lastDone = p.done) });
    // Wait for the worker's first progress (its start-up time varies with machine load).
    for (let waited = 0; lastDone === 0 && waited < 30_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
    expect(lastDone).toBeGreaterThan(0);
    expect(runner.cancel(jobId)).toBe(true);
    await expect(result).rejects.toMatchObject({ code: 'cancelled' });
    const doneAtCancel = lastDone;
    await new Promise((r) => setTimeout(r, 300));
    expect(lastDone).toBe(doneAtCancel);
    expect(doneAtCancel).toBeLessThan(100_000);
    expect(events).toContain('ended:cancelled');
    expect(runner.list().find((j) => j.jobId === jobId)?.state).toBe('cancelled');
  });

  it('reports an unknown job kind as a failure', async () => {
    const runner = new JobRunner();
    await expect(runner.start('no.such.kind', {}).result).rejects.toThrow(/unknown job kind/);
  });
});
