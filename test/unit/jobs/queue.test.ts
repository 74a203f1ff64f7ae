/**
 * Bounded concurrency (issue 33 item 7): jobs of a class beyond its limit wait in line,
 * are told their place, start in order as places free up, and can be cancelled while
 * they wait (they never start). Real worker threads running the self-test task.
 */
import { describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../../src/shared/api';
import { defaultJobLimits, JOB_CLASS, jobClassOf, jobLimits } from '../../../src/main/jobs/limits';
import { JobRunner } from '../../../src/main/jobs/runner';

const job = (runner: JobRunner, unitMs = 40, units = 6) => runner.start('selftest.count', { units, unitMs });

describe('the job queue', () => {
  it('runs at most the limit at once, tells each waiting job its place, starts them in order, and a cancelled waiting job never starts', async () => {
    const events: EngineEvent[] = [];
    const runner = new JobRunner((e) => events.push(e));
    runner.limits = { ...runner.limits, other: 2 };
    const jobs = Array.from({ length: 5 }, () => job(runner));
    const ids = jobs.map((j) => j.jobId);
    // Two run, three wait, in the order they were asked for.
    expect(runner.list().slice(0, 5).map((j) => [j.jobId, j.state])).toEqual([
      [ids[0], 'running'],
      [ids[1], 'running'],
      [ids[2], 'queued'],
      [ids[3], 'queued'],
      [ids[4], 'queued'],
    ]);
    const place = (id: string) => runner.list().find((j) => j.jobId === id)!.progress?.queue?.place;
    expect(ids.slice(2).map(place)).toEqual([1, 2, 3]);
    expect(runner.list().find((j) => j.jobId === ids[2])!.progress!.label).toBe('Waiting to start: next in line (2 jobs at a time on this computer)');
    expect(runner.runningOf('selftest.count').map((j) => j.jobId)).toEqual(ids);

    // The last in line is cancelled: it ends at once, the others move up.
    expect(runner.cancel(ids[4]!)).toBe(true);
    await expect(jobs[4]!.result).rejects.toMatchObject({ code: 'cancelled', message: 'Cancelled before it started' });
    expect(events.filter((e) => e.type === 'job.ended' && e.jobId === ids[4])).toEqual([{ type: 'job.ended', jobId: ids[4], kind: 'selftest.count', state: 'cancelled', error: 'Cancelled before it started' }]);

    let most = 0;
    const sampler = setInterval(() => {
      most = Math.max(most, runner.list().filter((j) => j.state === 'running').length);
    }, 5);
    const results = await Promise.all(jobs.slice(0, 4).map((j) => j.result));
    clearInterval(sampler);
    expect(results.map((r) => r.counted)).toEqual([6, 6, 6, 6]);
    expect(most).toBe(2);

    // Started in order, each after a place freed up; the cancelled one never started.
    const started = events.filter((e): e is Extract<EngineEvent, { type: 'job.started' }> => e.type === 'job.started').map((e) => e.jobId);
    expect(started).toEqual([ids[2], ids[3]]);
    const endedBefore = (id: string) => events.findIndex((e) => e.type === 'job.started' && e.jobId === id);
    const firstEnd = events.findIndex((e) => e.type === 'job.ended' && e.state === 'finished');
    expect(endedBefore(ids[2]!)).toBeGreaterThan(firstEnd);
    // Job 4 was told place 2 before any place freed, then place 1.
    const places = events
      .filter((e): e is Extract<EngineEvent, { type: 'job.progress' }> => e.type === 'job.progress' && e.progress.jobId === ids[3] && e.progress.queue !== undefined)
      .map((e) => e.progress.queue!.place);
    expect(places[0]).toBe(2);
    expect(places[places.length - 1]).toBe(1);
    expect(runner.list().find((j) => j.jobId === ids[4])!.state).toBe('cancelled');
    await runner.shutdown();
  });

  it('a job that waits while its class is full still starts at once when another class has room', async () => {
    const runner = new JobRunner();
    runner.limits = { ...runner.limits, other: 1 };
    const a = job(runner, 30, 4);
    const b = job(runner, 1, 1);
    expect(runner.list().find((j) => j.jobId === b.jobId)!.state).toBe('queued');
    // An import is another class: its limit is its own (the job itself fails: its project does not exist).
    const imp = runner.start('datasets.import', { projectPath: '/nonexistent-equivox-project', params: { source: { kind: 'folder', folder: '/nonexistent', groupLabel: 'group' }, role: 'target' } });
    expect(runner.list().find((j) => j.jobId === imp.jobId)!.state).toBe('running');
    await expect(imp.result).rejects.toBeTruthy();
    expect((await a.result).counted).toBe(4);
    expect((await b.result).counted).toBe(1);
    await runner.shutdown();
  });

  it('jobs still in line when the runner shuts down end cancelled, never started', async () => {
    const events: EngineEvent[] = [];
    const runner = new JobRunner((e) => events.push(e));
    runner.limits = { ...runner.limits, other: 1 };
    const a = job(runner, 50, 100);
    const b = job(runner);
    await runner.shutdown();
    await expect(b.result).rejects.toMatchObject({ code: 'cancelled' });
    await expect(a.result).rejects.toBeTruthy();
    expect(events.some((e) => e.type === 'job.started')).toBe(false);
  });
});

describe('limits', () => {
  it('follow the core count, and EQUIVOX_JOB_LIMITS overrides them', () => {
    expect(defaultJobLimits(2)).toEqual({ import: 1, embedding: 1, audit: 1, report: 1, other: 4 });
    expect(defaultJobLimits(16)).toEqual({ import: 4, embedding: 2, audit: 2, report: 8, other: 16 });
    expect(jobLimits({ EQUIVOX_JOB_LIMITS: 'import=3, report=2' }, 2)).toEqual({ import: 3, embedding: 1, audit: 1, report: 2, other: 4 });
    expect(() => jobLimits({ EQUIVOX_JOB_LIMITS: 'imports=3' }, 2)).toThrow(/"imports=3" is not CLASS=N/);
    expect(() => jobLimits({ EQUIVOX_JOB_LIMITS: 'import=0' }, 2)).toThrow(/at least 1/);
  });

  it('every kind of job has a class; an unknown kind counts as other', () => {
    expect(JOB_CLASS['datasets.import']).toBe('import');
    expect(JOB_CLASS['inference.embed']).toBe('embedding');
    expect(JOB_CLASS['reports.render']).toBe('report');
    expect(jobClassOf('no.such.kind')).toBe('other');
  });
});
