import { z } from 'zod';
import type { FdiVerifier } from '../results';
import { Id } from './common';
import type { InferenceStatus } from '../jobs';

/** A model as the renderer and the CLI see it (the full manifest lives in the main process). */
export interface ModelInfo {
  id: string;
  alias: string | null;
  name: string;
  family: string;
  frontEnd: string;
  builtin: boolean;
  /** Transformer blocks (or conv blocks), when known. */
  blocks: number | null;
  /** Exposed hidden states (layer_count of the embeddings). */
  layers: number;
  dims: number[];
  exposure: { status: 'exposed' | 'last-layer-only' | 'native'; message: string };
  settingsKey: string;
  licence: string | null;
  source: string | null;
  /** What the model is for: its inner representation is audited (SpEAT, SER, FDI), or it writes transcripts (WER). */
  task: 'embedding' | 'asr';
  /** A speech recogniser's decoding: Whisper's language codes (empty: English only) and whether it can translate into English. */
  asr: { kind: 'ctc' | 'whisper'; languages: string[]; translate: boolean } | null;
}

export interface ModelLayers {
  id: string;
  name: string;
  stateDefinition: string;
  states: { index: number; label: string; output: string; width: number }[];
  layerAggregation: { rule: 'all-layers' | 'final-width'; layers: number[]; note: string };
  /** verified: the import check compared two different computations and they agreed (null: no check applies or it predates this field). */
  exposure: { status: string; message: string; maxAbsDiff: number | null; verified: boolean | null };
}

export interface EmbedSummary {
  datasetId: string;
  modelId: string;
  modelName: string;
  settingsKey: string;
  clips: number;
  computed: number;
  cached: number;
  failed: { clipId: string; path: string; error: string }[];
  audioSeconds: number;
  wallSeconds: number;
  audioSecondsPerSecond: number | null;
  /**
   * Where the time went (ms). decodeWaitMs: waiting for ffmpeg beyond its overlap with inference;
   * releaseMs: handing the model back at the end (its sessions released where nothing keeps them).
   */
  timings: { decodeWaitMs: number; frontEndMs: number; ortMs: number; aggregateMs: number; storeMs: number; setupMs: number; releaseMs: number; totalMs: number };
  /** "cpu threads=4 ort=1.30.0" */
  provider: string | null;
  fallbacks: { provider: string; error: string }[];
  /**
   * Whether this run set up its model's sessions ('created') or used those an earlier job
   * of the same engine's worker left loaded ('reused'); absent when no clip needed computing.
   */
  session?: 'created' | 'reused';
}

/**
 * How well a model verifies speakers on a dataset, from cached embeddings (METHODS.md §
 * Verdicts that hold, Verifier quality): the figures an FDI section reports, and the groups
 * left out (no genuine or no impostor pairs).
 */
export type VerifierQualityInfo = FdiVerifier & { warnings: string[] };

export const Provider = z.enum(['auto', 'cuda', 'dml', 'coreml', 'webgpu', 'cpu']);

export const modelOperations = {
  'models.list': {
    input: z.strictObject({}),
    result: null as unknown as ModelInfo[],
    summary: 'Built-in and imported models',
  },
  'models.import': {
    input: z
      .strictObject({
        file: z.string().min(1).optional(),
        folder: z.string().min(1).optional(),
        manifest: z.string().min(1).optional(),
        name: z.string().trim().min(1).max(200).optional(),
        licence: z.string().max(200).optional(),
        source: z.string().max(1000).optional(),
        /** Answer when the import has finished, with the model (the CLI); otherwise at once with the job to follow. */
        wait: z.boolean().default(false),
      })
      .refine((v) => (v.file === undefined) !== (v.folder === undefined), { message: 'give exactly one of file or folder', path: ['file'] }),
    paths: ['file', 'folder', 'manifest'],
    result: null as unknown as { jobId: string; model: ModelInfo | null },
    summary:
      'Import an .onnx file (with an optional manifest) or a Hugging Face-style folder as a cancellable job (progress events; cancel with jobs.cancel): external data is checked, layers are exposed and verified, the model is held to a time and memory budget',
  },
  'models.importResult': {
    input: z.strictObject({ jobId: z.string().min(1).max(100) }),
    result: null as unknown as ModelInfo,
    summary: 'Wait for a model import started with models.import in this engine and give the model it imported (its failure as the error)',
  },
  'models.inference': {
    input: z.strictObject({}),
    result: null as unknown as InferenceStatus,
    summary: 'Whether speech models can run on this computer (onnxruntime loads where models run), and if not why and what to do',
  },
  'models.layers': {
    input: z.strictObject({ id: z.string().min(1) }),
    result: null as unknown as ModelLayers,
    summary: 'The exposed hidden states of a model and their widths',
  },
  'models.embed': {
    input: z.strictObject({
      projectId: Id,
      datasetId: Id,
      modelId: z.string().min(1),
      provider: Provider.default('auto'),
      threads: z.number().int().min(1).max(256).optional(),
      wait: z.boolean().default(false),
    }),
    result: null as unknown as { jobId: string; summary: EmbedSummary | null },
    summary: 'Embed a dataset with a model as a resumable job (progress events; cancel with jobs.cancel)',
  },
  'models.verifierQuality': {
    input: z.strictObject({
      projectId: Id,
      datasetId: Id,
      modelId: z.string().min(1),
      groupBy: z.array(z.string().min(1)).min(1).max(4),
      trialsPerGroup: z.number().int().min(10).max(1_000_000).optional(),
      seed: z.number().int().min(0).max(2 ** 32 - 1).optional(),
    }),
    result: null as unknown as VerifierQualityInfo | null,
    summary: 'Speaker-verification quality (AUC, EER) of a model on a dataset from its cached embeddings, with the trials an FDI audit would build; null when none are cached',
  },
  'models.catalogue': {
    input: z.strictObject({}),
    result: null as unknown as { id: string; name: string; repository: string; licence: string; approxMB: number; files: string[] }[],
    summary: 'Known exports that can be downloaded on request',
  },
  'models.download': {
    input: z.strictObject({ id: z.string().min(1), allowDownloads: z.boolean().default(false) }),
    result: null as unknown as ModelInfo,
    summary: 'Download a catalogue model (only with allowDownloads: true) and import it',
  },
} as const;
