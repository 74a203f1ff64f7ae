/**
 * GPU check: runs a fixture speech encoder on the CUDA execution provider and prints its
 * speed-up over CPU, and that both give the same hidden states. On a machine without an
 * NVIDIA GPU or without onnxruntime's CUDA libraries it says so plainly and exits 2.
 *
 *   ONNXRUNTIME_NODE_INSTALL=cuda12 npm ci     (once, on Linux with an NVIDIA driver, CUDA 12, cuDNN 9)
 *   npx tsx bench/gpu-check.ts [--seconds 10] [--runs 5]
 */
import '../src/main/security/telemetry-off'; // first: onnxruntime-node's native telemetry off (src/main/security/telemetry.ts)
import * as ort from '../src/main/inference/ort';
import { exposeLayers } from '../src/main/inference/expose';
import { createSession, cudaLibraryPresent, ortVersion } from '../src/main/inference/providers';
import { buildWav2vec2Fixture } from '../test/fixtures/models/build';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

async function timeRuns(session: ort.InferenceSession, feeds: Record<string, ort.Tensor>, runs: number): Promise<{ ms: number; out: Float32Array }> {
  let out = (await session.run(feeds)).last_hidden_state!.data as Float32Array; // warm-up
  const t0 = performance.now();
  for (let i = 0; i < runs; i += 1) out = (await session.run(feeds)).last_hidden_state!.data as Float32Array;
  return { ms: (performance.now() - t0) / runs, out };
}

async function main(): Promise<number> {
  const seconds = arg('seconds', 10);
  const runs = arg('runs', 5);
  console.log(`onnxruntime-node ${ortVersion()} on ${process.platform}/${process.arch}; backends: ${ort.listSupportedBackends().map((b) => `${b.name}${b.bundled ? '' : ' (needs libraries)'}`).join(', ')}`);
  if (process.platform !== 'linux') {
    console.log('CUDA check skipped: the CUDA provider is only tried on Linux (Windows uses DirectML, macOS CoreML).');
    return 2;
  }
  if (!cudaLibraryPresent()) {
    console.log('CUDA unavailable: onnxruntime-node was installed without its CUDA provider libraries (libonnxruntime_providers_cuda.so).');
    console.log('On a Linux machine with an NVIDIA GPU, reinstall with ONNXRUNTIME_NODE_INSTALL=cuda12 (needs CUDA 12 and cuDNN 9), then run this again. Equivox falls back to CPU meanwhile.');
    return 2;
  }
  const exposed = exposeLayers(buildWav2vec2Fixture({ dim: 768, layers: 12, heads: 12, ffn: 3072, convDim: 512, seed: 11 }));
  if (!exposed.ok) throw new Error(exposed.reason);
  const n = Math.round(seconds * 16000);
  const x = Float32Array.from({ length: n }, (_, i) => Math.sin(i / 7) * 0.3 + Math.sin(i / 53) * 0.2);
  const feeds = { input_values: new ort.Tensor('float32', x, [1, n]) };
  let cuda;
  try {
    cuda = await createSession(exposed.derived, { provider: 'cuda' });
  } catch (err) {
    console.log(`CUDA unavailable: ${err instanceof Error ? err.message : String(err)}`);
    console.log('Check the NVIDIA driver (nvidia-smi), CUDA 12 and cuDNN 9 libraries on the library path. Equivox falls back to CPU meanwhile.');
    return 2;
  }
  const cpu = await createSession(exposed.derived, { provider: 'cpu' });
  console.log(`fixture: wav2vec2-base-sized encoder (d768, 12 blocks), ${seconds} s of audio, ${runs} runs each after a warm-up`);
  const c = await timeRuns(cpu.session, feeds, runs);
  const g = await timeRuns(cuda.session, feeds, runs);
  let diff = 0;
  for (let i = 0; i < c.out.length; i += 1) diff = Math.max(diff, Math.abs(c.out[i]! - g.out[i]!));
  console.log(`CPU  (${cpu.info.threads} threads): ${c.ms.toFixed(1)} ms/run  (${(seconds / (c.ms / 1000)).toFixed(1)} audio s/s)`);
  console.log(`CUDA: ${g.ms.toFixed(1)} ms/run  (${(seconds / (g.ms / 1000)).toFixed(1)} audio s/s)`);
  console.log(`speed-up over CPU: ${(c.ms / g.ms).toFixed(1)}×; max |CPU − CUDA| on last_hidden_state: ${diff.toExponential(2)}`);
  await cpu.session.release();
  await cuda.session.release();
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(`gpu-check failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  },
);
