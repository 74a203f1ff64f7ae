/**
 * Embedding extraction for a dataset: a resumable job. Each clip's embeddings are
 * committed as soon as they exist, and clips already in the cache (same audio SHA-256,
 * model SHA-256 and settings key) are skipped, so a cancelled or killed run resumes
 * where it stopped and a re-run costs almost nothing.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type Database from 'better-sqlite3';
import type { EmbedSummary } from '../../shared/api/models';
import { CancelledError, NotFoundError, UserError } from '../../shared/errors';
import type { EmbedJobInput } from '../../shared/jobs';
import { openAudio, type AudioSource } from '../audio/source';
import type { Task, TaskContext } from '../jobs/task';
import { usableClipsForEmbedding, type EmbeddingClipRow } from '../store/clips';
import { datasetExists } from '../store/datasets';
import { openDatabase } from '../store/open';
import { PROJECT_FILE } from '../store/projects';
import { projectMigrations } from '../store/schema';
import { cachedAudioShas, embeddingSaver, nonFiniteEmbedding, providerLabel, recordProjectModel } from './cache';
import { clipBudget, loadBudget } from './budget';
import type { ClipEmbedding } from './embedder';
import { borrowEmbedder } from './embedder-pool';
import { ensureModel } from './models';
import { ensureRunnableGraph } from './runnable-graph';
import type { ProviderName } from './providers';

/** Clips opened (and, for ffmpeg formats, decoded) ahead of the model, concurrently. */
const DECODE_AHEAD = 4;

export interface EmbedOptions {
  dataDir: string;
  datasetId: string;
  /** Model id (sha256), unique prefix or built-in alias. */
  model: string;
  provider?: ProviderName | 'auto';
  threads?: number;
}

export interface EmbedProgress {
  done: number;
  total: number;
  computed: number;
  cached: number;
  failed: number;
  audioSeconds: number;
  /** Audio seconds embedded per wall-clock second (computed clips only). */
  audioSecondsPerSecond: number | null;
  etaSeconds: number | null;
}

export type { EmbedSummary };

type ClipRow = EmbeddingClipRow;

export function datasetClips(db: Database.Database, datasetId: string): ClipRow[] {
  if (!datasetExists(db, datasetId)) throw new NotFoundError(`no dataset ${datasetId} in this project`, 'dataset');
  return usableClipsForEmbedding(db, datasetId);
}

