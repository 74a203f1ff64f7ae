import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../../src/shared/api';
import { ApiError } from '../../../src/shared/errors';
import { parseResumedJob } from '../../../src/shared/jobs';
import { JobRunner } from '../../../src/main/jobs/runner';

let runner: JobRunner | null = null;
afterEach(async () => {
  await runner?.shutdown();
  runner = null;
});

/** A job as the host hands it back after a crash: data that went through JSON, so anything may be in it. */
const handedBack = (kind: string, input: unknown) => JSON.parse(JSON.stringify({ jobId: `job-${kind}`, kind, input })) as { jobId: string; kind: string; input: unknown };

describe('a job handed back after an engine crash is checked before it runs again', () => {
  it('names the kind and the field that does not fit, for each way a stored job can be wrong', () => {
    const cases: [string, unknown, RegExp, string | undefined][] = [
      ['reports.render', { out: '/x.pdf' }, /a "reports\.render" job does not pick up where it stopped/, 'kind'],
      ['no.such.kind', {}, /a "no\.such\.kind" job does not pick up/, 'kind'],
      ['inference.embed', { projectPath: '/p', dataDir: '/d', model: 'acoustic-baseline' }, /inference\.embed job job-inference\.embed: its stored input does not fit/, 'datasetId'],
      ['inference.embed', { projectPath: '/p', dataDir: '/d', datasetId: 'ds', model: 'acoustic-baseline', threads: 0 }, /does not fit/, 'threads'],
      ['audits.run', { projectPath: '', dataDir: '/d', auditId: 'a' }, /audits\.run job .*does not fit/, 'projectPath'],
      // strictObject: a field the kind never takes (here an embedding's) is refused, not ignored.
      ['audits.run', { projectPath: '/p', dataDir: '/d', auditId: 'a', model: 'x' }, /does not fit/, undefined],
      ['audits.run', null, /does not fit/, undefined],
    ];
    for (const [kind, input, message, field] of cases) {
      let thrown: unknown;
      try {
        parseResumedJob(handedBack(kind, input));
      } catch (err) {
        thrown = err;
      }
      expect(thrown, `${kind} ${JSON.stringify(input)}`).toBeInstanceOf(ApiError);
      expect((thrown as ApiError).code).toBe('validation');
      expect((thrown as ApiError).message).toMatch(message);
      if (field !== undefined) expect((thrown as ApiError).field).toBe(field);
    }
    // A stored input that fits comes back unchanged and paired with its kind.
    const ok = parseResumedJob(handedBack('inference.embed', { projectPath: '/p', dataDir: '/d', datasetId: 'ds', model: 'acoustic-baseline', provider: 'cpu', threads: 2 }));
    expect(ok).toEqual({ jobId: 'job-inference.embed', kind: 'inference.embed', input: { projectPath: '/p', dataDir: '/d', datasetId: 'ds', model: 'acoustic-baseline', provider: 'cpu', threads: 2 } });
  });

  it('JobRunner.resume ends a refused job failed (event and list) without starting a worker, and starts one that fits under its old id', async () => {
    const events: EngineEvent[] = [];
    runner = new JobRunner((e) => events.push(e));
    const refused = runner.resume(handedBack('inference.embed', { projectPath: '/p', dataDir: '/d', model: 'acoustic-baseline' }));
    expect(refused).toBeNull();
    expect(runner.idleWorkers()).toBe(0);
    expect(runner.runningOf('inference.embed')).toEqual([]);
    const ended = events.filter((e) => e.type === 'job.ended');
    expect(ended).toHaveLength(1);
    expect(ended[0]).toMatchObject({ type: 'job.ended', jobId: 'job-inference.embed', kind: 'inference.embed', state: 'failed' });
    expect((ended[0] as { error: string }).error).toMatch(/cannot resume the inference\.embed job job-inference\.embed: its stored input does not fit \(.*datasetId/);
    const listed = runner.list().find((j) => j.jobId === 'job-inference.embed');
    expect(listed).toMatchObject({ kind: 'inference.embed', state: 'failed' });

    // One that fits runs: its project folder does not exist, so the task itself fails, saying so (not the check).
    const missing = join(mkdtempSync(join(tmpdir(), 'equivox-resume-')), 'gone');
    const started = runner.resume(handedBack('audits.run', { projectPath: missing, dataDir: missing, auditId: 'a1' }));
    expect(started).not.toBeNull();
    expect(started!.jobId).toBe('job-audits.run');
    expect(runner.runningOf('audits.run').map((j) => j.input.auditId)).toEqual(['a1']);
    const err = await started!.result.catch((e: unknown) => e as Error);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).not.toMatch(/cannot resume/);
    expect(events.some((e) => e.type === 'job.ended' && e.jobId === 'job-audits.run' && e.state === 'failed')).toBe(true);
  }, 60_000);
});
