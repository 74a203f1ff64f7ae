/**
 * ASR models in the model store: detection of HF-style ASR folders, import into
 * dataDir/models/<id>/ (the same layout as embedding models, so ensureModel and
 * "models list" see them) and loading a recogniser from a stored manifest.
 *
 * Layout of a stored ASR model: model.onnx (the CTC model, or the Whisper encoder),
 * decoder_model.onnx (Whisper only), vocab.json and whichever of the tokenizer/config
 * JSON files the folder had.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { UserError } from '../../../shared/errors';
import { goldenTestSignal } from '../frontends';
import type { AsrSpec, FrontEnd, ModelFile, ModelManifest } from '../manifest';
import { decodeModel } from '../onnx-graph';
import type { SessionOptions } from '../providers';
import { createCtcRecognizer, CTC_DEFAULTS, ctcVocabFromJson } from './ctc';
import type { Recognizer } from './types';
import { createWhisperRecognizer, whisperIdToToken, whisperSpec, type WhisperDecodeOptions, type WhisperGraphs, type WhisperTokenFiles } from './whisper';
import { readInputFile, readOptionalInputFileSync } from '../../security/input-file';
import { importBudget } from '../budget';
import { checkExternalDataOf, copyExternalData, type ExternalFile } from '../external-data';
import { locatedIn } from '../stored-manifest';
import type { ImportWork } from '../models';

/** Bumped when decoding changes the hypotheses for every ASR model. */
export const ASR_VERSION = 'asr-v1';

/** Tokenizer and config files copied beside the model (the ones decoding reads, and the rest for the record). */
const SIDE_FILES = ['config.json', 'preprocessor_config.json', 'generation_config.json', 'vocab.json', 'added_tokens.json', 'tokenizer_config.json', 'special_tokens_map.json', 'tokenizer.json'];

export type AsrFolder =
  | { kind: 'ctc'; folder: string; model: string }
  /** Whisper: the encoder and whichever decoder graphs the export has (merged preferred; see detectAsrFolder). */
  | { kind: 'whisper'; folder: string; encoder: string; decoder?: string; decoderWithPast?: string; decoderMerged?: string };

/** An optional JSON file of the model folder; a FIFO, device or folder in its place is refused (security/input-file.ts). */
function readJson<T>(file: string): T | null {
  const bytes = readOptionalInputFileSync(file, 'model-file', 'folder');
  if (bytes === null) return null;
  try {
    return JSON.parse(bytes.toString('utf8')) as T;
  } catch {
    throw new UserError(`${file} is not valid JSON`, 'folder');
  }
}

function sha256(b: Uint8Array | string): string {
  return createHash('sha256').update(b).digest('hex');
}

function firstExisting(paths: string[]): string | null {
  return paths.find((p) => existsSync(p)) ?? null;
}

/**
 * An ASR export in an HF-style folder, or null for anything else (left to the embedding
 * import). CTC: config.json architectures has *ForCTC, a vocab.json and onnx/model.onnx.
 * Whisper: onnx/encoder_model.onnx with onnx/decoder_model_merged.onnx, or
 * decoder_model.onnx (with decoder_with_past_model.onnx for the cache), and a vocab.json. A vocab.json
 * is required for both, so a folder downloaded for embeddings (config + model only) stays
 * an embedding model.
 */
