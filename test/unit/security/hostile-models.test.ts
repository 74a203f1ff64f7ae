/**
 * Issue 33 items 4 and 5 through the real web host (node --import tsx src/main/web.ts, as
 * test/e2e/web-host.ts starts it), where a tester leaked the checkout's package.json
 * through a model and froze the engine with a Loop that never ends:
 *
 * - the engine process runs in an empty folder of its own, and a model whose external data
 *   names package.json (the web host's working directory is the checkout) is refused, its
 *   bytes nowhere in the data folder;
 * - a never-ending model and a model that takes memory without end fail their import within
 *   their budget, naming the model; app.info answers within 100 ms all the while (measured
 *   here, the bound); the engine is not restarted and the job process that ran the
 *   model is gone;
 * - an import can be stopped (jobs.cancel), also while onnxruntime is inside the model.
 *
 * Budgets are scaled down for the test (EQUIVOX_MODEL_TIME_SCALE 0.1: 12 s for a tiny
 * model's import; EQUIVOX_MODEL_MEMORY_SCALE 0.25: 256 MB), as a user on a slow computer
 * would scale them up.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHost, type RunningHost } from '../../e2e/web-host';
import { growingLoopModel, leakModel, loopModel } from '../../fixtures/models/hostile';
import { tempDir } from '../inference/helpers';

const repo = resolve(import.meta.dirname, '..', '..', '..');
const TIME_SCALE = 0.1;
/** The import budget of a model of a few hundred bytes (inference/budget.ts importBudget), scaled. */
const IMPORT_SECONDS = 120 * TIME_SCALE;

let host: RunningHost;
const models = tempDir('hostile-models');

type Reply = { status: number; body: { ok: boolean; result?: unknown; error?: { code: string; message: string; field?: string } } };

async function call(op: string, input: unknown, timeoutMs = 20_000): Promise<Reply> {
  const res = await fetch(`${host.base}/api/invoke/${op}`, {
    method: 'POST',
    headers: { 'X-Equivox-Token': host.token, 'Content-Type': 'application/json' },
    body: JSON.stringify(input),
    signal: AbortSignal.timeout(timeoutMs),
  });
  return { status: res.status, body: (await res.json()) as Reply['body'] };
}

/** Child processes of a process, with their command lines (Linux ps). */
function children(pid: number): { pid: number; args: string }[] {
  try {
    return execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
      .map((l) => ({ pid: Number(l.split(/\s+/)[0]), args: l.replace(/^\d+\s+/, '') }));
  } catch {
    return [];
  }
}

function enginePid(): number {
  const engines = children(host.process.pid!).filter((c) => c.args.includes('engine-process'));
  expect(engines).toHaveLength(1);
  return engines[0]!.pid;
}

type Job = { jobId: string; kind: string; state: string; progress: { stage: string } | null; error?: string };

/**
 * Start an import and follow it through jobs.list, calling app.info every 20 ms and timing
 * each answer, until the job has ended. `during` runs once the model is running (its
 * layer check has begun).
 */
async function followImport(file: string, during?: (jobId: string) => Promise<void>): Promise<{ job: Job; latencies: number[]; modelRanFor: number; result: Reply }> {
  const started = await call('models.import', { file });
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  const { jobId } = started.body.result as { jobId: string };
  const result = call('models.importResult', { jobId }, 300_000);
  const latencies: number[] = [];
  let ranFrom: number | null = null;
  let job: Job | undefined;
  for (;;) {
    const t0 = performance.now();
    const info = await call('app.info', {}, 5_000);
    latencies.push(performance.now() - t0);
    expect(info.status).toBe(200);
    job = ((await call('jobs.list', {})).body.result as Job[]).find((j) => j.jobId === jobId);
    if (job?.progress?.stage === 'Checking its layers' && ranFrom === null) {
      ranFrom = performance.now();
      await during?.(jobId);
    }
    if (job && job.state !== 'running') break;
    await new Promise((r) => setTimeout(r, 20));
  }
  return { job, latencies, modelRanFor: ranFrom === null ? NaN : (performance.now() - ranFrom) / 1000, result: await result };
}

beforeAll(async () => {
  process.env.EQUIVOX_MODEL_TIME_SCALE = String(TIME_SCALE);
  process.env.EQUIVOX_MODEL_MEMORY_SCALE = '0.25';
  try {
    host = await startHost();
  } finally {
    delete process.env.EQUIVOX_MODEL_TIME_SCALE;
    delete process.env.EQUIVOX_MODEL_MEMORY_SCALE;
  }
  writeFileSync(join(models, 'config.json'), JSON.stringify({ model_type: 'wav2vec2' }));
  writeFileSync(join(models, 'leak.onnx'), leakModel('package.json'));
  writeFileSync(join(models, 'loop.onnx'), loopModel());
  writeFileSync(join(models, 'growing.onnx'), growingLoopModel());
  writeFileSync(join(models, 'stopped.onnx'), loopModel());
  expect((await call('files.grant', { path: models })).status).toBe(200);
}, 120_000);

afterAll(async () => {
  await host?.stop();
});

