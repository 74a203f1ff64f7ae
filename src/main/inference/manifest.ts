/**
 * The model manifest: everything Equivox knows about a model, stored beside it in the
 * model store (dataDir/models/<sha256>/manifest.json) and copied into each project's
 * `models` table when the project uses the model.
 */

export type Family = 'wav2vec2' | 'hubert' | 'wavlm' | 'data2vec-audio' | 'whisper' | 'speech-embedding' | 'acoustic-baseline' | 'wav2vec2-ctc' | 'whisper-asr' | 'unknown';

export type FrontEnd =
  | { kind: 'raw-waveform'; sampleRate: 16000; doNormalize: boolean }
  | { kind: 'whisper-logmel'; sampleRate: 16000; nMels: 80 | 128 }
  | { kind: 'speech-embedding-mel'; sampleRate: 16000 };

export interface StateSpec {
  /** Hidden-state index (0 = transformer input). */
  index: number;
  label: string;
  /** Graph output holding it. */
  output: string;
  width: number;
}

/**
 * How layers combine under 'sum' / 'min' / 'max'. Layers of differing widths are never
 * summed: only layers of the final layer's width take part ('final-width'); a single
 * layer (first, last, Q1 …) may be any width.
 */
export interface LayerAggregation {
  rule: 'all-layers' | 'final-width';
  /** State indices that take part in sum/min/max. */
  layers: number[];
  note: string;
}

export interface ModelFile {
  // 'decoder', 'decoder-with-past', 'decoder-merged' and 'vocab': a Whisper ASR export's
  // decoder_model.onnx, decoder_with_past_model.onnx, decoder_model_merged.onnx, and an ASR model's vocab.json.
  role: 'model' | 'melspectrogram' | 'embedding' | 'decoder' | 'decoder-with-past' | 'decoder-merged' | 'vocab' | 'external-data';
  path: string;
  sha256: string;
  bytes: number;
}

export interface ModelManifest {
  manifestVersion: 1;
  /** SHA-256 of the model file as imported (for two-file models, of their hashes). */
  id: string;
  sha256: string;
  alias: string | null;
  name: string;
  family: Family;
  frontEnd: FrontEnd;
  builtin: boolean;
  files: ModelFile[];
  inputName: string;
  /** Transformer blocks N, when the model has them. */
  blocks: number | null;
  states: StateSpec[];
  /** Per-state widths (= states[i].width). */
  dims: number[];
  /** What state i means, in words (recorded for the report). */
  stateDefinition: string;
  layerAggregation: LayerAggregation;
  exposure: {
    status: 'exposed' | 'last-layer-only' | 'native';
    message: string;
    /** Largest |difference| found by the import check (models.ts, prepareTransformer); null when none ran. */
    maxAbsDiff: number | null;
    derivedSha256: string | null;
    /**
     * Whether the exposed states were checked against an independent computation. False:
     * "not verified" (the message says why). Absent in manifests written before the check
     * compared two different computations.
     */
    verified?: boolean;
  };
  /** Front-end settings that change the numbers; part of the embedding cache key. */
  settingsKey: string;
  licence: string | null;
  source: string | null;
  addedAt: string;
  /**
   * What the model is for. Absent (manifests written before ASR support) = 'embedding'.
   * ASR models ('asr') have no hidden states (states/dims empty) and are never embedded.
   */
  task?: 'embedding' | 'asr';
  /** Decoding settings of an ASR model (src/main/inference/asr), fixed at import. */
  asr?: AsrSpec;
}

/** Decoding settings of an ASR model; the vocabulary itself stays in the store as vocab.json. */
export type AsrSpec =
  | {
      kind: 'ctc';
      /** Graph output holding logits [1, T, V]. */
      logitsOutput: string;
      /** CTC blank (Wav2Vec2CTCTokenizer's pad token, "<pad>"). */
      blankId: number;
      /** Token printed as a space ("|"). */
      wordDelimiter: string;
      /** Tokens never printed (<s>, </s>, <unk>, <pad>). */
      specialTokens: string[];
    }
  | {
      kind: 'whisper';
      /** The default forced prefix (English transcription without timestamps); the prefix used is built per plan (asr/whisper.ts, whisperPrefix). */
      prefix: number[];
      /** decoder_start_token_id (<|startoftranscript|>). Absent in manifests written before language support: prefix[0]. */
      startId?: number;
      /** Language code → token id (<|de|> …); empty for English-only models. */
      languages?: Record<string, number>;
      tasks?: { transcribe?: number; translate?: number };
      noTimestampsId?: number | null;
      /** Which decoder graphs the store holds: 'merged' and 'with-past' decode with a key/value cache. */
      decoder?: 'plain' | 'with-past' | 'merged';
      eosId: number;
      /** Generated tokens at most (the prefix not counted). */
      maxNewTokens: number;
      /** Ids never emitted (generation_config suppress_tokens) and not emitted first (begin_suppress_tokens). */
      suppressTokens: number[];
      beginSuppressTokens: number[];
      /** Ids skipped when detokenising (added/special tokens such as <|...|>). */
      specialIds: number[];
    };

/** Bumped when the way Equivox computes embeddings changes for every model. */
export const EMBEDDING_VERSION = 'v1';

/**
 * settings_key convention: `v1|<front end>|<state convention>|chunk=30s`, e.g.
 * `v1|raw16k-norm|hf-states|chunk=30s`, `v1|whisper-logmel80-trim320|hf-states|chunk=30s`,
 * `v1|oww-mel32-win76s8|spatial-mean|whole-clip`. Same model bytes + same key ⇒ same numbers.
 */
export function settingsKeyFor(frontEnd: FrontEnd, states: 'hf-states' | 'last-only' | 'spatial-mean' | 'baseline'): string {
  let fe: string;
  if (frontEnd.kind === 'raw-waveform') fe = frontEnd.doNormalize ? 'raw16k-norm' : 'raw16k';
  else if (frontEnd.kind === 'whisper-logmel') fe = `whisper-logmel${frontEnd.nMels}-trim320`;
  else fe = 'oww-mel32-win76s8';
  const chunk = frontEnd.kind === 'speech-embedding-mel' ? 'whole-clip' : 'chunk=30s';
  return `${EMBEDDING_VERSION}|${fe}|${states}|${chunk}`;
}

/** The aggregation rule for a list of widths. */
export function layerAggregationFor(dims: number[]): LayerAggregation {
  const last = dims[dims.length - 1]!;
  const layers = dims.map((d, i) => (d === last ? i : -1)).filter((i) => i >= 0);
  if (layers.length === dims.length) return { rule: 'all-layers', layers, note: 'All layers have the same width; sum/min/max run over every state.' };
  return {
    rule: 'final-width',
    layers,
    note: `Layers differ in width (${[...new Set(dims)].join(', ')}); sum/min/max run only over the ${layers.length} state(s) of the final width ${last} (states ${layers.join(', ')}). Single-layer choices may use any state.`,
  };
}
