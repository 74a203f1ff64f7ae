/**
 * CTC speech recogniser for wav2vec2ForCTC-style exports: waveform [1, samples] → logits
 * [1, T, V], greedy decoding as Wav2Vec2CTCTokenizer.decode does it (argmax per frame,
 * collapse repeats, drop the blank, "|" → space).
 */
import * as ort from '../ort';
import { chunkRanges, normalizeWaveform, SAMPLE_RATE, WHISPER_SAMPLES } from '../frontends';
import { createSession, type SessionOptions } from '../providers';
import { argmaxProb, RECOGNIZER_SESSION_DEFAULTS, tidy, type Recognizer, type Transcript } from './types';

export interface CtcVocab {
  /** id → token (holes, if any, are empty strings and print nothing). */
  idToToken: string[];
  blankId: number;
  wordDelimiter: string;
  /** Tokens never printed nor counted (<s>, </s>, <unk>; the blank is dropped anyway). */
  special: ReadonlySet<string>;
}

export const CTC_DEFAULTS = { blank: '<pad>', wordDelimiter: '|', special: ['<s>', '</s>', '<unk>', '<pad>'] } as const;

/** A Wav2Vec2CTCTokenizer vocab.json (token → id). */
export function ctcVocabFromJson(vocab: Record<string, number>, o: { blank?: string; wordDelimiter?: string; special?: readonly string[] } = {}): CtcVocab {
  const blank = o.blank ?? CTC_DEFAULTS.blank;
  const size = Math.max(-1, ...Object.values(vocab)) + 1;
  const idToToken = new Array<string>(size).fill('');
  for (const [t, id] of Object.entries(vocab)) idToToken[id] = t;
  const blankId = vocab[blank];
  if (blankId === undefined) throw new Error(`the CTC vocabulary has no blank token "${blank}"`);
  return { idToToken, blankId, wordDelimiter: o.wordDelimiter ?? CTC_DEFAULTS.wordDelimiter, special: new Set(o.special ?? CTC_DEFAULTS.special) };
}

/**
 * Greedy CTC decoding of logits [T, V] (row-major). Per emitted token the confidence is
 * the mean, over the frames of its run, of the frame's max softmax probability; the
 * utterance's confidence is the mean of that over emitted tokens (word delimiters count,
 * blanks and special tokens do not).
 */
export function ctcGreedy(logits: Float32Array, frames: number, vocabSize: number, vocab: CtcVocab): { text: string; probSum: number; tokens: number } {
  let text = '';
  let probSum = 0;
  let tokens = 0;
  let prev = -1;
  let runSum = 0;
  let runLen = 0;
  const flush = () => {
    if (prev < 0 || prev === vocab.blankId) return;
    const tok = vocab.idToToken[prev] ?? '';
    if (vocab.special.has(tok)) return;
    text += tok === vocab.wordDelimiter ? ' ' : tok;
    probSum += runSum / runLen;
    tokens += 1;
  };
  for (let t = 0; t < frames; t += 1) {
    const { id, prob } = argmaxProb(logits.subarray(t * vocabSize, (t + 1) * vocabSize));
    if (id === prev) {
      runSum += prob;
      runLen += 1;
      continue;
    }
    flush();
    prev = id;
    runSum = prob;
    runLen = 1;
  }
  flush();
  return { text, probSum, tokens };
}

export interface CtcOptions {
  inputName: string;
  logitsOutput: string;
  vocab: CtcVocab;
  /** Wav2Vec2FeatureExtractor's do_normalize: zero mean, unit variance over the whole clip. */
  doNormalize: boolean;
  session?: SessionOptions;
}

/** Shorter inputs are zero-padded to this: one receptive field of the conv feature encoder. */
const MIN_SAMPLES = 400;

export async function createCtcRecognizer(model: Uint8Array, o: CtcOptions): Promise<Recognizer> {
  const { session, info } = await createSession(model, o.session ?? RECOGNIZER_SESSION_DEFAULTS);
  return {
    info,
    async transcribe(audio: Float32Array): Promise<Transcript> {
      const x = o.doNormalize ? normalizeWaveform(audio) : audio;
      const texts: string[] = [];
      let probSum = 0;
      let tokens = 0;
      // 30 s chunks, as for embeddings; each decoded on its own and the texts joined with a space.
      for (const [a, b] of chunkRanges(x.length, WHISPER_SAMPLES, SAMPLE_RATE)) {
        let chunk = x.subarray(a, b);
        if (chunk.length < MIN_SAMPLES) {
          const p = new Float32Array(MIN_SAMPLES);
          p.set(chunk);
          chunk = p;
        }
        const r = await session.run({ [o.inputName]: new ort.Tensor('float32', chunk, [1, chunk.length]) }, [o.logitsOutput]);
        const out = r[o.logitsOutput]!;
        const dims = out.dims;
        const V = dims[dims.length - 1]!;
        const T = dims.length >= 2 ? dims[dims.length - 2]! : 1;
        const g = ctcGreedy(out.data as Float32Array, T, V, o.vocab);
        out.dispose?.();
        texts.push(g.text);
        probSum += g.probSum;
        tokens += g.tokens;
      }
      return { text: tidy(texts.join(' ')), confidence: tokens > 0 ? probSum / tokens : null, tokens };
    },
    async release() {
      await session.release();
    },
  };
}