export function detectAsrFolder(folderIn: string): AsrFolder | null {
  const folder = resolve(folderIn);
  if (!existsSync(join(folder, 'vocab.json'))) return null;
  const onnxDirs = [join(folder, 'onnx'), folder];
  const enc = firstExisting(onnxDirs.map((d) => join(d, 'encoder_model.onnx')));
  const dec = firstExisting(onnxDirs.map((d) => join(d, 'decoder_model.onnx')));
  const past = firstExisting(onnxDirs.map((d) => join(d, 'decoder_with_past_model.onnx')));
  const merged = firstExisting(onnxDirs.map((d) => join(d, 'decoder_model_merged.onnx')));
  // A merged decoder holds both the first step and the cached steps in one graph; else the
  // pair decoder + decoder-with-past; else decoder_model.onnx alone (no cache).
  if (enc && merged) return { kind: 'whisper', folder, encoder: enc, decoderMerged: merged };
  if (enc && dec && past) return { kind: 'whisper', folder, encoder: enc, decoder: dec, decoderWithPast: past };
  if (enc && dec) return { kind: 'whisper', folder, encoder: enc, decoder: dec };
  const config = readJson<{ architectures?: string[] }>(join(folder, 'config.json'));
  if (!(config?.architectures ?? []).some((a) => /ForCTC$/.test(a))) return null;
  const model = firstExisting(onnxDirs.map((d) => join(d, 'model.onnx')));
  if (model) return { kind: 'ctc', folder, model };
  for (const d of onnxDirs) {
    if (!existsSync(d)) continue;
    const any = readdirSync(d).filter((f) => f.endsWith('.onnx') && !/quantized|int8|uint8|q4|fp16|bnb4/.test(f)).sort();
    if (any.length) return { kind: 'ctc', folder, model: join(d, any[0]!) };
  }
  throw new UserError(`${folder} looks like a CTC model (config.json names a *ForCTC architecture) but holds no .onnx file`, 'folder');
}

function graphIo(bytes: Uint8Array, file: string): { input: string; inputDims: (number | string)[]; outputs: string[] } {
  try {
    const g = decodeModel(bytes).graph;
    if (!g) throw new Error('it holds no graph');
    const inits = new Set((g.initializer ?? []).map((t) => t.name));
    const inp = (g.input ?? []).find((i) => !inits.has(i.name));
    if (!inp?.name) throw new Error('its graph declares no input');
    return {
      input: inp.name,
      inputDims: (inp.type?.tensorType?.shape?.dim ?? []).map((d) => (d.dimParam ? d.dimParam : Number(d.dimValue ?? 0))),
      outputs: (g.output ?? []).map((o) => o.name ?? ''),
    };
  } catch (err) {
    throw new UserError(`${file} is not a readable ONNX model: ${err instanceof Error ? err.message : String(err)}`, 'folder');
  }
}

/** A token named in tokenizer_config.json: a plain string or an AddedToken object. */
function tokenName(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (v && typeof v === 'object' && typeof (v as { content?: unknown }).content === 'string') return (v as { content: string }).content;
  return undefined;
}

interface TokenizerConfig {
  pad_token?: unknown;
  word_delimiter_token?: unknown;
  unk_token?: unknown;
  bos_token?: unknown;
  eos_token?: unknown;
}

function ctcSpec(folder: string, vocab: Record<string, number>, logitsOutput: string): Extract<AsrSpec, { kind: 'ctc' }> {
  const tc = readJson<TokenizerConfig>(join(folder, 'tokenizer_config.json')) ?? {};
  const blank = tokenName(tc.pad_token) ?? CTC_DEFAULTS.blank;
  const wordDelimiter = tokenName(tc.word_delimiter_token) ?? CTC_DEFAULTS.wordDelimiter;
  const special = [...new Set([...CTC_DEFAULTS.special, ...[tc.unk_token, tc.bos_token, tc.eos_token, tc.pad_token].map(tokenName).filter((t): t is string => t !== undefined)])];
  const blankId = vocab[blank];
  if (blankId === undefined) throw new UserError(`${join(folder, 'vocab.json')} has no blank token "${blank}" (Wav2Vec2CTCTokenizer's pad token)`, 'folder');
  return { kind: 'ctc', logitsOutput, blankId, wordDelimiter, specialTokens: special.filter((t) => t in vocab) };
}

function whisperFiles(dir: string): WhisperTokenFiles {
  const vocab = readJson<Record<string, number>>(join(dir, 'vocab.json'));
  if (!vocab) throw new UserError(`${dir} has no vocab.json`, 'folder');
  return {
    vocab,
    addedTokens: readJson<Record<string, number>>(join(dir, 'added_tokens.json')),
    tokenizerAdded: readJson<{ added_tokens?: { id: number; content: string; special?: boolean }[] }>(join(dir, 'tokenizer.json'))?.added_tokens ?? null,
    config: readJson<WhisperTokenFiles['config']>(join(dir, 'config.json')),
    generationConfig: readJson<WhisperTokenFiles['generationConfig']>(join(dir, 'generation_config.json')),
  };
}

