/**
 * GPU check (`npm run bench:gpu`), one command of a few minutes, no network. On Windows
 * (DirectML) and macOS (CoreML): when onnxruntime-node offers the provider and a session
 * starts on it, the same parity check as below against the CPU; otherwise one line saying
 * it is not present (and why), exit 0. On Linux (CUDA):
 *
 * - no NVIDIA GPU: one line saying so, exit 0;
 * - a GPU but something missing: names exactly what (the NVIDIA driver, onnxruntime-node's
 *   CUDA provider libraries in its bin folder, each CUDA/cuDNN library the provider
 *   cannot find, as `ldd` reports it), exit 2;
 * - otherwise: a base-size wav2vec2 (12 blocks × 768, built in JavaScript, every state
 *   exposed) on the CUDA execution provider and on the CPU; every layer's pooled vectors
 *   (temporal mean, min and max, as Equivox stores them) compared (relative 1e-3 of the
 *   layer's largest CPU value), audio seconds per second on each, and the provider line
 *   the report would print. Exit 0 when every layer agrees, 1 when one does not.
 *
 *   npm run bench:gpu [-- --clips 16 --seconds 4]
 *
 * Installing the CUDA provider libraries (and carrying them to a machine without
 * network): docs/gpu.md.
 */
import '../src/main/security/telemetry-off'; // first: onnxruntime-node's native telemetry off (src/main/security/telemetry.ts)
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as ort from '../src/main/inference/ort';
import { StatsAccumulator } from '../src/main/inference/embedder';
import { exposeLayers } from '../src/main/inference/expose';
import { normalizeWaveform } from '../src/main/inference/frontends';
import { bundledBackends, createSession, ortVersion, type ProviderName, type RunInfo } from '../src/main/inference/providers';
import { buildWav2vec2Fixture } from '../test/fixtures/models/build';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

/** The folder onnxruntime-node loads its native libraries from. */
function ortBinFolder(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('onnxruntime-node/package.json')), 'bin', 'napi-v6', process.platform, process.arch);
}

/** Files onnxruntime-node's install script puts beside libonnxruntime.so for CUDA (script/install-metadata.js, manifest linux/x64:cuda12). */
const PROVIDER_FILES = ['libonnxruntime_providers_shared.so', 'libonnxruntime_providers_cuda.so'];

function nvidiaPresent(): { gpu: boolean; driver: string | null } {
  const devices = existsSync('/dev') ? readdirSync('/dev').filter((d) => /^nvidia\d+$/.test(d)) : [];
  const driver = existsSync('/proc/driver/nvidia/version') ? 'kernel module loaded' : null;
  let pci = false;
  try {
    // PCI vendor 0x10de with a display/3D controller class: an NVIDIA GPU, driver or not.
    for (const d of readdirSync('/sys/bus/pci/devices')) {
      const base = join('/sys/bus/pci/devices', d);
      const vendor = spawnSync('cat', [join(base, 'vendor'), join(base, 'class')], { encoding: 'utf8' }).stdout.split('\n');
      if (vendor[0]?.trim() === '0x10de' && /^0x03/.test(vendor[1]?.trim() ?? '')) pci = true;
    }
  } catch {
    // no sysfs (a container): rely on the device nodes
  }
  return { gpu: pci || devices.length > 0 || driver !== null, driver: devices.length > 0 || driver ? driver ?? `${devices.length} device node(s)` : null };
}

/** Libraries the CUDA provider needs that the dynamic loader cannot find (ldd's "not found"). */
function missingCudaLibraries(providerLib: string): string[] {
  const r = spawnSync('ldd', [providerLib], { encoding: 'utf8' });
  if (r.status !== 0) return [`ldd could not read ${providerLib}: ${r.stderr.trim()}`];
  return r.stdout
    .split('\n')
    .filter((l) => /not found/.test(l))
    .map((l) => l.trim().split(/\s+/)[0]!);
}

interface Pooled {
  mean: Float32Array[];
  min: Float32Array[];
  max: Float32Array[];
}

async function runAll(session: ort.InferenceSession, outputs: string[], clips: Float32Array[]): Promise<{ seconds: number; pooled: Pooled[] }> {
  const pooled: Pooled[] = [];
  const warm = await session.run({ input_values: new ort.Tensor('float32', clips[0]!, [1, clips[0]!.length]) }, outputs);
  for (const k of Object.keys(warm)) warm[k]!.dispose?.();
  const t0 = performance.now();
  for (const x of clips) {
    const r = await session.run({ input_values: new ort.Tensor('float32', x, [1, x.length]) }, outputs);
    const acc = outputs.map((o) => {
      const t = r[o]!;
      const width = t.dims[t.dims.length - 1]!;
      const a = new StatsAccumulator(width);
      a.add(t.data as Float32Array, (t.data as Float32Array).length / width);
      t.dispose?.();
      return a;
    });
    pooled.push({ mean: acc.map((a) => a.mean()), min: acc.map((a) => Float32Array.from(a.min)), max: acc.map((a) => Float32Array.from(a.max)) });
  }
  return { seconds: (performance.now() - t0) / 1000, pooled };
}

