/**
 * The only module that loads onnxruntime-node (a lint rule keeps it so), and only when a
 * model is about to run: importing this module loads nothing (issue 35 item 1). The
 * library is native and does not load everywhere (no build for Intel Macs, macOS 14 or
 * later on Apple silicon, the Visual C++ runtime on Windows); where it cannot, inference
 * is unavailable and nothing else is: datasets, results and reports never load it.
 *
 * Its native library reads ORT_DISABLE_TELEMETRY when the first session is created;
 * loading it in a process whose entry point did not turn telemetry off fails here, loudly,
 * before any session can exist (see src/main/security/telemetry.ts).
 */
import { createRequire } from 'node:module';
import type * as Ort from 'onnxruntime-node';
import { UserError } from '../../shared/errors';
import { assertTelemetryOff } from '../security/telemetry';

// Types only: they cost nothing at run time. `ort.InferenceSession`, `ort.Tensor` in type positions.
export type * from 'onnxruntime-node';

const require = createRequire(import.meta.url);
let loaded: typeof Ort | undefined;
let failure: InferenceUnavailableError | undefined;

/** Speech models cannot run on this computer: onnxruntime-node did not load. The message says why and what to do. */
export class InferenceUnavailableError extends UserError {
  constructor(
    readonly reason: string,
    readonly fix: string,
  ) {
    super(`Speech models cannot run on this computer: ${reason}. ${fix}`);
    this.name = 'InferenceUnavailableError';
  }
}

/** Why onnxruntime-node did not load, and what to do, for this platform. */
export function unavailableReason(err: unknown, platform: NodeJS.Platform = process.platform, arch: string = process.arch): { reason: string; fix: string } {
  const first = (err instanceof Error ? err.message : String(err)).split('\n')[0]!.slice(0, 300);
  const everythingElse = 'Importing recordings, results from files and reports still work.';
  if (platform === 'darwin' && arch === 'x64') {
    return { reason: 'the onnxruntime library has no build for Intel Macs', fix: `Run the audits that need a speech model on an Apple silicon Mac (macOS 14 or later), Windows or Linux. ${everythingElse}` };
  }
  if (platform === 'darwin') return { reason: `the onnxruntime library did not load (${first})`, fix: `It needs macOS 14 or later: update macOS, then start Equivox again. ${everythingElse}` };
  if (platform === 'win32') {
    return {
      reason: `the onnxruntime library did not load (${first})`,
      fix: `Install the Microsoft Visual C++ 2015–2022 Redistributable (version 14.28 or later, for ${arch === 'arm64' ? 'ARM64' : 'x64'}) from Microsoft, then start Equivox again. ${everythingElse}`,
    };
  }
  return { reason: `the onnxruntime library did not load (${first})`, fix: `Reinstall Equivox (from source: npm ci), then start it again. ${everythingElse}` };
}

/** onnxruntime-node, loaded on first use; throws InferenceUnavailableError where it cannot load (and again on every later call). */
export function onnxruntime(): typeof Ort {
  if (loaded) return loaded;
  if (failure) throw failure;
  assertTelemetryOff('onnxruntime-node');
  try {
    loaded = require('onnxruntime-node') as typeof Ort;
    return loaded;
  } catch (err) {
    const { reason, fix } = unavailableReason(err);
    failure = new InferenceUnavailableError(reason, fix);
    throw failure;
  }
}

/** Whether onnxruntime-node loads here (loading it to find out), and if not why and what to do. */
export function inferenceStatus(): { available: true } | { available: false; reason: string; fix: string } {
  try {
    onnxruntime();
    return { available: true };
  } catch (err) {
    if (err instanceof InferenceUnavailableError) return { available: false, reason: err.reason, fix: err.fix };
    throw err;
  }
}

/**
 * The installed onnxruntime-node's version, without loading it: the loaded library's
 * onnxruntime-common version where it is loaded (they ship in lockstep), else its package's.
 */
export function onnxruntimeVersion(): string {
  if (loaded) return loaded.env.versions?.common ?? 'unknown';
  try {
    return (require('onnxruntime-node/package.json') as { version?: string }).version ?? 'unknown';
  } catch {
    return 'not installed';
  }
}

/** `new ort.Tensor(…)` without loading the library at import: constructed from the loaded one. */
export type Tensor = Ort.Tensor;
export const Tensor = new Proxy(function Tensor() {}, {
  construct: (_target, args: unknown[]) => new (onnxruntime().Tensor as unknown as new (...a: unknown[]) => object)(...args),
}) as unknown as typeof Ort.Tensor;