/**
 * What a stored recogniser can be asked, for the app's choices: a Whisper model's language
 * codes (empty: English only) and whether it can translate. Manifests written before
 * language support are read from their stored tokenizer files, as createRecognizer does.
 */
export function asrCapabilities(manifest: ModelManifest): { kind: 'ctc' | 'whisper'; languages: string[]; translate: boolean } | null {
  if (manifest.task !== 'asr' || !manifest.asr) return null;
  if (manifest.asr.kind === 'ctc') return { kind: 'ctc', languages: [], translate: false };
  let { languages, tasks } = manifest.asr;
  if (!languages || !tasks) {
    const model = manifest.files.find((f) => f.role === 'model');
    try {
      const fresh = model ? whisperSpec(whisperFiles(dirname(model.path))) : null;
      languages ??= fresh?.languages;
      tasks ??= fresh?.tasks;
    } catch {
      // Unreadable tokenizer files: the recogniser itself will say so when it is used.
    }
  }
  const codes = Object.keys(languages ?? {}).sort();
  return { kind: 'whisper', languages: codes, translate: codes.length > 0 && tasks?.translate !== undefined };
}

/** A recogniser for a stored (or about-to-be-stored) ASR manifest; `decode` sets a Whisper model's language and task. */
export async function createRecognizer(manifest: ModelManifest, session?: SessionOptions, decode: WhisperDecodeOptions & { noCache?: boolean } = {}): Promise<Recognizer> {
  if (manifest.task !== 'asr' || !manifest.asr) throw new UserError(`${manifest.name} is not a speech recognition model (import a CTC or Whisper encoder-decoder export)`, 'model');
  const model = manifest.files.find((f) => f.role === 'model');
  if (!model) throw new UserError(`${manifest.name}: its manifest lists no model file`, 'model');
  const dir = dirname(model.path);
  const bytes = readFileSync(model.path);
  if (manifest.asr.kind === 'ctc') {
    const fe = manifest.frontEnd;
    const vocabJson = readJson<Record<string, number>>(join(dir, 'vocab.json'));
    if (!vocabJson) throw new UserError(`${dir} has no vocab.json`, 'model');
    const blank = Object.entries(vocabJson).find(([, id]) => id === (manifest.asr as { blankId: number }).blankId)?.[0];
    const vocab = ctcVocabFromJson(vocabJson, { ...(blank ? { blank } : {}), wordDelimiter: manifest.asr.wordDelimiter, special: manifest.asr.specialTokens });
    return createCtcRecognizer(bytes, {
      inputName: manifest.inputName,
      logitsOutput: manifest.asr.logitsOutput,
      vocab,
      doNormalize: fe.kind === 'raw-waveform' && fe.doNormalize,
      ...(session ? { session } : {}),
    });
  }
  const file = (role: ModelFile['role']) => manifest.files.find((f) => f.role === role)?.path;
  const graphs: WhisperGraphs = { encoder: model.path };
  for (const [role, key] of [['decoder', 'decoder'], ['decoder-with-past', 'decoderWithPast'], ['decoder-merged', 'decoderMerged']] as const) {
    const f = file(role);
    if (f) graphs[key] = f;
  }
  if (!graphs.decoder && !graphs.decoderMerged) throw new UserError(`${manifest.name}: its manifest lists no decoder file`, 'model');
  const nMels = manifest.frontEnd.kind === 'whisper-logmel' ? manifest.frontEnd.nMels : 80;
  const files = whisperFiles(dir);
  // Manifests written before language support lack the language and task tokens: read them
  // from the stored tokenizer files (the ids that end decoding and are suppressed stay as stored).
  const fresh = whisperSpec(files);
  const spec = { ...manifest.asr, startId: manifest.asr.startId ?? fresh.startId, languages: manifest.asr.languages ?? fresh.languages, tasks: manifest.asr.tasks ?? fresh.tasks, noTimestampsId: manifest.asr.noTimestampsId ?? fresh.noTimestampsId };
  const heads = files.config?.decoder_attention_heads;
  const dModel = files.config?.d_model;
  try {
    return await createWhisperRecognizer(graphs, {
      spec,
      idToToken: whisperIdToToken(files),
      nMels,
      ...(session ? { session } : {}),
      ...(decode.language !== undefined ? { language: decode.language } : {}),
      ...(decode.task ? { task: decode.task } : {}),
      ...(decode.noCache ? { noCache: true } : {}),
      ...(heads && dModel ? { heads, headDim: dModel / heads } : {}),
    });
  } catch (err) {
    if (err instanceof Error && /has no language token|has no <\|translate\|>/.test(err.message)) throw new UserError(`${manifest.name}: ${err.message}`, 'language');
    throw err;
  }
}

