/**
 * The embedding cache: per clip × model × settings, the per-layer temporal mean, min and
 * max as float32 blobs (layers concatenated). Keyed by content (audio SHA-256, model
 * SHA-256, settings key), so re-imports and re-runs skip inference and two shards merge
 * with INSERT OR IGNORE. The rows themselves are read and written by store/embeddings.ts;
 * here the vectors are packed into and out of their blobs.
 */
import type Database from 'better-sqlite3';
import { embeddingInserter, embeddingReader, insertEmbedding, type EmbeddingRow } from '../store/embeddings';
import { recordProjectModelRow } from '../store/models';
import type { ClipEmbedding } from './embedder';
import type { ModelManifest } from './manifest';
import type { RunInfo } from './providers';

export interface StoredEmbedding {
  dims: number[];
  frames: number;
  mean: Float32Array[];
  min: Float32Array[];
  max: Float32Array[];
  provider: string;
}

function concat(parts: Float32Array[]): Buffer {
  const total = parts.reduce((s, p) => s + p.length, 0);
  const out = new Float32Array(total);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
}

function split(blob: Buffer, dims: number[]): Float32Array[] {
  // Copy: better-sqlite3 buffers may not be 4-byte aligned.
  const all = new Float32Array(new Uint8Array(blob).buffer.slice(0));
  const out: Float32Array[] = [];
  let o = 0;
  for (const d of dims) {
    out.push(all.subarray(o, o + d));
    o += d;
  }
  return out;
}

/** "cpu threads=4 ort=1.30.0": the provider column records all three. */
export function providerLabel(info: RunInfo): string {
  // "switched-from=dml": a GPU provider failed mid-run and the clips after it ran on the CPU (providers.ts).
  return `${info.provider} threads=${info.threads} ort=${info.ortVersion}${info.switchedFrom ? ` switched-from=${info.switchedFrom}` : ''}`;
}

export function saveEmbedding(db: Database.Database, audioSha: string, modelSha: string, settingsKey: string, e: ClipEmbedding, provider: string): void {
  insertEmbedding(db, embeddingRow(audioSha, modelSha, settingsKey, e, provider));
}

/** saveEmbedding with its statement prepared once, for a loop over clips (embed.ts). */
export function embeddingSaver(db: Database.Database): (audioSha: string, modelSha: string, settingsKey: string, e: ClipEmbedding, provider: string) => void {
  const insert = embeddingInserter(db);
  return (audioSha, modelSha, settingsKey, e, provider) => {
    insert(embeddingRow(audioSha, modelSha, settingsKey, e, provider));
  };
}

function embeddingRow(audioSha: string, modelSha: string, settingsKey: string, e: ClipEmbedding, provider: string): EmbeddingRow {
  return {
    audio_sha256: audioSha,
    model_sha256: modelSha,
    settings_key: settingsKey,
    layer_count: e.dims.length,
    dims_json: JSON.stringify(e.dims),
    frames: e.frames,
    mean: concat(e.mean),
    min: concat(e.min),
    max: concat(e.max),
    provider,
    created_at: new Date().toISOString(),
  };
}

/**
 * Why an embedding cannot be used ("the model gave 3,072 values that are not numbers (NaN
 * or infinite), the first in layer 4"), or null when every value is finite.
 */
export function nonFiniteEmbedding(e: Pick<ClipEmbedding, 'mean' | 'min' | 'max'>): string | null {
  let count = 0;
  let firstLayer = -1;
  for (const part of [e.mean, e.min, e.max]) {
    part.forEach((v, layer) => {
      for (let j = 0; j < v.length; j += 1) {
        if (!Number.isFinite(v[j]!)) {
          count += 1;
          if (firstLayer < 0 || layer < firstLayer) firstLayer = layer;
        }
      }
    });
  }
  return count === 0 ? null : `the model gave ${count.toLocaleString('en')} value${count === 1 ? '' : 's'} that ${count === 1 ? 'is' : 'are'} not a number (NaN or infinite), the first in layer ${firstLayer}`;
}

