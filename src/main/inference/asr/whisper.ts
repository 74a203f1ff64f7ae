/**
 * Greedy decoding for a Whisper encoder-decoder export pair (optimum's
 * encoder_model.onnx + decoder_model.onnx, no timestamps). The decoder without a KV cache
 * is re-run on the growing prefix: quadratic in the length, which is fine for the short
 * utterances of a WER audit and needs no past-key-value plumbing.
 */
import * as ort from '../ort';
import { chunkRanges, WHISPER_FRAMES, WHISPER_SAMPLES, whisperLogMel } from '../frontends';
import type { AsrSpec } from '../manifest';
import { createSession, type SessionOptions } from '../providers';
import { decodeByteLevel } from './bytelevel';
import { argmaxProb, tidy, type Recognizer, type Transcript } from './types';

export type WhisperSpec = Extract<AsrSpec, { kind: 'whisper' }>;

/** Whisper's decoder has 448 positions; HF's greedy default stops well before. */
export const WHISPER_MAX_POSITIONS = 448;
export const WHISPER_MAX_NEW_TOKENS = 224;

export interface WhisperTokenFiles {
  /** vocab.json: token → id (byte-level strings). */
  vocab: Record<string, number>;
  /** added_tokens.json: token → id. */
  addedTokens?: Record<string, number> | null;
  /** tokenizer.json's added_tokens list, when the folder has one. */
  tokenizerAdded?: { id: number; content: string; special?: boolean }[] | null;
  config?: { decoder_start_token_id?: number; eos_token_id?: number } | null;
  generationConfig?: {
    decoder_start_token_id?: number;
    eos_token_id?: number | number[];
    suppress_tokens?: number[];
    begin_suppress_tokens?: number[];
    lang_to_id?: Record<string, number>;
    task_to_id?: Record<string, number>;
    no_timestamps_token_id?: number;
  } | null;
}

/** id → token over vocab.json and the added tokens. */
export function whisperIdToToken(f: Pick<WhisperTokenFiles, 'vocab' | 'addedTokens' | 'tokenizerAdded'>): Map<number, string> {
  const m = new Map<number, string>();
  for (const [t, id] of Object.entries(f.vocab)) m.set(id, t);
  for (const [t, id] of Object.entries(f.addedTokens ?? {})) m.set(id, t);
  for (const a of f.tokenizerAdded ?? []) m.set(a.id, a.content);
  return m;
}

/**
 * The decoding settings from the tokenizer and generation files: the forced prefix
 * (decoder_start_token_id, then <|en|>, <|transcribe|>, <|notimestamps|> where the
 * vocabulary has them: English transcription without timestamps), eos, suppressed ids and
 * the ids skipped when detokenising (added tokens and any <|…|> token).
 */
export function whisperSpec(f: WhisperTokenFiles): WhisperSpec {
  const idToToken = whisperIdToToken(f);
  const tokenId = new Map<string, number>();
  for (const [id, t] of idToToken) tokenId.set(t, id);
  const g = f.generationConfig ?? {};
  const start = g.decoder_start_token_id ?? f.config?.decoder_start_token_id ?? tokenId.get('<|startoftranscript|>');
  if (start === undefined) throw new Error('no decoder_start_token_id in generation_config.json/config.json and no <|startoftranscript|> token');
  const eosRaw = g.eos_token_id ?? f.config?.eos_token_id ?? tokenId.get('<|endoftext|>');
  const eos = Array.isArray(eosRaw) ? eosRaw[0] : eosRaw;
  if (eos === undefined) throw new Error('no eos_token_id in generation_config.json/config.json and no <|endoftext|> token');
  const prefix = [start];
  const en = tokenId.get('<|en|>') ?? g.lang_to_id?.['<|en|>'];
  const transcribe = tokenId.get('<|transcribe|>') ?? g.task_to_id?.transcribe;
  const noTs = tokenId.get('<|notimestamps|>') ?? g.no_timestamps_token_id;
  for (const id of [en, transcribe, noTs]) if (id !== undefined && !prefix.includes(id)) prefix.push(id);
  const special = new Set<number>();
  for (const id of Object.values(f.addedTokens ?? {})) special.add(id);
  for (const a of f.tokenizerAdded ?? []) if (a.special !== false) special.add(a.id);
  for (const [id, t] of idToToken) if (/^<\|.*\|>$/.test(t)) special.add(id);
  special.add(eos);
  return {
    kind: 'whisper',
    prefix,
    eosId: eos,
    maxNewTokens: WHISPER_MAX_NEW_TOKENS,
    suppressTokens: g.suppress_tokens ?? [],
    beginSuppressTokens: g.begin_suppress_tokens ?? [],
    specialIds: [...special].sort((a, b) => a - b),
  };
}

