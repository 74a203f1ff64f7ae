/**
 * Greedy decoding for Whisper encoder-decoder exports (optimum's layout): encoder_model.onnx
 * plus either decoder_model_merged.onnx (one graph, an If on use_cache_branch), or
 * decoder_model.onnx with decoder_with_past_model.onnx, or decoder_model.onnx alone.
 *
 * With a key/value cache the decoder runs once on the forced prefix and then once per new
 * token on that token alone, reusing every earlier position's keys and values (and the
 * encoder output's, computed once): linear in the length. Without one (decoder_model.onnx
 * alone) the whole sequence is re-run every step: quadratic, the same tokens.
 *
 * The prefix is <|startoftranscript|>, the language (<|de|> …, from the plan, or detected:
 * the language token the decoder ranks highest after <|startoftranscript|>, as
 * transformers' detect_language), the task (<|transcribe|> or <|translate|>) and
 * <|notimestamps|>, each where the vocabulary has it. Suppression follows transformers'
 * SuppressTokens and SuppressTokensAtBegin logits processors.
 *
 * Long recordings: windows of at most 30 s, each ending at the quietest 100 ms within the
 * last 5 s before the 30 s limit (so a cut falls in a pause where there is one), decoded
 * one by one with the same prefix (no text carried over), texts joined with one space.
 */
import * as ort from '../ort';
import { SAMPLE_RATE, WHISPER_FRAMES, WHISPER_SAMPLES, whisperLogMel } from '../frontends';
import type { AsrSpec } from '../manifest';
import { createSession, type SessionOptions } from '../providers';
import { decodeByteLevel } from './bytelevel';
import { argmaxProb, RECOGNIZER_SESSION_DEFAULTS, tidy, type Recognizer, type Transcript } from './types';

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
  config?: { decoder_start_token_id?: number; eos_token_id?: number; decoder_attention_heads?: number; d_model?: number } | null;
  generationConfig?: {
    decoder_start_token_id?: number;
    eos_token_id?: number | number[];
    suppress_tokens?: number[];
    begin_suppress_tokens?: number[];
    lang_to_id?: Record<string, number>;
    task_to_id?: Record<string, number>;
    no_timestamps_token_id?: number;
    max_new_tokens?: number;
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

/** Whisper's language tokens look like <|de|>, <|haw|>, <|yue|>. */
const LANGUAGE_TOKEN = /^<\|([a-z]{2,3})\|>$/;

/**
 * The decoding settings from the tokenizer and generation files: start and end tokens,
 * the language and task tokens the vocabulary has, suppressed ids and the ids skipped when
 * detokenising (added tokens and any <|…|> token). `prefix` is the default (English
 * transcription without timestamps) that manifests written before language support used.
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
  const languages: Record<string, number> = {};
  for (const [t, id] of Object.entries(g.lang_to_id ?? {})) {
    const m = LANGUAGE_TOKEN.exec(t);
    if (m) languages[m[1]!] = id;
  }
  for (const [id, t] of idToToken) {
    const m = LANGUAGE_TOKEN.exec(t);
    if (m && !(m[1]! in languages)) languages[m[1]!] = id;
  }
  const transcribe = tokenId.get('<|transcribe|>') ?? g.task_to_id?.transcribe;
  const translate = tokenId.get('<|translate|>') ?? g.task_to_id?.translate;
  const noTs = tokenId.get('<|notimestamps|>') ?? g.no_timestamps_token_id;
  const special = new Set<number>();
  for (const id of Object.values(f.addedTokens ?? {})) special.add(id);
  for (const a of f.tokenizerAdded ?? []) if (a.special !== false) special.add(a.id);
  for (const [id, t] of idToToken) if (/^<\|.*\|>$/.test(t)) special.add(id);
  special.add(eos);
  const tasks: { transcribe?: number; translate?: number } = {};
  if (transcribe !== undefined) tasks.transcribe = transcribe;
  if (translate !== undefined) tasks.translate = translate;
  const spec: WhisperSpec = {
    kind: 'whisper',
    prefix: [],
    startId: start,
    languages,
    tasks,
    noTimestampsId: noTs ?? null,
    eosId: eos,
    // generation_config's max_new_tokens where it sets one (transformers' generate does the same).
    maxNewTokens: g.max_new_tokens ?? WHISPER_MAX_NEW_TOKENS,
    suppressTokens: g.suppress_tokens ?? [],
    beginSuppressTokens: g.begin_suppress_tokens ?? [],
    specialIds: [...special].sort((a, b) => a - b),
  };
  spec.prefix = whisperPrefix(spec, { language: 'en', task: 'transcribe' });
  return spec;
}

export interface WhisperDecodeOptions {
  /** A language code the model knows (de, en, …), or 'auto' to detect it per recording. Default: English where the model has it. */
  language?: string;
  task?: 'transcribe' | 'translate';
}

