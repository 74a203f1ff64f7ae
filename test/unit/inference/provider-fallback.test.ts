/**
 * A GPU execution provider that fails in the middle of a job (a driver reset, a removed
 * device) leaves the rest of the job to the CPU, and the results say so (issue 35 item 11).
 *
 * No GPU here: onnxruntime is wrapped so that this process looks like Windows with
 * DirectML available, and a "dml" session is a real CPU session whose runs start failing
 * after the second one, as a lost device does. Everything else is real: the acoustic
 * baseline model, clips embedded with the real embedder, the provider label stored with
 * each embedding, and the report's provider text.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type * as OrtModule from '../../../src/main/inference/ort';

const DEVICE_LOST = 'D3D12 device removed: DXGI_ERROR_DEVICE_REMOVED (887A0005)';
let dmlRuns = 0;
let failAfter = 2;

vi.mock('../../../src/main/inference/ort', async (importOriginal) => {
  const real = await importOriginal<typeof OrtModule>();
  type Session = OrtModule.InferenceSession;
  type Options = OrtModule.InferenceSession.SessionOptions;
  const create = async (model: Uint8Array | string, options: Options): Promise<Session> => {
    const { InferenceSession } = real.onnxruntime();
    const providers = options.executionProviders as string[];
    if (providers[0] !== 'dml') return typeof model === 'string' ? InferenceSession.create(model, options) : InferenceSession.create(model, options);
    const cpu = await InferenceSession.create(model as Uint8Array, { ...options, executionProviders: ['cpu'] });
    // A device that works for `failAfter` runs, then is gone.
    return new Proxy(cpu, {
      get(target, prop) {
        if (prop === 'run') {
          return async (...args: unknown[]) => {
            dmlRuns += 1;
            if (dmlRuns > failAfter) throw new Error(`${DEVICE_LOST}\nstack…`);
            return (target.run as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          };
        }
        const v = Reflect.get(target, prop, target) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
  };
  return {
    ...real,
    // The library loads on first use (ort.ts onnxruntime()): what providers.ts gets is wrapped.
    onnxruntime: () => {
      const lib = real.onnxruntime();
      return { ...lib, listSupportedBackends: () => [...lib.listSupportedBackends(), { name: 'dml', bundled: true }], InferenceSession: { ...lib.InferenceSession, create } };
    },
  };
});

const { createSession } = await import('../../../src/main/inference/providers');
const { createEmbedder } = await import('../../../src/main/inference/embedder');
const { loadBuiltin } = await import('../../../src/main/inference/models');
const { providerLabel } = await import('../../../src/main/inference/cache');
const { providerText } = await import('../../../src/main/report/tables');
const ort = await import('../../../src/main/inference/ort');

const platform = Object.getOwnPropertyDescriptor(process, 'platform')!;
beforeAll(() => {
  // Loaded before the platform is faked: onnxruntime-node picks its binary by process.platform when it loads, which is on first use (ort.ts).
  ort.onnxruntime();
  Object.defineProperty(process, 'platform', { ...platform, value: 'win32' });
});
afterAll(() => Object.defineProperty(process, 'platform', platform));

/** Deterministic clips: tones with a little structure, 0.5–1 s. */
function clip(i: number): Float32Array {
  const n = 8000 + i * 1000;
  const x = new Float32Array(n);
  for (let t = 0; t < n; t += 1) x[t] = 0.3 * Math.sin((2 * Math.PI * (150 + 40 * i) * t) / 16000) + 0.05 * Math.sin((2 * Math.PI * 3100 * t) / 16000);
  return x;
}