/** Audio hashes already embedded with this model and settings. */
export { cachedAudioShas } from '../store/embeddings';

/**
 * Embeddings of the given clips (missing ones are absent from the map). A stored one that
 * holds NaN or ±Inf (cached before embedding checked its output, or merged from an older
 * cluster shard) is left out too, as if missing, and its audio hash added to `nonFinite`.
 */
export function loadEmbeddings(db: Database.Database, modelSha: string, settingsKey: string, audioShas: readonly string[], nonFinite?: string[]): Map<string, StoredEmbedding> {
  const out = new Map<string, StoredEmbedding>();
  const read = embeddingReader(db, modelSha, settingsKey);
  const seen = new Set<string>();
  for (const sha of audioShas) {
    if (seen.has(sha)) continue;
    seen.add(sha);
    const r = read(sha);
    if (!r) continue;
    const dims = JSON.parse(r.dims_json) as number[];
    const e = { dims, frames: r.frames, mean: split(r.mean, dims), min: split(r.min, dims), max: split(r.max, dims), provider: r.provider };
    if (nonFiniteEmbedding(e)) nonFinite?.push(sha);
    else out.set(sha, e);
  }
  return out;
}

export type TemporalAggregation = 'mean' | 'min' | 'max';
export type LayerSelector = 'sum' | 'min' | 'max' | 'first' | 'second' | 'q1' | 'q2' | 'q3' | 'penultimate' | 'last' | number;

/** State index for a single-layer selector over L states (0..L-1). Quartiles round half up. */
export function layerIndex(sel: Exclude<LayerSelector, 'sum' | 'min' | 'max'>, count: number): number {
  const last = count - 1;
  let i: number;
  switch (sel) {
    case 'first': i = 0; break;
    case 'second': i = Math.min(1, last); break;
    case 'q1': i = Math.round(last * 0.25); break;
    case 'q2': i = Math.round(last * 0.5); break;
    case 'q3': i = Math.round(last * 0.75); break;
    case 'penultimate': i = Math.max(0, last - 1); break;
    case 'last': i = last; break;
    default: i = sel;
  }
  if (!Number.isInteger(i) || i < 0 || i > last) throw new RangeError(`layer ${String(sel)} is outside 0..${last}`);
  return i;
}

/**
 * One vector per clip: the temporal statistic of each layer, then the layer choice.
 * sum/min/max combine element-wise over the layers of the final layer's width only
 * (layers of other widths cannot be added; see ModelManifest.layerAggregation).
 */
export function aggregate(e: Pick<StoredEmbedding, 'dims' | 'mean' | 'min' | 'max'>, temporal: TemporalAggregation, layer: LayerSelector): Float64Array {
  const per = e[temporal];
  if (layer !== 'sum' && layer !== 'min' && layer !== 'max') return Float64Array.from(per[layerIndex(layer, per.length)]!);
  const width = e.dims[e.dims.length - 1]!;
  const out = new Float64Array(width).fill(layer === 'sum' ? 0 : layer === 'min' ? Infinity : -Infinity);
  for (let l = 0; l < per.length; l += 1) {
    if (e.dims[l] !== width) continue;
    const v = per[l]!;
    for (let j = 0; j < width; j += 1) {
      if (layer === 'sum') out[j] += v[j]!;
      else if (layer === 'min') out[j] = Math.min(out[j]!, v[j]!);
      else out[j] = Math.max(out[j]!, v[j]!);
    }
  }
  return out;
}

/** Record in the project that it used this model (models table; idempotent). */
export function recordProjectModel(db: Database.Database, m: ModelManifest): void {
  recordProjectModelRow(db, {
    id: m.id,
    name: m.name,
    family: m.family,
    front_end: m.frontEnd.kind,
    sha256: m.sha256,
    layers: m.dims.length,
    dims_json: JSON.stringify(m.dims),
    manifest_json: JSON.stringify(m),
    added_at: new Date().toISOString(),
  });
}
