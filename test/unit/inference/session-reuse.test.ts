import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmbedSummary } from '../../../src/shared/api/models';
import type { EmbedTaskInput } from '../../../src/main/inference/embed';
import { JobRunner } from '../../../src/main/jobs/runner';
import { makeProject, tempDir } from './helpers';

type Project = ReturnType<typeof makeProject>;

let home: string;
let spin: string | undefined;
let a: Project;
let b: Project;
/** The same clips as b, in a project of its own: what a fresh worker computes for them. */
let bAgain: Project;
const runners: JobRunner[] = [];

beforeAll(() => {
  // Whether sessions spin is decided from the load when they are created and is part of
  // what a reused session must match (embedder-pool.ts); fixed here, so a load that
  // crosses the core count between two jobs of a busy test machine cannot change it.
  spin = process.env.EQUIVOX_ORT_SPIN;
  process.env.EQUIVOX_ORT_SPIN = '0';
  home = tempDir('home');
  a = makeProject([{ seconds: 1.2, f0: 110 }, { seconds: 0.8, f0: 220 }]);
  b = makeProject([{ seconds: 1.0, f0: 150 }, { seconds: 1.5, f0: 260 }, { seconds: 0.7, f0: 330 }]);
  bAgain = makeProject([{ seconds: 1.0, f0: 150 }, { seconds: 1.5, f0: 260 }, { seconds: 0.7, f0: 330 }]);
});
afterAll(async () => {
  await Promise.all(runners.map((r) => r.shutdown()));
  for (const p of [a, b, bAgain]) p.db.close();
  if (spin === undefined) delete process.env.EQUIVOX_ORT_SPIN;
  else process.env.EQUIVOX_ORT_SPIN = spin;
});

function runner(): JobRunner {
  const r = new JobRunner();
  runners.push(r);
  return r;
}

function embed(r: JobRunner, p: Project, model: string): Promise<EmbedSummary> {
  const input: EmbedTaskInput = { projectPath: p.dir, datasetId: p.datasetId, model, dataDir: home, provider: 'cpu', threads: 1 };
  return r.start('inference.embed', input).result;
}

function rows(p: Project, modelId: string): { audio_sha256: string; dims_json: string; frames: number; mean: Buffer; min: Buffer; max: Buffer }[] {
  return p.db.prepare('SELECT audio_sha256, dims_json, frames, mean, min, max FROM embeddings WHERE model_sha256 = ? ORDER BY audio_sha256').all(modelId) as ReturnType<typeof rows>;
}

describe('onnxruntime sessions reused across jobs', () => {
  it('sets a model up once for two embedding jobs of different datasets; another model gets its own; the numbers equal a fresh worker’s', async () => {
    const r = runner();
    const first = await embed(r, a, 'speech-embedding');
    expect(first.computed).toBe(2);
    expect(first.session).toBe('created');
    const held = await r.start('selftest.sessions', {}).result;
    const second = await embed(r, b, 'speech-embedding');
    expect(second.computed).toBe(3);
    expect(second.cached).toBe(0);
    expect(second.session).toBe('reused');
    expect(second.provider).toBe(first.provider);
    const after = await r.start('selftest.sessions', {}).result;
    // The same worker, and not one onnxruntime session created by the second job.
    expect(after.worker).toBe(held.worker);
    expect(after.sessions).toBe(held.sessions);
    expect(after.embedders).toEqual({ created: 1, reused: 1, kept: 1 });

    // Another model: its own sessions (and the worker keeps one model, the new one).
    const other = await embed(r, b, 'acoustic-baseline');
    expect(other.computed).toBe(3);
    expect(other.session).toBe('created');
    const last = await r.start('selftest.sessions', {}).result;
    expect(last.worker).toBe(held.worker);
    expect(last.sessions).toBeGreaterThan(after.sessions);
    expect(last.embedders).toEqual({ created: 2, reused: 1, kept: 1 });

    // The same clips through a worker that has run nothing: identical bytes.
    const fresh = runner();
    const again = await embed(fresh, bAgain, 'speech-embedding');
    expect(again.session).toBe('created');
    expect(again.computed).toBe(3);
    const reusedRows = rows(b, second.modelId);
    expect(reusedRows).toHaveLength(3);
    expect(rows(bAgain, again.modelId)).toEqual(reusedRows);
  }, 180_000);
});