describe('a GPU provider failing mid-job', () => {
  it('keeps the GPU and the original error when the CPU fails on the same input too (the input is at fault, not the GPU)', async () => {
    dmlRuns = 0;
    failAfter = 1000;
    const bytes = readFileSync(join(__dirname, '../../../resources/models/acoustic-baseline.onnx'));
    const { session, info } = await createSession(bytes, { threads: 1 });
    expect(info.provider).toBe('dml');
    const name = session.inputNames[0]!;
    // A rank-3 waveform: the model takes [batch, samples], on any provider.
    const bad = { [name]: new ort.Tensor('float32', new Float32Array(16000), [1, 1, 16000]) };
    const original = await session.run(bad).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(original?.message).toMatch(/rank|dimension|Invalid/i);
    expect(info.provider).toBe('dml');
    expect(info.fallbacks).toEqual([]);
    const good = await session.run({ [name]: new ort.Tensor('float32', new Float32Array(16000), [1, 16000]) });
    expect(Object.keys(good).length).toBeGreaterThan(0);
    expect(info.provider).toBe('dml');
    await session.release();
  });

  it('moves the session to the CPU, repeats the failed run there and records which provider failed and why', async () => {
    dmlRuns = 0;
    failAfter = 2;
    const { manifest, graphs } = await loadBuiltin('acoustic-baseline');
    const gpu = await createEmbedder(manifest, graphs, { threads: 1 });
    expect(gpu.info.provider).toBe('dml');
    expect(providerLabel(gpu.info)).toBe(`dml threads=1 ort=${gpu.info.ortVersion}`);
    const cpu = await createEmbedder(manifest, graphs, { provider: 'cpu', threads: 1 });
    const labels: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      const viaGpu = await gpu.embed(clip(i));
      labels.push(providerLabel(gpu.info));
      const reference = await cpu.embed(clip(i));
      // The stand-in "GPU" computes on the CPU too, so every clip must equal the CPU's, before and after the switch.
      for (let l = 0; l < reference.mean.length; l += 1) expect(Array.from(viaGpu.mean[l]!)).toEqual(Array.from(reference.mean[l]!));
    }
    // Clips 1 and 2 ran on "dml"; the third run failed there, was repeated on the CPU, and the rest stayed there.
    expect(labels.slice(0, 2)).toEqual([`dml threads=1 ort=${gpu.info.ortVersion}`, `dml threads=1 ort=${gpu.info.ortVersion}`]);
    expect(labels.slice(2)).toEqual(Array(3).fill(`cpu threads=1 ort=${gpu.info.ortVersion} switched-from=dml`));
    expect(dmlRuns).toBe(3);
    expect(gpu.info.provider).toBe('cpu');
    expect(gpu.info.switchedFrom).toBe('dml');
    expect(gpu.info.fallbacks).toEqual([{ provider: 'dml', error: `failed while running (${DEVICE_LOST}); the rest ran on the CPU` }]);
    await gpu.release();
    await cpu.release();
    // The report's provider cell and line.
    expect(providerText({ provider: 'cpu', threads: 1, providerSwitchedFrom: 'dml' })).toBe('cpu (1 threads); dml failed during embedding and the clips after it ran on the CPU');
    expect(providerText({ provider: 'cpu', threads: 4 })).toBe('cpu (4 threads)');
  });

  it('does not try that provider again in this process, and never swaps a provider the user forced', async () => {
    dmlRuns = 0;
    failAfter = 0;
    const bytes = readFileSync(join(__dirname, '../../../resources/models/acoustic-baseline.onnx'));
    const { session, info } = await createSession(bytes, { threads: 1 });
    // A provider that failed mid-run in this process is not tried again: the new session is the CPU's.
    expect(info.provider).toBe('cpu');
    await session.release();
    // A forced provider is never swapped for another: its failure is the job's.
    const forced = await createSession(bytes, { provider: 'dml', threads: 1 });
    const feeds = { [forced.session.inputNames[0]!]: new ort.Tensor('float32', new Float32Array(16000), [1, 16000]) };
    await expect(forced.session.run(feeds)).rejects.toThrow(DEVICE_LOST);
    expect(forced.info.provider).toBe('dml');
    expect(forced.info.fallbacks).toEqual([]);
    await forced.session.release();
  });
});