/** Run inline (CLI, demo, tests) or inside a worker through embedTask. */
export async function embedDataset(db: Database.Database, o: EmbedOptions, ctx: TaskContext, onProgress?: (p: EmbedProgress) => void): Promise<EmbedSummary> {
  const t0 = performance.now();
  const clips = datasetClips(db, o.datasetId);
  const { manifest, graphs: stored } = await ensureModel(o.dataDir, o.model);
  let graphs = stored;
  recordProjectModel(db, manifest);
  const have = cachedAudioShas(db, manifest.id, manifest.settingsKey);
  const clipSha = (c: ClipRow) => c.sha256 ?? createHash('sha256').update(readFileSync(c.path)).digest('hex');
  const todo: (ClipRow & { sha: string })[] = [];
  let cached = 0;
  for (const c of clips) {
    const sha = clipSha(c);
    if (have.has(sha)) cached += 1;
    else {
      todo.push({ ...c, sha });
      have.add(sha); // a duplicate clip later in the list is computed once
    }
  }
  const total = clips.length;
  const summary: EmbedSummary = {
    datasetId: o.datasetId,
    modelId: manifest.id,
    modelName: manifest.name,
    settingsKey: manifest.settingsKey,
    clips: total,
    computed: 0,
    cached,
    failed: [],
    audioSeconds: 0,
    wallSeconds: 0,
    audioSecondsPerSecond: null,
    timings: { decodeWaitMs: 0, frontEndMs: 0, ortMs: 0, aggregateMs: 0, storeMs: 0, setupMs: 0, releaseMs: 0, totalMs: 0 },
    provider: null,
    fallbacks: [],
  };
  const report = () => {
    const done = summary.cached + summary.computed + summary.failed.length;
    const elapsed = (performance.now() - t0) / 1000;
    const processed = summary.computed + summary.failed.length;
    const rate = summary.audioSeconds > 0 && elapsed > 0 ? summary.audioSeconds / elapsed : null;
    const eta = processed > 0 ? (elapsed / processed) * (total - done) : null;
    ctx.progress('embedding', done, total);
    onProgress?.({ done, total, computed: summary.computed, cached: summary.cached, failed: summary.failed.length, audioSeconds: summary.audioSeconds, audioSecondsPerSecond: rate, etaSeconds: eta });
  };
  report();
  if (todo.length > 0) {
    // The model runs from here on, held to budgets (inference/budget.ts): its load, then each clip.
    const modelBytes = manifest.files.reduce((a, f) => a + f.bytes, 0);
    const subject = `the model “${manifest.name}”`;
    // A stored graph is set up from its runnable form (runnable-graph.ts: about half the
    // setup time); a model imported before that form existed gets it now, once.
    if (typeof graphs.main === 'string') graphs = { ...graphs, main: await ensureRunnableGraph(graphs.main) };
    ctx.budget?.(loadBudget(modelBytes, subject));
    const lease = await borrowEmbedder(manifest, graphs, { provider: o.provider, threads: o.threads }).finally(() => ctx.budget?.(null));
    const { embedder } = lease;
    summary.session = lease.session;
    summary.provider = providerLabel(embedder.info);
    summary.fallbacks = embedder.info.fallbacks;
    summary.timings.setupMs = performance.now() - t0;
    const abort = new AbortController();
    // Open clips ahead of the model: a WAV only has its header read; other formats start
    // their ffmpeg decode now, so it runs while the model works on the clips before.
    const pending = new Map<number, Promise<AudioSource>>();
    const ensureOpening = (from: number) => {
      for (let j = from; j < Math.min(todo.length, from + DECODE_AHEAD); j += 1) {
        if (pending.has(j)) continue;
        const p = openAudio(todo[j]!.path, { signal: abort.signal });
        p.catch(() => {});
        pending.set(j, p);
      }
    };
    // The label is read per clip: a GPU provider that fails mid-run leaves the rest to the CPU (providers.ts).
    const save = embeddingSaver(db);
    const insert = db.transaction((sha: string, e: ClipEmbedding) => {
      summary.provider = providerLabel(embedder.info);
      save(sha, manifest.id, manifest.settingsKey, e, summary.provider);
    });
    const fail = (clip: ClipRow, err: unknown) => {
      summary.failed.push({ clipId: clip.id, path: clip.path, error: err instanceof Error ? err.message : String(err) });
      report();
    };
    try {
      for (let i = 0; i < todo.length; i += 1) {
        if (ctx.cancelled()) throw new CancelledError('Embedding cancelled; finished clips are kept and a re-run resumes from here');
        const clip = todo[i]!;
        ensureOpening(i);
        const tw = performance.now();
        let source: AudioSource;
        try {
          source = await pending.get(i)!;
        } catch (err) {
          if (err instanceof CancelledError) throw err;
          fail(clip, err);
          continue;
        } finally {
          pending.delete(i);
          summary.timings.decodeWaitMs += performance.now() - tw;
        }
        ensureOpening(i + 1);
        let e: Awaited<ReturnType<typeof embedder.embedSource>>;
        ctx.budget?.(clipBudget(modelBytes, source.length !== null ? source.length / 16000 : (clip.duration_s ?? 3600), subject, clip.path));
        try {
          e = await embedder.embedSource(source, abort.signal);
        } catch (err) {
          // A clip that turns out unreadable or empty part-way fails alone; model errors stop the job.
          if (err instanceof UserError && !(err instanceof CancelledError)) {
            fail(clip, err);
            continue;
          }
          throw err;
        } finally {
          ctx.budget?.(null);
          source.close();
        }
        // NaN or ±Inf from the model (samples far out of range, a model that overflows) would
        // reach the statistics as numbers; this clip fails with its name, the rest go on.
        const bad = nonFiniteEmbedding(e);
        if (bad) {
          fail(clip, new UserError(`${basename(clip.path)}: ${bad}; the recording is left out (check it for damaged or wrongly scaled samples)`, 'clip'));
          continue;
        }
        const ts = performance.now();
        insert(clip.sha, e);
        summary.timings.storeMs += performance.now() - ts;
        summary.computed += 1;
        summary.audioSeconds += e.samples / 16000;
        report();
      }
    } finally {
      abort.abort();
      for (const p of pending.values()) void p.then((src) => src.close(), () => {});
      Object.assign(summary.timings, { frontEndMs: embedder.timings.frontEndMs, ortMs: embedder.timings.ortMs, aggregateMs: embedder.timings.aggregateMs });
      const tr = performance.now();
      await lease.release();
      summary.timings.releaseMs = performance.now() - tr;
    }
  }
  summary.timings.totalMs = performance.now() - t0;
  summary.wallSeconds = summary.timings.totalMs / 1000;
  summary.audioSecondsPerSecond = summary.audioSeconds > 0 ? summary.audioSeconds / summary.wallSeconds : null;
  report();
  return summary;
}

/** The job's input (EmbedOptions and the project), declared with its schema in the job map (src/shared/jobs.ts). */
export type EmbedTaskInput = EmbedJobInput;

/** The job-runner form: opens the project database in the worker. */
export const embedTask: Task<EmbedTaskInput, EmbedSummary> = async (input, ctx) => {
  if (!input.projectPath) throw new UserError('projectPath is required', 'projectPath');
  const db = openDatabase(join(input.projectPath, PROJECT_FILE), projectMigrations);
  try {
    return await embedDataset(db, input, ctx);
  } finally {
    db.close();
  }
};
