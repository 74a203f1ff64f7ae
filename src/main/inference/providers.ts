/**
 * Execution providers: tried in order, as available on the platform — CUDA (Linux with
 * NVIDIA), DirectML (Windows), CoreML (macOS), WebGPU where the binding lists it, then
 * CPU — falling back when session creation fails. The user can force one. Every result
 * records the provider that ran, the thread count and the onnxruntime version.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { onnxruntime, onnxruntimeVersion } from './ort';
import type * as ort from './ort';
import { noSuchFolder } from '../security/empty-dir';
import { unpackedPath } from '../packaged-path';

export type ProviderName = 'cuda' | 'dml' | 'coreml' | 'webgpu' | 'cpu';
export const PROVIDERS: readonly ProviderName[] = ['cuda', 'dml', 'coreml', 'webgpu', 'cpu'];

export interface RunInfo {
  provider: ProviderName;
  threads: number;
  ortVersion: string;
  /** Providers tried before this one, with why they failed. */
  fallbacks: { provider: ProviderName; error: string }[];
  /** Set when a GPU provider failed while running and the session went on with the CPU (see createSession). */
  switchedFrom?: ProviderName;
}

export function ortVersion(): string {
  // Without loading the library: an audit that runs no model records it too (ort.ts).
  return onnxruntimeVersion();
}

/** Backends the installed onnxruntime-node binary was built with. */
export function bundledBackends(): string[] {
  try {
    return onnxruntime().listSupportedBackends().map((b) => b.name);
  } catch {
    return ['cpu'];
  }
}

/**
 * The CUDA provider is a separate library that onnxruntime-node only downloads when
 * installed with ONNXRUNTIME_NODE_INSTALL=cuda12; without it, trying CUDA only logs an
 * error, so we look for the file first.
 */
export function cudaLibraryPresent(): boolean {
  try {
    const require = createRequire(import.meta.url);
    // In a packaged app the provider library sits in app.asar.unpacked (packaged-path.ts).
    const root = unpackedPath(dirname(require.resolve('onnxruntime-node/package.json')));
    return existsSync(join(root, 'bin', 'napi-v6', 'linux', process.arch, 'libonnxruntime_providers_cuda.so'));
  } catch {
    return false;
  }
}

/** Providers that failed to create a session in this process: not retried. */
const failed = new Set<ProviderName>();

/**
 * The order to try, for this platform; a forced provider is tried alone. WebGPU is only
 * tried automatically on Windows and macOS, where Dawn has D3D12/Metal; on Linux it needs
 * Vulkan drivers and is used only when forced.
 */
export function providerOrder(platform: NodeJS.Platform = process.platform, bundled: string[] = bundledBackends(), force?: ProviderName | 'auto', cuda = cudaLibraryPresent()): ProviderName[] {
  if (force && force !== 'auto') return [force];
  const order: ProviderName[] = [];
  if (platform === 'linux' && bundled.includes('cuda') && cuda) order.push('cuda');
  if (platform === 'win32' && bundled.includes('dml')) order.push('dml');
  if (platform === 'darwin' && bundled.includes('coreml')) order.push('coreml');
  if ((platform === 'win32' || platform === 'darwin') && bundled.includes('webgpu')) order.push('webgpu');
  order.push('cpu');
  return order;
}

let physical: number | undefined;

/**
 * Physical cores available to this process: on Linux from the CPU topology in /sys, on
 * macOS from sysctl, elsewhere the logical count. Simultaneous multithreading siblings
 * share one core's arithmetic units, so they add little to onnxruntime's matrix products.
 */
export function physicalCores(): number {
  if (physical !== undefined) return physical;
  const logical = availableParallelism();
  let count = logical;
  try {
    if (process.platform === 'linux') {
      const root = '/sys/devices/system/cpu';
      const cores = new Set<string>();
      for (const d of readdirSync(root)) {
        if (!/^cpu\d+$/.test(d)) continue;
        const topo = join(root, d, 'topology');
        if (!existsSync(join(topo, 'core_id'))) continue;
        cores.add(`${readFileSync(join(topo, 'physical_package_id'), 'utf8').trim()}/${readFileSync(join(topo, 'core_id'), 'utf8').trim()}`);
      }
      if (cores.size > 0) count = cores.size;
    } else if (process.platform === 'darwin') {
      const r = spawnSync('sysctl', ['-n', 'hw.physicalcpu'], { encoding: 'utf8' });
      const n = Number(r.stdout?.trim());
      if (r.status === 0 && Number.isInteger(n) && n > 0) count = n;
    }
  } catch {
    count = logical;
  }
  physical = Math.max(1, Math.min(logical, count));
  return physical;
}

/**
 * Intra-op threads by default: every physical core, at most 8. On a 2-core machine the old
 * default (cores − 1) ran the model on one thread (ratio to PyTorch 0.58 against 0.83 with
 * two, in issue 15's measurements); with WAVs read in process, what runs beside the model
 * (reading a clip, pooling its states, storing them) takes a few milliseconds per clip
 * against hundreds in the model (bench/inference.ts prints the breakdown).
 */
export function defaultThreads(): number {
  return Math.min(8, physicalCores());
}

export interface SessionOptions {
  provider?: ProviderName | 'auto';
  threads?: number;
  /**
   * Where a model given as bytes reads its external data (a folder whose files were checked
   * and copied by inference/external-data.ts). Without it, a folder that cannot exist:
   * onnxruntime would otherwise resolve external data against the working directory. A
   * model given as a path reads from its own folder.
   */
  externalDataFolder?: string;
}

