/**
 * Speech recognisers kept between jobs of a job worker, so a second audit that transcribes
 * with the same ASR model and settings sets up no onnxruntime session. The keeping itself
 * (at most one idle recogniser per worker, released at the thread's end, nothing kept
 * outside job workers) is session-pool.ts's; this module says what makes two runs share one.
 */
import { createHash } from 'node:crypto';
import type { ModelManifest } from '../manifest';
import { allowSpinning, defaultThreads, type SessionOptions } from '../providers';
import { borrow, poolCounts, type PoolCounts } from '../session-pool';
import { createRecognizer } from './store';
import { RECOGNIZER_SESSION_DEFAULTS, type Recognizer } from './types';
import type { WhisperDecodeOptions } from './whisper';

export type RecognizerDecode = WhisperDecodeOptions & { noCache?: boolean };

export interface RecognizerLease {
  readonly recognizer: Recognizer;
  /** 'created': its sessions were set up for this run; 'reused': a run before this one set them up. */
  readonly session: 'created' | 'reused';
  /** Hands the recogniser back: kept for the next run where this thread keeps models, else released. */
  release(): Promise<void>;
}

/**
 * What makes two runs able to share a recogniser: the model (its id, which covers the
 * graphs and the vocabulary, its settings key, the graph file it is read from and the
 * stored decoding spec), the decoding settings a Whisper recogniser is built with
 * (language, task, key/value cache or not; a CTC recogniser has none), the provider asked
 * for, the thread count and whether the session spins (providers.ts allowSpinning, decided
 * at creation from the load).
 */
export function recognizerKey(manifest: ModelManifest, session: SessionOptions | undefined, decode: RecognizerDecode = {}): string {
  const o = session ?? RECOGNIZER_SESSION_DEFAULTS;
  const graph = manifest.files.find((f) => f.role === 'model')?.path ?? null;
  const spec = createHash('sha256').update(JSON.stringify(manifest.asr ?? null)).digest('hex');
  const settings = manifest.asr?.kind === 'whisper' ? [decode.language ?? null, decode.task ?? null, decode.noCache === true] : null;
  return JSON.stringify([manifest.id, manifest.sha256, manifest.settingsKey, graph, spec, settings, o.provider ?? 'auto', o.threads ?? defaultThreads(), allowSpinning()]);
}

/** Sessions set up and runs served from a kept recogniser, in this thread (tests, benches). */
export function recognizerCounts(): PoolCounts {
  return poolCounts('recognizer');
}

/** A recogniser for one run (createRecognizer's arguments): a kept one with the same key, else a new one. */
export async function borrowRecognizer(manifest: ModelManifest, session?: SessionOptions, decode: RecognizerDecode = {}): Promise<RecognizerLease> {
  const lease = await borrow('recognizer', recognizerKey(manifest, session, decode), () => createRecognizer(manifest, session, decode));
  return { recognizer: lease.value, session: lease.session, release: () => lease.release() };
}