/** The forced prefix for a language (null: none, e.g. an English-only model) and task. */
export function whisperPrefix(spec: WhisperSpec, o: { language: string | null; task: 'transcribe' | 'translate' }): number[] {
  const prefix = [spec.startId ?? spec.prefix[0]!];
  const languages = spec.languages ?? {};
  if (o.language !== null && Object.keys(languages).length > 0) {
    const id = languages[o.language];
    if (id === undefined) throw new Error(`the model has no language token for "${o.language}"; it knows ${Object.keys(languages).sort().join(', ')}`);
    prefix.push(id);
  }
  const task = spec.tasks?.[o.task];
  if (Object.keys(languages).length > 0) {
    if (task === undefined && o.task === 'translate') throw new Error('the model has no <|translate|> token');
    if (task !== undefined) prefix.push(task);
  }
  if (spec.noTimestampsId !== null && spec.noTimestampsId !== undefined) prefix.push(spec.noTimestampsId);
  return prefix;
}

/** Generated ids → text: special ids skipped, byte-level tokens back to UTF-8. */
export function whisperDetokenize(ids: readonly number[], idToToken: ReadonlyMap<number, string>, specialIds: ReadonlySet<number>): string {
  return decodeByteLevel(ids.filter((id) => !specialIds.has(id)).map((id) => idToToken.get(id) ?? ''));
}

/** Where the recording is cut into windows (see the module comment). */
export const WINDOW_SEARCH = 5 * SAMPLE_RATE;
const QUIET_FRAME = SAMPLE_RATE / 10;

/** Windows of at most 30 s, each ending at the quietest 100 ms in its last 5 s. */
export function whisperWindows(audio: Float32Array): [number, number][] {
  const out: [number, number][] = [];
  let start = 0;
  while (audio.length - start > WHISPER_SAMPLES) {
    let best = start + WHISPER_SAMPLES;
    let bestEnergy = Infinity;
    for (let f = start + WHISPER_SAMPLES - WINDOW_SEARCH; f + QUIET_FRAME <= start + WHISPER_SAMPLES; f += QUIET_FRAME) {
      let e = 0;
      for (let i = f; i < f + QUIET_FRAME; i += 1) e += audio[i]! * audio[i]!;
      // Ties go to the later frame (a longer window).
      if (e <= bestEnergy) {
        bestEnergy = e;
        best = f + QUIET_FRAME / 2;
      }
    }
    out.push([start, best]);
    start = best;
  }
  out.push([start, audio.length]);
  return out;
}

export interface WhisperGraphs {
  encoder: Uint8Array | string;
  /** decoder_model.onnx (no past), when the export has one. */
  decoder?: Uint8Array | string;
  /** decoder_with_past_model.onnx. */
  decoderWithPast?: Uint8Array | string;
  /** decoder_model_merged.onnx. */
  decoderMerged?: Uint8Array | string;
}

export interface WhisperOptions extends WhisperDecodeOptions {
  spec: WhisperSpec;
  idToToken: ReadonlyMap<number, string>;
  nMels: 80 | 128;
  session?: SessionOptions;
  /** Decode without the key/value cache even where the export has one (for comparison). */
  noCache?: boolean;
  /** Decoder heads and head size, for the empty past a merged decoder takes on its first step when its graph leaves them open. */
  heads?: number;
  headDim?: number;
}

function pick(names: readonly string[], wanted: string, what: string): string {
  if (names.includes(wanted)) return wanted;
  throw new Error(`the Whisper ${what} has no "${wanted}" (it has ${names.join(', ')})`);
}

type Feeds = Record<string, ort.Tensor>;

/** A decoder step: ids in, logits of the last position and the new cache out. */
interface Step {
  run(ids: number[], cache: Feeds | null): Promise<{ logits: Float32Array; cache: Feeds | null }>;
  release(): Promise<void>;
}

const ids64 = (ids: number[]) => new ort.Tensor('int64', BigInt64Array.from(ids.map((i) => BigInt(i))), [1, ids.length]);

function lastRow(t: ort.Tensor): Float32Array {
  const V = t.dims[t.dims.length - 1]!;
  const data = t.data as Float32Array;
  return data.slice(data.length - V);
}

/** present.N.decoder.key → past_key_values.N.decoder.key */
const pastName = (present: string) => present.replace(/^present/, 'past_key_values');

