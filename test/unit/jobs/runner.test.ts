import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { JobProgress } from '../../../src/shared/api';
import { JobRunner } from '../../../src/main/jobs/runner';

describe('JobRunner', () => {
  it('runs a CPU job in a worker, reports throttled progress and finishes', async () => {
    const runner = new JobRunner();
    const seen: JobProgress[] = [];
    const started = Date.now();
    const { result } = runner.start('selftest.count', { units: 60, unitMs: 10 }, { onProgress: (p) => seen.push(p) });
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
    // @ts-expect-error: a kind outside the job map fails the typecheck; the worker refuses it too.
    await expect(runner.start('no.such.kind', {}).result).rejects.toThrow(/unknown job kind/);
  });

  it('gives the next job to the idle worker, runs concurrent jobs on separate workers, and ends idle ones on shutdown', async () => {
    const runner = new JobRunner();
    const job = () => runner.start('selftest.count', { units: 2, unitMs: 1 }).result;
    const first = await job();
    expect(runner.idleWorkers()).toBe(1);
    const second = await job();
    expect(second.threadId).toBe(first.threadId);
    const [a, b, c] = await Promise.all([job(), job(), job()]);
    expect(new Set([a!.threadId, b!.threadId, c!.threadId]).size).toBe(3);
    // Three came back; two stay idle.
    expect(runner.idleWorkers()).toBe(2);
    await runner.shutdown();
    expect(runner.idleWorkers()).toBe(0);
  });

  it('never gives a job to a worker that was terminated (a cancel that was not heeded in time), and ends idle workers after a while', async () => {
    const runner = new JobRunner();
    runner.workerIdleMs = 300;
    const { threadId } = await runner.start('selftest.count', { units: 1, unitMs: 1 }).result;
    // Units of 3 s: the task checks the flag only between units, so a cancel once the first
    // unit is done (its progress) lands inside the second one and the grace runs out.
    let done = 0;
    const slow = runner.start('selftest.count', { units: 2, unitMs: 3000 }, { onProgress: (p) => (done = p.done) });
    expect(runner.idleWorkers()).toBe(0);
    for (let waited = 0; done === 0 && waited < 30_000; waited += 20) await new Promise((r) => setTimeout(r, 20));
    runner.cancel(slow.jobId, 100);
    await expect(slow.result).rejects.toMatchObject({ code: 'cancelled' });
    const next = await runner.start('selftest.count', { units: 1, unitMs: 1 }).result;
    expect(next.threadId).not.toBe(threadId);
    expect(runner.idleWorkers()).toBe(1);
    await new Promise((r) => setTimeout(r, 600));
    expect(runner.idleWorkers()).toBe(0);
    const after = await runner.start('selftest.count', { units: 1, unitMs: 1 }).result;
    expect(after.threadId).not.toBe(next.threadId);
    await runner.shutdown();
  });

  it('lets a process whose owner never shuts the runner down exit while a worker is idle', () => {
    const root = join(__dirname, '../../..');
    const script = `import { JobRunner } from ${JSON.stringify(pathToFileURL(join(root, 'src/main/jobs/runner.ts')).href)};
const r = await new JobRunner().start('selftest.count', { units: 1, unitMs: 1 }).result;
console.log(JSON.stringify(r));`;
    const file = join(mkdtempSync(join(tmpdir(), 'equivox-runner-')), 'owner.mjs');
    writeFileSync(file, script);
    const started = Date.now();
    const out = spawnSync(process.execPath, ['--import', 'tsx', file], { cwd: root, encoding: 'utf8', timeout: 50_000 });
    expect(out.status, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout.trim()) as { counted: number }).toMatchObject({ counted: 1 });
    // Well before the idle worker's own 60 s end.
    expect(Date.now() - started).toBeLessThan(50_000);
  });
});
