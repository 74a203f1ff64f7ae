/** Shared by the cluster tests: projects built by the real importer, the real CLI, and embedding rows to compare. */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { demoDir, loadDemoDescription } from '../../../src/main/audits/demo-plan';
import { importDataset } from '../../../src/main/data/import';
import { PROJECT_FILE, ProjectStore } from '../../../src/main/store/projects';
import { runNode, type RunOutcome } from '../hardening/crash-helpers';
import type { EmbeddingRow as StoredEmbeddingRow } from '../../../src/main/store/embeddings';

const made: string[] = [];

/** A new temporary folder, removed by removeTempDirs (each test file's afterAll). */
export function tempDir(p: string): string {
  const dir = mkdtempSync(join(tmpdir(), `equivox-cluster-${p}-`));
  made.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** A project holding the demo's target dataset, imported by the real importer. */
export async function demoTargetProject(home: string, dir: string): Promise<{ dir: string; datasetId: string }> {
  const store = new ProjectStore(home);
  try {
    const project = store.create('Cluster test', dir);
    const spec = loadDemoDescription().datasets.find((d) => d.role === 'target')!;
    const r = await importDataset(store.db(project.id), { source: { kind: 'manifest', manifest: join(demoDir(), spec.manifest) }, role: 'target', mapping: spec.mapping, name: spec.name });
    if (r.failed.length > 0) throw new Error(`the demo import failed for ${r.failed.length} rows`);
    return { dir, datasetId: r.datasetId };
  } finally {
    store.close();
  }
}

/**
 * A copy of a project folder (the database file only: projects keep their audio elsewhere),
 * opened as a copy in `home` the way an auditor would (`projects open --as-copy`), so that it has
 * its own identity: a plain copy is refused as "a copy of the project" once the original is known.
 */
export async function copyProject(from: string, to: string, home: string): Promise<string> {
  cpSync(join(from, PROJECT_FILE), join(to, PROJECT_FILE));
  const store = new ProjectStore(home);
  try {
    await store.openPath(to, { asCopy: true });
  } finally {
    store.close();
  }
  return to;
}

/** The real CLI (node --import tsx src/main/cli.ts), with its own data folder and onnxruntime's telemetry off. */
export function cli(args: string[], home: string, env: NodeJS.ProcessEnv = {}, killWhen: ((line: string) => boolean) | null = null): Promise<RunOutcome> {
  return runNode('src/main/cli.ts', args, { EQUIVOX_HOME: home, ORT_DISABLE_TELEMETRY: '1', ...env }, killWhen);
}

/** stdout of a CLI run that must have succeeded, parsed. */
export function ok<T>(run: RunOutcome): T {
  if (run.code !== 0) throw new Error(`the CLI exited with ${run.code ?? run.signal}:\n${run.stderr.slice(-3000)}`);
  return JSON.parse(run.stdout) as T;
}

/** An embeddings row without its key's audio hash and its timestamp (the row type of src/main/store/embeddings.ts). */
export type EmbeddingRow = Omit<StoredEmbeddingRow, 'audio_sha256' | 'created_at'>;

/** Every cached embedding of a project (or shard) file for one model, by audio SHA-256. */
export function embeddingRows(file: string, modelSha: string): Map<string, EmbeddingRow> {
  const db = new Database(file, { readonly: true });
  try {
    const rows = db
      .prepare('SELECT audio_sha256, model_sha256, settings_key, layer_count, dims_json, frames, mean, min, max, provider FROM embeddings WHERE model_sha256 = ? ORDER BY audio_sha256')
      .all(modelSha) as (EmbeddingRow & { audio_sha256: string })[];
    return new Map(rows.map(({ audio_sha256, ...r }) => [audio_sha256, r]));
  } finally {
    db.close();
  }
}

export function count(file: string, sql: string, ...params: unknown[]): number {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare(sql).get(...params) as { n: number }).n;
  } finally {
    db.close();
  }
}