export interface AsrImportOptions {
  name?: string;
  licence?: string;
  source?: string;
  /** Overrides from a user manifest. */
  doNormalize?: boolean;
  nMels?: 80 | 128;
}

/** Import a detected ASR folder into dataDir/models/<id>/. Idempotent. */
export async function importAsrFolder(dataDir: string, found: AsrFolder, o: AsrImportOptions = {}, work: ImportWork = {}): Promise<ModelManifest> {
  const folder = found.folder;
  const vocabPath = join(folder, 'vocab.json');
  const vocabBytes = await readInputFile(vocabPath, 'model-file', 'folder');
  const vocab = readJson<Record<string, number>>(vocabPath)!;
  const mainPath = found.kind === 'ctc' ? found.model : found.encoder;
  const mainBytes = await readInputFile(mainPath, 'model', 'folder');
  if (mainBytes.length === 0) throw new UserError(`${mainPath} is empty (0 bytes): not an ONNX model`, 'folder');
  // Whisper decoder graphs the store keeps, under their export names.
  const decoders: { role: ModelFile['role']; name: string; src: string; bytes: Buffer }[] = [];
  if (found.kind === 'whisper') {
    for (const [role, name, src] of [
      ['decoder', 'decoder_model.onnx', found.decoder],
      ['decoder-with-past', 'decoder_with_past_model.onnx', found.decoderWithPast],
      ['decoder-merged', 'decoder_model_merged.onnx', found.decoderMerged],
    ] as const) {
      if (src) decoders.push({ role, name, src, bytes: await readInputFile(src, 'model', 'folder') });
    }
  }
  const io = graphIo(mainBytes, mainPath);
  // Before onnxruntime sees any graph: the files they name for their values are regular
  // files inside their own folder (inference/external-data.ts), or the import stops here.
  const external = asrExternalData([{ path: mainPath, bytes: mainBytes }, ...decoders.map((d) => ({ path: d.src, bytes: d.bytes }))], [basename(mainPath), ...decoders.map((d) => d.name)]);
  const root = join(dataDir, 'models');
  // Copied (and hashed) before the id is known: the same graphs with other weights are another model.
  const staging = external.length > 0 ? join(root, `${sha256(mainBytes)}.staging-${process.pid}`) : null;
  let copied: Awaited<ReturnType<typeof copyExternalData>> = [];
  if (staging) {
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging, { recursive: true });
    try {
      work.progress?.('Copying its external data', 0, external.length, { label: `Copying the ${external.length} file(s) that hold the values of ${basename(folder)}` });
      copied = await copyExternalData(external, staging);
    } catch (err) {
      rmSync(staging, { recursive: true, force: true });
      throw err;
    }
  }
  // The id covers everything that changes the transcripts: the graph(s) and the vocabulary.
  // (A plain decoder keeps the id it had before cached decoders were supported; a model
  // without external data the id it had before they were.)
  const parts = [sha256(mainBytes), decoders.map((d) => sha256(d.bytes)).join('+'), sha256(vocabBytes), ...(copied.length > 0 ? [copied.map((f) => `${f.location}\t${f.sha256}`).sort().join('+')] : [])];
  const id = sha256(`${ASR_VERSION}\n${parts.join('\n')}\n`);
  const dir = join(root, id);
  const stored = readJson<ModelManifest>(join(dir, 'manifest.json'));
  const existing = stored ? locatedIn(stored, dir) : null;
  if (existing) {
    if (staging) rmSync(staging, { recursive: true, force: true });
    return existing;
  }
  try {
    const pre = readJson<{ sampling_rate?: number; do_normalize?: boolean; feature_size?: number }>(join(folder, 'preprocessor_config.json'));
    const config = readJson<{ num_mel_bins?: number }>(join(folder, 'config.json'));
    if (pre?.sampling_rate !== undefined && pre.sampling_rate !== 16000) throw new UserError(`the model expects ${pre.sampling_rate} Hz audio; Equivox feeds 16 kHz`, 'folder');
    let frontEnd: FrontEnd;
    let asr: AsrSpec;
    let family: ModelManifest['family'];
    let how: string;
    if (found.kind === 'ctc') {
      family = 'wav2vec2-ctc';
      // Wav2Vec2FeatureExtractor's default is do_normalize = true.
      frontEnd = { kind: 'raw-waveform', sampleRate: 16000, doNormalize: o.doNormalize ?? pre?.do_normalize ?? true };
      asr = ctcSpec(folder, vocab, io.outputs.includes('logits') ? 'logits' : io.outputs[0]!);
      how = 'greedy CTC (argmax per frame, repeats collapsed, blank dropped, "|" as a space)';
    } else {
      family = 'whisper-asr';
      const d1 = io.inputDims[1];
      const n = o.nMels ?? pre?.feature_size ?? config?.num_mel_bins ?? (typeof d1 === 'number' ? d1 : 80);
      if (n !== 80 && n !== 128) throw new UserError(`a Whisper encoder with ${n} mel bins is not supported (80 or 128)`, 'folder');
      frontEnd = { kind: 'whisper-logmel', sampleRate: 16000, nMels: n };
      try {
        const spec = whisperSpec(whisperFiles(folder));
        asr = { ...spec, decoder: found.decoderMerged ? 'merged' : found.decoderWithPast ? 'with-past' : 'plain' };
      } catch (err) {
        throw new UserError(`${folder}: ${err instanceof Error ? err.message : String(err)}`, 'folder');
      }
      const langs = Object.keys(asr.languages ?? {});
      const cache = asr.decoder === 'plain' ? 'no key/value cache (decoder_model.onnx only)' : `key/value cache (${asr.decoder === 'merged' ? 'merged decoder' : 'decoder with past'})`;
      how =
        `greedy decoding with ${cache}, at most ${asr.maxNewTokens} tokens per 30 s window; ` +
        (langs.length > 0 ? `${langs.length} languages (${langs.slice(0, 8).join(', ')}${langs.length > 8 ? ', …' : ''}), chosen per plan or detected, English by default` : 'English only');
    }
    const fe = frontEnd.kind === 'raw-waveform' ? (frontEnd.doNormalize ? 'raw16k-norm' : 'raw16k') : `whisper-logmel${(frontEnd as { nMels: number }).nMels}`;
    const files: ModelFile[] = [
      { role: 'model', path: join(dir, 'model.onnx'), sha256: parts[0]!, bytes: mainBytes.length },
      ...decoders.map((d) => ({ role: d.role, path: join(dir, d.name), sha256: sha256(d.bytes), bytes: d.bytes.length })),
      { role: 'vocab', path: join(dir, 'vocab.json'), sha256: parts[2]!, bytes: vocabBytes.length },
      ...copied.map((f) => ({ role: 'external-data' as const, path: join(dir, f.location), sha256: f.sha256, bytes: f.bytes })),
    ];
    const manifest: ModelManifest = {
      manifestVersion: 1,
      id,
      sha256: id,
      alias: null,
      name: o.name ?? basename(folder),
      family,
      frontEnd,
      builtin: false,
      files,
      inputName: io.input,
      blocks: null,
      states: [],
      dims: [],
      stateDefinition: `Speech recognition model (${how}); it gives transcripts, not hidden states, and is not used for embeddings.`,
      layerAggregation: { rule: 'all-layers', layers: [], note: 'Speech recognition model: no hidden states.' },
      exposure: { status: 'native', message: '', maxAbsDiff: null, derivedSha256: null },
      settingsKey: `${ASR_VERSION}|${fe}|${asr.kind}-greedy|${asr.kind === 'whisper' ? 'window=30s-quiet-cut' : 'chunk=30s'}`,
      licence: o.licence ?? null,
      source: o.source ?? folder,
      addedAt: new Date().toISOString(),
      task: 'asr',
      asr,
    };
    // Write into a temporary folder and rename, so a half-written model never appears.
    const tmp = `${dir}.partial-${process.pid}`;
    rmSync(tmp, { recursive: true, force: true });
    // The external data already copied (and checked) goes along: onnxruntime reads it from here only.
    if (staging) renameSync(staging, tmp);
    else mkdirSync(tmp, { recursive: true });
    // The bytes that were hashed, not a second read of the folder (which a FIFO could block).
    writeFileSync(join(tmp, 'model.onnx'), mainBytes);
    for (const d of decoders) writeFileSync(join(tmp, d.name), d.bytes);
    for (const f of SIDE_FILES) {
      const side = readOptionalInputFileSync(join(folder, f), 'model-file', 'folder');
      if (side !== null) writeFileSync(join(tmp, f), side);
    }
    // Verify before it enters the store: decode the 1 s test clip (a few tokens are enough
    // to show the graphs run and fit together).
    const probe: ModelManifest = {
      ...manifest,
      files: files.map((f) => ({ ...f, path: join(tmp, relative(dir, f.path)) })),
      ...(asr.kind === 'whisper' ? { asr: { ...asr, maxNewTokens: 2 } } : {}),
    };
    work.progress?.('Checking it decodes', 0, 1, { label: `Decoding a 1 s test clip with ${manifest.name}` });
    // The graphs run from here on: held to a budget (inference/budget.ts), past which the runner ends the worker.
    work.budget?.({ ...importBudget(files.reduce((a, f) => a + f.bytes, 0), `the model “${manifest.name}” (${folder})`), doing: 'decoding a 1 s test clip' });
    try {
      const rec = await createRecognizer(probe, { provider: 'cpu', threads: 2 });
      try {
        const t = await rec.transcribe(goldenTestSignal(16000));
        manifest.exposure.message = `Speech recognition model; decoded the 1 s test clip (${t.tokens} token(s)).`;
      } finally {
        await rec.release();
      }
    } catch (err) {
      rmSync(tmp, { recursive: true, force: true });
      if (err instanceof UserError) throw err;
      throw new UserError(`${folder} could not be run as a ${family} model: ${err instanceof Error ? err.message : String(err)}`, 'folder');
    } finally {
      work.budget?.(null);
    }
    writeFileSync(join(tmp, 'manifest.json'), JSON.stringify(manifest, null, 2));
    mkdirSync(root, { recursive: true });
    if (existsSync(dir)) {
      const stored = readJson<ModelManifest>(join(dir, 'manifest.json'));
      return stored ? locatedIn(stored, dir) : manifest;
    }
    renameSync(tmp, dir);
    return manifest;
  } finally {
    // Renamed into the store's temporary folder unless the import stopped before that.
    if (staging) rmSync(staging, { recursive: true, force: true });
  }
}

/**
 * The external data of an ASR export's graphs, checked (inference/external-data.ts). The
 * store keeps the graphs side by side, so two graphs may not name one location for two
 * different files, and no location may take one of the store's own file names.
 */
function asrExternalData(graphs: { path: string; bytes: Uint8Array }[], graphNames: string[]): ExternalFile[] {
  const byLocation = new Map<string, ExternalFile>();
  const taken = new Set([...graphNames, 'model.onnx', 'manifest.json', ...SIDE_FILES].map((n) => n.toLowerCase()));
  for (const g of graphs) {
    for (const f of checkExternalDataOf(g.bytes, g.path)) {
      if (taken.has(f.location.toLowerCase())) throw new UserError(`${g.path}: its external data is named "${f.location}", a name Equivox keeps for another file of the model`, 'folder');
      const seen = byLocation.get(f.location);
      if (seen && seen.path !== f.path) throw new UserError(`${g.path}: its external data "${f.location}" names another file than the same name in ${seen.path}'s graph`, 'folder');
      byLocation.set(f.location, f);
    }
  }
  return [...byLocation.values()];
}