async function main(): Promise<number> {
  const nClips = arg('clips', 16);
  const seconds = arg('seconds', 4);
  const osGpu = OS_GPU[process.platform];
  for (const [platform, g] of Object.entries(OS_GPU)) {
    if (platform !== process.platform) console.log(`${g.name}: not present (${platform === 'win32' ? 'Windows' : 'macOS'} only; this is ${process.platform})`);
  }
  if (osGpu) {
    console.log(`onnxruntime-node ${ortVersion()} on ${process.platform}/${process.arch}`);
    if (!bundledBackends().includes(osGpu.provider)) {
      console.log(`${osGpu.name}: not present (this onnxruntime-node build offers ${bundledBackends().join(', ')}): nothing to check.`);
      return 0;
    }
    return parity(osGpu.provider, osGpu.name, nClips, seconds);
  }
  if (process.platform !== 'linux') {
    console.log(`No GPU check on ${process.platform}: onnxruntime-node has CUDA for Linux, DirectML for Windows and CoreML for macOS.`);
    return 0;
  }
  const nv = nvidiaPresent();
  if (!nv.gpu) {
    console.log('No NVIDIA GPU on this machine (no NVIDIA PCI display device, no /dev/nvidia*, no /proc/driver/nvidia): nothing to check.');
    return 0;
  }
  console.log(`onnxruntime-node ${ortVersion()} on ${process.platform}/${process.arch}`);
  const missing: string[] = [];
  if (!nv.driver) missing.push('the NVIDIA driver: an NVIDIA GPU is present but no driver is loaded (no /dev/nvidia*, no /proc/driver/nvidia/version); install the driver, then check with nvidia-smi');
  const bin = ortBinFolder();
  for (const f of PROVIDER_FILES) if (!existsSync(join(bin, f))) missing.push(`${f} in ${bin} (onnxruntime-node's CUDA provider; see docs/gpu.md)`);
  const providerLib = join(bin, 'libonnxruntime_providers_cuda.so');
  if (existsSync(providerLib)) for (const lib of missingCudaLibraries(providerLib)) missing.push(`${lib}, which ${providerLib} needs (CUDA 12 / cuDNN 9; add its folder to LD_LIBRARY_PATH)`);
  if (missing.length) {
    console.log(`The CUDA execution provider cannot run here. Missing:\n${missing.map((m) => `  - ${m}`).join('\n')}`);
    return 2;
  }

  return parity('cuda', 'CUDA', nClips, seconds);
}

/** The GPU provider of this OS other than CUDA, with its name in words. */
const OS_GPU: Partial<Record<NodeJS.Platform, { provider: ProviderName; name: string }>> = { win32: { provider: 'dml', name: 'DirectML' }, darwin: { provider: 'coreml', name: 'CoreML' } };

/**
 * A base-size wav2vec2 on `provider` and on the CPU: speed, and every layer's pooled vectors
 * compared (relative 1e-3 of the layer's largest CPU value). 0 when they agree, 1 when not,
 * 2 when the provider does not start or onnxruntime fell back from it.
 */
async function parity(provider: ProviderName, name: string, nClips: number, seconds: number): Promise<number> {
  const exposed = exposeLayers(buildWav2vec2Fixture({ dim: 768, layers: 12, heads: 12, ffn: 3072, convDim: 512, seed: 11 }));
  if (!exposed.ok) throw new Error(exposed.reason);
  const outputs = exposed.map.states;
  const n = Math.round(seconds * 16000);
  const clips = Array.from({ length: nClips }, (_, k) => normalizeWaveform(Float32Array.from({ length: n }, (_, i) => 0.3 * Math.sin((i * (90 + 7 * k)) / 16000 * 2 * Math.PI) + 0.2 * Math.sin(i / (40 + k)))));
  let gpu: { session: ort.InferenceSession; info: RunInfo };
  try {
    gpu = await createSession(exposed.derived, { provider });
  } catch (err) {
    console.log(`The ${name} execution provider failed to start: ${err instanceof Error ? err.message : String(err)}`);
    return 2;
  }
  if (gpu.info.provider !== provider) {
    console.log(`onnxruntime fell back to ${gpu.info.provider}: the ${name} provider did not load.`);
    return 2;
  }
  const cpu = await createSession(exposed.derived, { provider: 'cpu' });
  console.log(`base-size wav2vec2 (12 blocks × 768, ${outputs.length} states exposed), ${nClips} clips of ${seconds} s, each provider warmed up first`);
  const c = await runAll(cpu.session, outputs, clips);
  const g = await runAll(gpu.session, outputs, clips);
  let worst = { rel: 0, where: '' };
  for (let k = 0; k < nClips; k += 1) {
    for (const stat of ['mean', 'min', 'max'] as const) {
      outputs.forEach((_, layer) => {
        const a = c.pooled[k]![stat][layer]!;
        const b = g.pooled[k]![stat][layer]!;
        let scale = 0;
        let diff = 0;
        for (let j = 0; j < a.length; j += 1) {
          scale = Math.max(scale, Math.abs(a[j]!));
          diff = Math.max(diff, Math.abs(a[j]! - b[j]!));
        }
        const rel = diff / Math.max(scale, 1e-12);
        if (rel > worst.rel) worst = { rel, where: `clip ${k + 1}, state ${layer}, ${stat}` };
      });
    }
  }
  const audio = nClips * seconds;
  console.log(`CPU  (${cpu.info.threads} threads): ${(audio / c.seconds).toFixed(1)} audio s/s`);
  console.log(`${name}: ${(audio / g.seconds).toFixed(1)} audio s/s (${(c.seconds / g.seconds).toFixed(1)}× the CPU)`);
  const ok = worst.rel <= 1e-3;
  console.log(`pooled vectors (mean, min, max of all ${outputs.length} states, every clip), ${name} against CPU: largest relative difference ${worst.rel.toExponential(2)}${worst.where ? ` (${worst.where})` : ''}: ${ok ? 'within' : 'OUTSIDE'} 1e-3`);
  console.log(`the report's provider line: Execution providers: ${gpu.info.provider} (${gpu.info.threads} threads)`);
  await cpu.session.release();
  await gpu.session.release();
  return ok ? 0 : 1;
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