export async function createWhisperRecognizer(graphs: WhisperGraphs, o: WhisperOptions): Promise<Recognizer & { readonly cached: boolean }> {
  const sessionOptions = o.session ?? RECOGNIZER_SESSION_DEFAULTS;
  const enc = await createSession(graphs.encoder, sessionOptions);
  const sessions: ort.InferenceSession[] = [enc.session];
  const releaseAll = async () => {
    for (const s of sessions) await s.release();
  };
  let step: Step;
  let firstStep: Step;
  let cached = false;
  try {
    const open = async (g: Uint8Array | string) => {
      const s = (await createSession(g, sessionOptions)).session;
      sessions.push(s);
      return s;
    };
    const first = graphs.decoderMerged && !(o.noCache && graphs.decoder) ? await open(graphs.decoderMerged) : graphs.decoder ? await open(graphs.decoder) : null;
    if (!first) throw new Error('the Whisper export has no decoder (decoder_model.onnx or decoder_model_merged.onnx)');
    const merged = graphs.decoderMerged !== undefined && !(o.noCache && graphs.decoder);
    const idsIn = pick(first.inputNames, 'input_ids', 'decoder');
    const hiddenIn = pick(first.inputNames, 'encoder_hidden_states', 'decoder');
    const logitsOut = first.outputNames.includes('logits') ? 'logits' : first.outputNames[0]!;
    const pastInputs = first.inputNames.filter((n) => n.startsWith('past_key_values.'));
    const extra = first.inputNames.filter((n) => n !== idsIn && n !== hiddenIn && !pastInputs.includes(n) && n !== 'use_cache_branch');
    if (extra.length) throw new Error(`the Whisper decoder also needs ${extra.join(', ')}, which Equivox does not provide`);
    const presents = first.outputNames.filter((n) => n.startsWith('present.'));
    const withPast = !o.noCache ? (merged ? first : graphs.decoderWithPast ? await open(graphs.decoderWithPast) : null) : null;
    // The current window's encoder output, read by the decoder steps.
    const enc_ = { hidden: null as ort.Tensor | null };
    const setHidden = (h: ort.Tensor) => (enc_.hidden = h);
    const dropHidden = () => {
      enc_.hidden?.dispose?.();
      enc_.hidden = null;
    };
    // The empty past a merged decoder is fed on its no-cache branch (the branch ignores it).
    const emptyPast = (name: string): ort.Tensor => {
      const meta = (first.inputMetadata as readonly { name: string; isTensor: boolean; shape?: readonly (number | string)[] }[]).find((m) => m.name === name);
      const shape = meta?.shape ?? [];
      const heads = typeof shape[1] === 'number' ? shape[1] : o.heads;
      const headDim = typeof shape[3] === 'number' ? shape[3] : o.headDim;
      if (heads === undefined || headDim === undefined) throw new Error(`the merged decoder leaves the shape of ${name} open and config.json does not give the decoder's heads and d_model`);
      return new ort.Tensor('float32', new Float32Array(0), [1, heads, 0, headDim]);
    };
    firstStep = {
      async run(ids) {
        const feeds: Feeds = { [idsIn]: ids64(ids), [hiddenIn]: enc_.hidden! };
        if (merged) {
          feeds.use_cache_branch = new ort.Tensor('bool', Uint8Array.from([0]), [1]);
          for (const p of pastInputs) feeds[p] = emptyPast(p);
        }
        const wantCache = withPast !== null;
        const r = await first.run(feeds, wantCache ? [logitsOut, ...presents] : [logitsOut]);
        const logits = lastRow(r[logitsOut]!);
        r[logitsOut]!.dispose?.();
        if (!wantCache) return { logits, cache: null };
        const cache: Feeds = {};
        for (const p of presents) cache[pastName(p)] = r[p]!;
        return { logits, cache };
      },
      async release() {},
    };
    if (withPast) {
      cached = true;
      const wIds = pick(withPast.inputNames, 'input_ids', 'decoder with past');
      const wLogits = withPast.outputNames.includes('logits') ? 'logits' : withPast.outputNames[0]!;
      const wPast = withPast.inputNames.filter((n) => n.startsWith('past_key_values.'));
      const wPresents = withPast.outputNames.filter((n) => n.startsWith('present.'));
      const missing = wPast.filter((p) => !presents.map(pastName).includes(p));
      if (missing.length) throw new Error(`the decoder without past gives no ${missing.join(', ')} for the decoder with past`);
      const takesHidden = withPast.inputNames.includes(hiddenIn);
      step = {
        async run(ids, cache) {
          const feeds: Feeds = { [wIds]: ids64(ids) };
          for (const p of wPast) feeds[p] = cache![p]!;
          if (merged) feeds.use_cache_branch = new ort.Tensor('bool', Uint8Array.from([1]), [1]);
          if (takesHidden) feeds[hiddenIn] = enc_.hidden!;
          const r = await withPast.run(feeds, [wLogits, ...wPresents]);
          const logits = lastRow(r[wLogits]!);
          r[wLogits]!.dispose?.();
          const next: Feeds = { ...cache };
          for (const p of wPresents) {
            // A merged decoder's cache branch returns the encoder's keys and values empty: keep the first step's.
            if (r[p]!.dims[0] === 0) continue;
            next[pastName(p)] = r[p]!;
          }
          return { logits, cache: next };
        },
        async release() {},
      };
    } else {
      step = {
        // No cache: the whole sequence again (run() receives it all).
        async run(ids) {
          return firstStep.run(ids, null);
        },
        async release() {},
      };
    }
    const encIn = enc.session.inputNames[0]!;
    const encOut = enc.session.outputNames.includes('last_hidden_state') ? 'last_hidden_state' : enc.session.outputNames[0]!;
    const suppress = new Set(o.spec.suppressTokens);
    const firstSuppress = new Set([...o.spec.suppressTokens, ...o.spec.beginSuppressTokens]);
    const special = new Set(o.spec.specialIds);
    const task = o.task ?? 'transcribe';
    const languages = o.spec.languages ?? {};
    const multilingual = Object.keys(languages).length > 0;
    const requested = o.language ?? (multilingual ? ('en' in languages ? 'en' : null) : null);
    if (requested !== null && requested !== 'auto' && multilingual && !(requested in languages)) {
      throw new Error(`the model has no language token for "${requested}"; it knows ${Object.keys(languages).sort().join(', ')}`);
    }
    const languageIds = new Map(Object.entries(languages).map(([code, id]) => [id, code]));

    /** transformers' detect_language: the language token ranked highest after <|startoftranscript|>. */
    async function detect(): Promise<string> {
      const { logits } = await firstStep.run([o.spec.startId ?? o.spec.prefix[0]!], null);
      let best = -Infinity;
      let code = '';
      for (const [id, c] of languageIds) {
        if (logits[id]! > best) {
          best = logits[id]!;
          code = c;
        }
      }
      return code;
    }

    async function decodeWindow(audio: Float32Array, prefix: number[]): Promise<{ ids: number[]; probSum: number }> {
      const feats = whisperLogMel(audio, o.nMels);
      const er = await enc.session.run({ [encIn]: new ort.Tensor('float32', feats, [1, o.nMels, WHISPER_FRAMES]) }, [encOut]);
      setHidden(er[encOut]!);
      const generated: number[] = [];
      let probSum = 0;
      const maxNew = Math.min(o.spec.maxNewTokens, WHISPER_MAX_POSITIONS - prefix.length);
      try {
        let r = await firstStep.run(prefix, null);
        for (let i = 0; i < maxNew; i += 1) {
          // The last position's logits predict the next token; the probability is over what suppression leaves.
          const { id, prob } = argmaxProb(r.logits, i === 0 ? firstSuppress : suppress);
          if (id === o.spec.eosId) break;
          generated.push(id);
          probSum += prob;
          if (i + 1 === maxNew) break;
          r = cached ? await step.run([id], r.cache) : await step.run([...prefix, ...generated], null);
        }
      } finally {
        dropHidden();
      }
      return { ids: generated, probSum };
    }

    return {
      info: enc.info,
      cached,
      async transcribe(audio: Float32Array): Promise<Transcript> {
        const texts: string[] = [];
        const ids: number[][] = [];
        let probSum = 0;
        let tokens = 0;
        let language: string | null = requested === 'auto' ? null : requested;
        let prefix: number[] | null = requested === 'auto' ? null : whisperPrefix(o.spec, { language: requested, task });
        for (const [a, b] of whisperWindows(audio)) {
          const window = audio.subarray(a, b);
          if (prefix === null) {
            // Detected on the first window, then used for the whole recording.
            const feats = whisperLogMel(window, o.nMels);
            const er = await enc.session.run({ [encIn]: new ort.Tensor('float32', feats, [1, o.nMels, WHISPER_FRAMES]) }, [encOut]);
            setHidden(er[encOut]!);
            try {
              language = await detect();
            } finally {
              dropHidden();
            }
            prefix = whisperPrefix(o.spec, { language, task });
          }
          const r = await decodeWindow(window, prefix);
          texts.push(whisperDetokenize(r.ids, o.idToToken, special));
          ids.push(r.ids);
          probSum += r.probSum;
          tokens += r.ids.length;
        }
        // Confidence: mean max-prob of the generated tokens (eos not counted; special tokens the model chose are).
        return { text: tidy(texts.join(' ')), confidence: tokens > 0 ? probSum / tokens : null, tokens, ids, ...(multilingual ? { language } : {}) };
      },
      async release() {
        await releaseAll();
      },
    };
  } catch (err) {
    await releaseAll();
    throw err;
  }
}