/**
 * Whether onnxruntime's idle worker threads spin-wait for the next parallel section.
 * Spinning saves a sleep and wake-up per section while the machine is otherwise idle, but
 * burns the cores the other threads need when it is busy. Measured on a 2-core machine
 * (base-size wav2vec2, 2 threads, bench/inference.ts): idle (load average about 2), 12.1
 * against 11.4 audio seconds per second with spinning; busy (load average 10), 1.5 against
 * 2.3, and 0.236 against 0.176 CPU seconds per audio second. So Equivox spins when the
 * 1-minute load average is below the number of cores (always on Windows, which reports no
 * load average). EQUIVOX_ORT_SPIN=1 or 0 forces it. The numbers are the same either way.
 * (Graph optimisation 'all' and 'extended' measured alike; 'basic' was 8% slower.)
 */
export function allowSpinning(load = loadavg()[0]!, cores = availableParallelism()): boolean {
  if (process.env.EQUIVOX_ORT_SPIN === '1') return true;
  if (process.env.EQUIVOX_ORT_SPIN === '0') return false;
  return load < cores;
}

let sessionsCreated = 0;

/** Sessions this thread has created so far (tests and benches: proof that a job set up no model). */
export function sessionCount(): number {
  return sessionsCreated;
}

/**
 * Create a session on the first provider that works. When providers were chosen
 * automatically and a GPU one later fails while running (a driver reset, a device removed,
 * memory exhausted), the session moves to the CPU for the rest of its life: the failed run
 * is repeated there, `info.provider` becomes 'cpu', and `info.switchedFrom` and
 * `info.fallbacks` say what failed, so the results name both. A provider the user forced
 * is never swapped for another.
 */
export async function createSession(model: Uint8Array | string, o: SessionOptions = {}): Promise<{ session: ort.InferenceSession; info: RunInfo }> {
  const threads = o.threads ?? defaultThreads();
  const fallbacks: RunInfo['fallbacks'] = [];
  const forcedOne = o.provider !== undefined && o.provider !== 'auto';
  // Where the library does not load, that is the answer (ort.ts: why, and what to do), not a provider's failure.
  onnxruntime();
  for (const provider of providerOrder(process.platform, bundledBackends(), o.provider)) {
    if (!forcedOne && provider !== 'cpu' && failed.has(provider)) continue;
    try {
      const options: ort.InferenceSession.SessionOptions = {
        executionProviders: [provider],
        intraOpNumThreads: threads,
        interOpNumThreads: 1,
        graphOptimizationLevel: 'all',
        logSeverityLevel: 3,
        extra: {
          session: {
            intra_op: { allow_spinning: allowSpinning() ? '1' : '0' },
            ...(typeof model === 'string' ? {} : { model_external_initializers_file_folder_path: o.externalDataFolder ?? noSuchFolder() }),
          },
        },
      };
      const { InferenceSession } = onnxruntime();
      const open = (opts: ort.InferenceSession.SessionOptions) => (typeof model === 'string' ? InferenceSession.create(model, opts) : InferenceSession.create(model, opts));
      const session = await open(options);
      sessionsCreated += 1;
      const info: RunInfo = { provider, threads, ortVersion: ortVersion(), fallbacks };
      if (forcedOne || provider === 'cpu') return { session, info };
      return { session: withCpuFallback(session, info, () => open({ ...options, executionProviders: ['cpu'] })), info };
    } catch (err) {
      failed.add(provider);
      fallbacks.push({ provider, error: firstLine(err) });
    }
  }
  const forced = o.provider && o.provider !== 'auto';
  throw new Error(
    `${forced ? `The ${o.provider} execution provider` : 'No execution provider'} could start this model: ` + fallbacks.map((f) => `${f.provider}: ${f.error}`).join('; '),
  );
}

function firstLine(err: unknown): string {
  return err instanceof Error ? err.message.split('\n')[0]! : String(err);
}

/**
 * `gpu` as a session that, the first time a run fails, opens the same model on the CPU and
 * repeats the run there. When the CPU fails too, the input or the model is at fault rather
 * than the provider: the CPU session is dropped and the original error stands.
 */
function withCpuFallback(gpu: ort.InferenceSession, info: RunInfo, openCpu: () => Promise<ort.InferenceSession>): ort.InferenceSession {
  let current = gpu;
  let onCpu = false;
  const run = async (...args: unknown[]): Promise<unknown> => {
    // The arguments are onnxruntime's own (feeds, fetches, options), passed through unchanged.
    const call = (s: ort.InferenceSession) => (s.run as (...a: unknown[]) => Promise<unknown>).apply(s, args);
    try {
      return await call(current);
    } catch (err) {
      if (onCpu) throw err;
      const cpu = await openCpu();
      let out: unknown;
      try {
        out = await call(cpu);
      } catch {
        await cpu.release();
        throw err;
      }
      const from = info.provider;
      failed.add(from);
      info.fallbacks.push({ provider: from, error: `failed while running (${firstLine(err)}); the rest ran on the CPU` });
      info.provider = 'cpu';
      info.switchedFrom = from;
      onCpu = true;
      const old = current;
      current = cpu;
      sessionsCreated += 1;
      await old.release().catch(() => undefined);
      return out;
    }
  };
  // Every other member (inputNames, outputNames, release, …) is the current session's.
  return new Proxy(gpu, {
    get(_target, prop) {
      if (prop === 'run') return run;
      const value = Reflect.get(current, prop, current) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(current) : value;
    },
  });
}