/** Generated ids → text: special ids skipped, byte-level tokens back to UTF-8. */
export function whisperDetokenize(ids: readonly number[], idToToken: ReadonlyMap<number, string>, specialIds: ReadonlySet<number>): string {
  return decodeByteLevel(ids.filter((id) => !specialIds.has(id)).map((id) => idToToken.get(id) ?? ''));
}

export interface WhisperOptions {
  spec: WhisperSpec;
  idToToken: ReadonlyMap<number, string>;
  nMels: 80 | 128;
  session?: SessionOptions;
}

function pick(names: readonly string[], wanted: string, what: string): string {
  if (names.includes(wanted)) return wanted;
  throw new Error(`the Whisper ${what} has no "${wanted}" (it has ${names.join(', ')})`);
}

export async function createWhisperRecognizer(encoder: Uint8Array, decoder: Uint8Array, o: WhisperOptions): Promise<Recognizer> {
  const sessionOptions = o.session ?? { provider: 'cpu', threads: 1 };
  const enc = await createSession(encoder, sessionOptions);
  const dec = await createSession(decoder, sessionOptions);
  const encIn = enc.session.inputNames[0]!;
  const encOut = enc.session.outputNames.includes('last_hidden_state') ? 'last_hidden_state' : enc.session.outputNames[0]!;
  const idsIn = pick(dec.session.inputNames, 'input_ids', 'decoder');
  const hiddenIn = pick(dec.session.inputNames, 'encoder_hidden_states', 'decoder');
  const extra = dec.session.inputNames.filter((n) => n !== idsIn && n !== hiddenIn);
  if (extra.length) {
    await enc.session.release();
    await dec.session.release();
    throw new Error(`the Whisper decoder also needs ${extra.join(', ')}; use the export without a KV cache (decoder_model.onnx)`);
  }
  const logitsOut = dec.session.outputNames.includes('logits') ? 'logits' : dec.session.outputNames[0]!;
  const suppress = new Set(o.spec.suppressTokens);
  const firstSuppress = new Set([...o.spec.suppressTokens, ...o.spec.beginSuppressTokens]);
  const special = new Set(o.spec.specialIds);
  const maxNew = Math.min(o.spec.maxNewTokens, WHISPER_MAX_POSITIONS - o.spec.prefix.length);

  async function decodeChunk(chunk: Float32Array): Promise<{ ids: number[]; probSum: number }> {
    const feats = whisperLogMel(chunk, o.nMels);
    const er = await enc.session.run({ [encIn]: new ort.Tensor('float32', feats, [1, o.nMels, WHISPER_FRAMES]) }, [encOut]);
    const hidden = er[encOut]!;
    const ids = [...o.spec.prefix];
    const generated: number[] = [];
    let probSum = 0;
    try {
      for (let step = 0; step < maxNew; step += 1) {
        const input = new ort.Tensor('int64', BigInt64Array.from(ids.map((i) => BigInt(i))), [1, ids.length]);
        const r = await dec.session.run({ [idsIn]: input, [hiddenIn]: hidden }, [logitsOut]);
        const logits = r[logitsOut]!;
        const V = logits.dims[logits.dims.length - 1]!;
        const data = logits.data as Float32Array;
        // The last position's logits predict the next token. Suppression as HF's
        // SuppressTokens(AtBegin)LogitsProcessor; the probability is over what is left.
        const { id, prob } = argmaxProb(data.subarray(data.length - V), step === 0 ? firstSuppress : suppress);
        logits.dispose?.();
        if (id === o.spec.eosId) break;
        generated.push(id);
        ids.push(id);
        probSum += prob;
      }
    } finally {
      hidden.dispose?.();
    }
    return { ids: generated, probSum };
  }

  return {
    info: enc.info,
    async transcribe(audio: Float32Array): Promise<Transcript> {
      const texts: string[] = [];
      let probSum = 0;
      let tokens = 0;
      // Each 30 s window decoded on its own (no prompt carried over), texts joined with a space.
      for (const [a, b] of chunkRanges(audio.length, WHISPER_SAMPLES, 0)) {
        const r = await decodeChunk(audio.subarray(a, b));
        texts.push(whisperDetokenize(r.ids, o.idToToken, special));
        probSum += r.probSum;
        tokens += r.ids.length;
      }
      // Confidence: mean max-prob of the generated tokens (eos not counted; special tokens the model chose are).
      return { text: tidy(texts.join(' ')), confidence: tokens > 0 ? probSum / tokens : null, tokens };
    },
    async release() {
      await enc.session.release();
      await dec.session.release();
    },
  };
}
