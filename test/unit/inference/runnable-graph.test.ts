/**
 * The runnable form of a stored graph (src/main/inference/runnable-graph.ts): written at
 * import, the same outputs to the bit as the graph it was made from, used only while it
 * matches that graph, and rebuilt by the next embedding run when it does not. Models are
 * the test fixtures imported through the real import (test/fixtures/models/build.ts); the
 * outputs are compared with a session set up from derived.onnx itself.
 */
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { embedDataset } from '../../../src/main/inference/embed';
import { normalizeWaveform } from '../../../src/main/inference/frontends';
import { ensureModel, importModel, modelsDir } from '../../../src/main/inference/models';
import { decodeModel, onnx } from '../../../src/main/inference/onnx-graph';
import { Tensor } from '../../../src/main/inference/ort';
import { createSession } from '../../../src/main/inference/providers';
import { ensureRunnableGraph, RUNNABLE_FILES, runnableGraph } from '../../../src/main/inference/runnable-graph';
import { inlineContext } from '../../../src/main/jobs/task';
import { writeFixtures } from '../../fixtures/models/build';
import { makeProject, tempDir, testClip } from './helpers';

let home: string;
let ids: { wav2vec2: string; whisper: string };

beforeAll(async () => {
  home = tempDir('home');
  const fx = writeFixtures(tempDir('fixtures'));
  ids = { wav2vec2: (await importModel(home, { file: fx.wav2vec2! })).id, whisper: (await importModel(home, { file: fx.whisper! })).id };
});

const derivedOf = (id: string) => join(modelsDir(home), id, 'derived.onnx');

/** Every output's bytes for one input, from a session set up from `graph`. */
async function outputs(graph: string, inputName: string, input: Tensor): Promise<Record<string, string>> {
  const { session } = await createSession(graph, { provider: 'cpu', threads: 1 });
  try {
    const r = await session.run({ [inputName]: input });
    return Object.fromEntries(session.outputNames.map((n) => [n, createHash('sha256').update(r[n]!.data as Float32Array).digest('hex')]));
  } finally {
    await session.release();
  }
}

describe('the runnable form of a stored graph', () => {
  it('is written at import: the same graph with its large weights in a file beside it, 4 KiB aligned', async () => {
    for (const id of [ids.wav2vec2, ids.whisper]) {
      const derived = derivedOf(id);
      const graph = runnableGraph(derived);
      expect(graph, id).toBe(join(modelsDir(home), id, RUNNABLE_FILES.graph));
      const source = decodeModel(readFileSync(derived));
      const runnable = decodeModel(readFileSync(graph!));
      const weights = readFileSync(join(modelsDir(home), id, RUNNABLE_FILES.weights));
      // Same nodes, inputs and outputs; every initializer the same bytes, inline or read back from the weights file.
      expect(JSON.stringify(runnable.graph!.node)).toBe(JSON.stringify(source.graph!.node));
      expect(runnable.graph!.output!.map((o) => o.name)).toEqual(source.graph!.output!.map((o) => o.name));
      let moved = 0;
      for (const [k, t] of runnable.graph!.initializer!.entries()) {
        const want = source.graph!.initializer![k]!;
        expect(t.name).toBe(want.name);
        if (t.dataLocation === onnx.TensorProto.DataLocation.EXTERNAL) {
          const kv = Object.fromEntries(t.externalData!.map((e) => [e.key, e.value]));
          expect(kv.location).toBe(RUNNABLE_FILES.weights);
          expect(Number(kv.offset) % 4096).toBe(0);
          expect(Buffer.compare(weights.subarray(Number(kv.offset), Number(kv.offset) + Number(kv.length)), Buffer.from(want.rawData!))).toBe(0);
          moved += 1;
        } else {
          expect(Buffer.from(t.rawData ?? []).equals(Buffer.from(want.rawData ?? []))).toBe(true);
        }
      }
      expect(moved, id).toBeGreaterThan(0);
      expect(statSync(graph!).size).toBeLessThan(statSync(derived).size / 2);
    }
  });

  it('gives every output to the bit as the graph it was made from (raw waveform and log-mel)', async () => {
    const wav = normalizeWaveform(testClip(2.3, 130, 7));
    const w2v = await ensureModel(home, ids.wav2vec2);
    const a = await outputs(derivedOf(ids.wav2vec2), w2v.manifest.inputName, new Tensor('float32', wav, [1, wav.length]));
    expect(Object.keys(a).length).toBe(w2v.manifest.states.length);
    expect(await outputs(runnableGraph(derivedOf(ids.wav2vec2))!, w2v.manifest.inputName, new Tensor('float32', wav, [1, wav.length]))).toEqual(a);
    const wh = await ensureModel(home, ids.whisper);
    const fe = wh.manifest.frontEnd;
    const mels = fe.kind === 'whisper-logmel' ? fe.nMels : 0;
    const feats = new Float32Array(mels * 3000).map((_, i) => Math.sin(i / 97) * 0.5);
    const b = await outputs(derivedOf(ids.whisper), wh.manifest.inputName, new Tensor('float32', feats, [1, mels, 3000]));
    expect(await outputs(runnableGraph(derivedOf(ids.whisper))!, wh.manifest.inputName, new Tensor('float32', feats, [1, mels, 3000]))).toEqual(b);
  });

  it('is not used once it no longer matches its source, and the next embedding run writes it again', async () => {
    const derived = derivedOf(ids.wav2vec2);
    const dir = join(modelsDir(home), ids.wav2vec2);
    const project = makeProject([{ seconds: 1.5, f0: 140 }]);
    try {
      // The source changed after the form was written (its time; a store copied without times reads the same).
      const t = statSync(derived).mtime;
      utimesSync(derived, t, new Date(t.getTime() + 5000));
      expect(runnableGraph(derived)).toBeNull();
      await embedDataset(project.db, { dataDir: home, datasetId: project.datasetId, model: ids.wav2vec2, provider: 'cpu', threads: 1 }, inlineContext());
      expect(runnableGraph(derived)).toBe(join(dir, RUNNABLE_FILES.graph));
      // Its weights deleted, or cut short: not used; ensureRunnableGraph writes it again.
      rmSync(join(dir, RUNNABLE_FILES.weights));
      expect(runnableGraph(derived)).toBeNull();
      expect(await ensureRunnableGraph(derived)).toBe(join(dir, RUNNABLE_FILES.graph));
      writeFileSync(join(dir, RUNNABLE_FILES.weights), readFileSync(join(dir, RUNNABLE_FILES.weights)).subarray(0, 4096));
      expect(runnableGraph(derived)).toBeNull();
      // A stamp that is not JSON counts as none.
      writeFileSync(join(dir, RUNNABLE_FILES.stamp), '{');
      expect(runnableGraph(derived)).toBeNull();
      expect(await ensureRunnableGraph(derived)).toBe(join(dir, RUNNABLE_FILES.graph));
      expect(runnableGraph(derived)).toBe(join(dir, RUNNABLE_FILES.graph));
    } finally {
      project.db.close();
    }
  });
});