describe('models from someone else, through the web host', () => {
  it('the engine runs in an empty folder of its own; a model naming package.json (the web host works in the checkout) is refused and nothing of it reaches the data folder', async () => {
    expect(process.cwd()).toBe(repo);
    const engine = enginePid();
    const cwd = readlinkSync(`/proc/${engine}/cwd`);
    expect(cwd).toBe(join(host.home, 'empty'));
    expect(readdirSync(cwd)).toEqual([]);

    const started = await call('models.import', { file: join(models, 'leak.onnx') });
    expect(started.status).toBe(200);
    const r = await call('models.importResult', { jobId: (started.body.result as { jobId: string }).jobId }, 300_000);
    expect(r.status).toBe(422);
    expect(r.body.error).toMatchObject({ code: 'user', field: 'file' });
    expect(r.body.error!.message).toContain(`${join(models, 'leak.onnx')}, tensor "secret", external data "package.json": there is no such file in the model's folder`);
    const pkg = readFileSync(join(repo, 'package.json'));
    const stored = existsSync(join(host.home, 'models')) ? readdirSync(join(host.home, 'models')) : [];
    expect(stored).toEqual([]);
    for (const name of readdirSync(host.home)) {
      const p = join(host.home, name);
      if (statSync(p).isFile()) expect(readFileSync(p).includes(pkg.subarray(0, 24)), p).toBe(false);
    }
  }, 300_000);

  it('a model whose Loop never ends fails its import within its budget, naming it; app.info answers within 100 ms throughout; the engine is not restarted and the job process is gone', async () => {
    const engine = enginePid();
    const quiet: number[] = [];
    for (let i = 0; i < 100; i += 1) {
      const t0 = performance.now();
      expect((await call('app.info', {})).status).toBe(200);
      quiet.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 20));
    }
    console.log(`app.info with no job running: max ${Math.max(...quiet).toFixed(1)} ms, median ${[...quiet].sort((a, b) => a - b)[50]!.toFixed(1)} ms`);
    // Up to three imports: on a loaded shared machine one scheduling hiccup can pass 100 ms;
    // an engine the model holds fails every round (its calls time out after 5 s).
    const maxima: number[] = [];
    for (let round = 0; round < 3; round += 1) {
      const { job, latencies, modelRanFor, result } = await followImport(join(models, 'loop.onnx'));
      expect(job.state).toBe('failed');
      expect(job.error).toMatch(/^Equivox stopped the model “loop” \(.*loop\.onnx\): checking its layers on a 1 s test clip took longer than the 12 s allowed for it\./);
      expect(result.status).toBe(422);
      expect(result.body.error).toMatchObject({ code: 'user', message: job.error });
      // Ended at its budget (12 s from when it began to run), not later.
      expect(modelRanFor).toBeGreaterThan(IMPORT_SECONDS - 1);
      expect(modelRanFor).toBeLessThan(IMPORT_SECONDS + 8);
      const max = Math.max(...latencies);
      maxima.push(max);
      console.log(`never-ending Loop, round ${round + 1}: stopped ${modelRanFor.toFixed(1)} s after it began; ${latencies.length} app.info calls during the import, max ${max.toFixed(1)} ms, median ${[...latencies].sort((a, b) => a - b)[latencies.length >> 1]!.toFixed(1)} ms`);
      expect(enginePid()).toBe(engine);
      // The process that ran the model was ended, not left spinning inside onnxruntime.
      await new Promise((r) => setTimeout(r, 1000));
      expect(children(engine).filter((c) => c.args.includes('job-process'))).toEqual([]);
      if (max < 100) break;
    }
    expect(Math.min(...maxima)).toBeLessThan(100);
  }, 600_000);

  it('a model that takes memory without end fails its import at its memory budget, naming it; the engine stays up', async () => {
    const engine = enginePid();
    const { job, latencies } = await followImport(join(models, 'growing.onnx'));
    expect(job.state).toBe('failed');
    expect(job.error).toMatch(/^Equivox stopped the model “growing” \(.*growing\.onnx\): checking its layers on a 1 s test clip needed more than the 256 MB of memory allowed for it\./);
    console.log(`growing Loop: ${latencies.length} app.info calls during the import, max ${Math.max(...latencies).toFixed(1)} ms`);
    expect(enginePid()).toBe(engine);
    await new Promise((r) => setTimeout(r, 1000));
    expect(children(engine).filter((c) => c.args.includes('job-process'))).toEqual([]);
  }, 300_000);

  it('an import can be stopped while the model runs: the job ends cancelled and its process is ended', async () => {
    const engine = enginePid();
    const { job, modelRanFor, result } = await followImport(join(models, 'stopped.onnx'), async (jobId) => {
      expect((await call('jobs.cancel', { jobId })).body.result).toEqual({ jobId, cancelled: true });
    });
    expect(job.state).toBe('cancelled');
    expect(result.body.error).toMatchObject({ code: 'cancelled' });
    // The model ignores the cancel flag (it is inside onnxruntime): the process is ended after the 5 s grace, before its budget.
    expect(modelRanFor).toBeLessThan(IMPORT_SECONDS);
    expect(enginePid()).toBe(engine);
    await new Promise((r) => setTimeout(r, 1000));
    expect(children(engine).filter((c) => c.args.includes('job-process'))).toEqual([]);
  }, 300_000);
});
