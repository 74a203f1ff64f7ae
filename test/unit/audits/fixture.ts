/**
 * Fixture projects for the audit pipeline tests: a temp project, datasets and clips
 * inserted with SQL, embeddings written straight into the cache table for a fake model,
 * and an AuditContext built by hand (no model files, no inference).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import type { AuditPlanInput } from '../../../src/shared/plan';
import type { AuditContext } from '../../../src/main/audits/context';
import { parsePlan, savePlan } from '../../../src/main/audits/plans';
import { createAudit } from '../../../src/main/audits/run';
import { UnitStore } from '../../../src/main/audits/units';
import type { ModelManifest } from '../../../src/main/inference';
import { inlineContext } from '../../../src/main/jobs/task';
import { ProjectStore } from '../../../src/main/store/projects';

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `equivox-${prefix}-`));
}

export function fixtureProject(name = 'Audit fixture'): { store: ProjectStore; db: Database.Database; projectId: string; home: string } {
  const home = tempDir('audit-home');
  const store = new ProjectStore(home);
  const p = store.create(name, join(tempDir('audit-proj'), 'p'));
  return { store, db: store.db(p.id), projectId: p.id, home };
}

export interface FixtureClip {
  speaker?: string | null;
  groups?: Record<string, string>;
  valence?: number | null;
  transcript?: string | null;
  hypothesis?: string | null;
  durationS?: number;
  /** Default: a fake hash unique to the dataset and row. */
  sha256?: string;
}

/** Insert a ready dataset and its clips in row order; returns the dataset id and the clips' sha256. */
export function insertDataset(db: Database.Database, role: 'target' | 'attribute' | 'asr' | 'verification', clips: FixtureClip[], id: string = randomUUID()): { id: string; shas: string[]; clipIds: string[] } {
  const now = new Date().toISOString();
  const mapping = { path: 'path', speaker: 'speaker', groups: [...new Set(clips.flatMap((c) => Object.keys(c.groups ?? {})))].sort(), transcript: 'transcript', hypothesis: 'hypothesis', valence: 'valence' };
  db.prepare("INSERT INTO datasets (id, name, role, source_kind, source_path, manifest_sha256, mapping_json, status, created_at, updated_at) VALUES (?, ?, ?, 'manifest', ?, ?, ?, 'ready', ?, ?)").run(
    id, `${role} fixture`, role, `/fixture/${id}.csv`, `manifest-${id}`, JSON.stringify(mapping), now, now);
  const stmt = db.prepare(
    "INSERT INTO clips (id, dataset_id, row_index, path, rel_path, sha256, duration_s, speaker, groups_json, transcript, hypothesis, valence, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'ok')");
  const shas: string[] = [];
  const clipIds: string[] = [];
  clips.forEach((c, i) => {
    const sha = c.sha256 ?? `fake-${id}-${i + 1}`;
    const clipId = randomUUID();
    stmt.run(clipId, id, i + 1, `/fixture/${id}/${i + 1}.wav`, `${i + 1}.wav`, sha, c.durationS ?? 2 + (i % 3) * 0.1, c.speaker ?? null, JSON.stringify(c.groups ?? {}),
      c.transcript ?? null, c.hypothesis ?? null, c.valence ?? null);
    shas.push(sha);
    clipIds.push(clipId);
  });
  return { id, shas, clipIds };
}

export interface FakeModel {
  id: string;
  settingsKey: string;
  dims: number[];
}

/** Per layer: temporal mean, min, max (each a vector of that layer's width). */
export interface FixtureEmbedding {
  mean: number[][];
  min?: number[][];
  max?: number[][];
}

function blob(parts: number[][]): Buffer {
  const f = Float32Array.from(parts.flat());
  return Buffer.from(f.buffer, f.byteOffset, f.byteLength);
}

export function insertEmbedding(db: Database.Database, model: FakeModel, audioSha: string, e: FixtureEmbedding): void {
  db.prepare(
    `INSERT INTO embeddings (audio_sha256, model_sha256, settings_key, layer_count, dims_json, frames, mean, min, max, provider, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(audioSha, model.id, model.settingsKey, model.dims.length, JSON.stringify(model.dims), 10, blob(e.mean), blob(e.min ?? e.mean), blob(e.max ?? e.mean),
    'cpu threads=1 ort=fixture', new Date().toISOString());
}

/** A manifest with what the audits read; files and states are empty (nothing is ever run). */
export function fakeManifest(model: FakeModel, name = 'Fixture model'): ModelManifest {
  const layers = model.dims.map((_, i) => i);
  return {
    manifestVersion: 1,
    id: model.id,
    sha256: model.id,
    alias: null,
    name,
    family: 'wav2vec2',
    frontEnd: { kind: 'raw-waveform', sampleRate: 16000, doNormalize: false },
    builtin: false,
    files: [],
    inputName: 'input_values',
    blocks: model.dims.length - 1,
    states: [],
    dims: model.dims,
    stateDefinition: 'fixture: no model file, embeddings inserted by the test',
    layerAggregation: { rule: 'all-layers', layers, note: 'fixture' },
    exposure: { status: 'native', message: 'fixture', maxAbsDiff: null, derivedSha256: null },
    settingsKey: model.settingsKey,
    licence: null,
    source: null,
    addedAt: new Date(0).toISOString(),
  };
}

/** Save the plan, create an audit row (results rows reference it) and build the context. */
export function buildContext(
  db: Database.Database,
  planInput: AuditPlanInput,
  models: Map<string, ModelManifest> = new Map(),
): { ctx: AuditContext; warnings: string[]; auditId: string; planId: string } {
  const config = parsePlan(planInput);
  const plan = savePlan(db, { config });
  const audit = createAudit(db, plan.id);
  const warnings: string[] = [];
  const ctx: AuditContext = {
    db,
    dataDir: tempDir('audit-data'),
    plan: config,
    seed: config.seed,
    units: new UnitStore(db, audit.id),
    task: inlineContext(),
    models,
    warn: (m) => {
      if (!warnings.includes(m)) warnings.push(m);
    },
  };
  return { ctx, warnings, auditId: audit.id, planId: plan.id };
}
