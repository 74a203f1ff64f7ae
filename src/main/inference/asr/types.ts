/** What every recogniser gives back. */
import type { RunInfo, SessionOptions } from '../providers';

/**
 * The sessions a recogniser gets when its caller names none (the WER audit): one CPU thread,
 * as before sessions were kept. Also part of what makes two runs share a kept recogniser
 * (asr/recognizer-pool.ts), so the key and the sessions it stands for agree.
 */
export const RECOGNIZER_SESSION_DEFAULTS: Readonly<SessionOptions> = { provider: 'cpu', threads: 1 };

export interface Transcript {
  /** The hypothesis, whitespace collapsed and trimmed. */
  text: string;
  /**
   * Mean, over the emitted tokens, of each token's max softmax probability; null when
   * nothing was emitted (no token to be confident about).
   */
  confidence: number | null;
  /** Tokens the confidence averages over. */
  tokens: number;
  /** Multilingual Whisper: the language decoded as (the plan's, or the one detected). */
  language?: string | null;
  /** Whisper: the generated token ids, window by window (the forced prefix and eos left out). */
  ids?: number[][];
}

export interface Recognizer {
  readonly info: RunInfo;
  /** 16 kHz mono float32 audio → transcript. */
  transcribe(audio: Float32Array): Promise<Transcript>;
  release(): Promise<void>;
}

/** Softmax of one row at its argmax: the argmax and its probability (max-subtracted, so no overflow). */
export function argmaxProb(row: Float32Array | Float64Array, suppressed?: ReadonlySet<number>): { id: number; prob: number } {
  let best = -1;
  let max = -Infinity;
  for (let v = 0; v < row.length; v += 1) {
    if (suppressed?.has(v)) continue;
    if (row[v]! > max || best < 0) {
      max = row[v]!;
      best = v;
    }
  }
  let sum = 0;
  for (let v = 0; v < row.length; v += 1) if (!suppressed?.has(v)) sum += Math.exp(row[v]! - max);
  return { id: best, prob: 1 / sum };
}

export function tidy(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
