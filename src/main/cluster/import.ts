/**
 * `cluster import`: merge a job's finished shards into the project's embedding cache.
 * Rows are checked (job, model and settings keys, audio in the shard's manifest, widths
 * and blob sizes) and then inserted with INSERT OR IGNORE on the cache's content key,
 * one transaction per shard: a shard merges whole or not at all, shards merge in any
 * order, and importing twice changes nothing. For each row it adds, embedding_origins
 * records the job, shard and node that computed it.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type Database from 'better-sqlite3';
import type { ClipProblem, ClusterImportSummary, ShardImport } from '../../shared/api/cluster';
import { UserError } from '../../shared/errors';
import { cachedAudioShas, ensureModel, recordProjectModel } from '../inference';
import type { TaskContext } from '../jobs/task';
import { readJob, readManifest, shardOutput, type JobFile } from './format';
import { clipsWithAudio } from '../store/cluster-inputs';
import { embeddingOriginInserter, recordClusterJobIfAbsent } from '../store/cluster-jobs';
import { embeddingInserter, embeddingRowCount, embeddingRows, type EmbeddingRow } from '../store/embeddings';
import { recordEvent } from '../store/events';
import { checkDatabaseFile } from '../store/db-check';
import { UntrustedDatabaseError } from '../store/db-guard';
import { readShardDb, SHARD_DB, shardInfo, shardProblems, shardRuns, type ShardRunRow } from '../store/shard-db';

/** Why a row of a shard may not enter the cache, or null when it may. */
function rowProblem(r: EmbeddingRow, job: JobFile, inManifest: ReadonlySet<string>, dimsJson: string, floats: number): string | null {
  if (r.model_sha256 !== job.modelSha256 || r.settings_key !== job.settingsKey) return "its model or settings key is not the job's";
  if (!inManifest.has(r.audio_sha256)) return "its audio is not in the shard's manifest";
  if (r.dims_json !== dimsJson || r.layer_count !== job.model.dims.length) return "its layer widths are not the model's";
  if (!Number.isInteger(r.frames) || r.frames < 0) return 'its frame count is not a count';
  for (const b of [r.mean, r.min, r.max]) if (!Buffer.isBuffer(b) || b.length !== floats * 4) return 'its vectors have the wrong size';
  return null;
}

/** The run that wrote a row: the latest one started before the row was. */
function runFor(runs: readonly ShardRunRow[], createdAt: string): ShardRunRow | null {
  let found: ShardRunRow | null = null;
  for (const r of runs) if (r.started_at <= createdAt) found = r;
  return found ?? runs[0] ?? null;
}

export async function importJob(db: Database.Database, dataDir: string, dir: string, ctx: TaskContext): Promise<ClusterImportSummary> {
  const jobDir = resolve(dir);
  const job = readJob(jobDir);
  let manifest;
  try {
    ({ manifest } = await ensureModel(dataDir, job.modelSha256));
  } catch {
    throw new UserError(`the job's model "${job.model.name}" (${job.modelSha256.slice(0, 12)}…) is not in this Equivox; import it first (models import)`, 'jobDir');
  }
  if (manifest.settingsKey !== job.settingsKey) {
    throw new UserError(`this Equivox computes "${manifest.settingsKey}" for ${manifest.name}; the job's embeddings were made with "${job.settingsKey}" and would not match embeddings computed here`, 'jobDir');
  }
  if (JSON.stringify(manifest.dims) !== JSON.stringify(job.model.dims)) throw new UserError(`job.json gives layer widths ${JSON.stringify(job.model.dims)}; ${manifest.name} has ${JSON.stringify(manifest.dims)}`, 'jobDir');
  const dimsJson = JSON.stringify(job.model.dims);
  const floats = job.model.dims.reduce((a, b) => a + b, 0);
  const clipsOf: (sha: string) => ClipProblem['clips'] = clipsWithAudio(db);
  const now = new Date().toISOString();

  db.transaction(() => {
    recordProjectModel(db, manifest);
    recordClusterJobIfAbsent(db, {
      id: job.jobId,
      name: job.jobName,
      model_sha256: job.modelSha256,
      settings_key: job.settingsKey,
      shards: job.shardCount,
      clips: job.clips,
      job_dir: jobDir,
      datasets_json: JSON.stringify(job.datasets),
      created_at: job.createdAt,
    });
  })();
  const insert = embeddingInserter(db);
  const origin = embeddingOriginInserter(db);

  const shards: ShardImport[] = [];
  for (const entry of job.shards) {
    ctx.throwIfCancelled();
    ctx.progress('Merging shards', entry.shard, job.shardCount);
    const m = readManifest(jobDir, job, entry.shard);
    const shas = new Set(m.clips.map((c) => c.sha256));
    const out = shardOutput(jobDir, entry.shard);
    const result: ShardImport = { shard: entry.shard, state: 'missing', clips: m.clips.length, merged: 0, alreadyPresent: 0, missing: 0, problems: [], refused: [] };
    const file = existsSync(out.final) ? out.final : existsSync(out.partial) ? out.partial : null;
    if (file) {
      result.state = file === out.final ? 'finished' : 'partial';
      let sdb: Database.Database | null = null;
      try {
        // A finished shard is a file from elsewhere: checked in full (quick_check, no stray -wal) with a time limit first.
        if (result.state === 'finished') await checkDatabaseFile(file, SHARD_DB, { scratchDir: join(dataDir, 'checks') });
        sdb = readShardDb(file);
        const info = shardInfo(sdb);
        if (info.job_id !== job.jobId || info.shard !== String(entry.shard)) {
          result.state = 'refused';
          result.refused.push({ reason: `the output belongs to job ${info.job_id ?? '?'} shard ${info.shard ?? '?'}`, rows: embeddingRowCount(sdb) });
        } else {
          result.problems = shardProblems(sdb).map((p) => ({ shard: entry.shard, relPath: p.relPath, sha256: p.sha256, kind: p.kind, detail: p.detail, clips: clipsOf(p.sha256) }));
          // Only a finished shard merges: a partial one may still be written by its task.
          if (result.state === 'finished') {
            const runs = shardRuns(sdb);
            const refused = new Map<string, number>();
            const rows = embeddingRows(sdb);
            db.transaction(() => {
              for (const r of rows) {
                const why = rowProblem(r, job, shas, dimsJson, floats);
                if (why) {
                  refused.set(why, (refused.get(why) ?? 0) + 1);
                  continue;
                }
                if (insert(r)) {
                  const run = runFor(runs, r.created_at);
                  origin({ audio_sha256: r.audio_sha256, model_sha256: r.model_sha256, settings_key: r.settings_key, job_id: job.jobId, shard: entry.shard, host: run?.host ?? null, scheduler_job: run?.scheduler_job ?? null, imported_at: now });
                  result.merged += 1;
                } else result.alreadyPresent += 1;
              }
            })();
            result.refused = [...refused].map(([reason, n]) => ({ reason, rows: n }));
          }
        }
      } catch (err) {
        // A shard that is not what Equivox writes is refused, naming what is wrong; the others still merge.
        if (err instanceof UserError && !(err instanceof UntrustedDatabaseError)) throw err;
        result.state = 'refused';
        result.refused.push({ reason: err instanceof UntrustedDatabaseError ? err.message : `${file} could not be read: ${err instanceof Error ? err.message : String(err)}`, rows: 0 });
      } finally {
        sdb?.close();
      }
    }
    shards.push(result);
  }
  ctx.progress('Merging shards', job.shardCount, job.shardCount);

  // What the cache still lacks, per shard, apart from recordings with a recorded problem.
  const have = cachedAudioShas(db, job.modelSha256, job.settingsKey);
  let lacking = 0;
  for (const s of shards) {
    const m = readManifest(jobDir, job, s.shard);
    const withProblem = new Set(s.problems.map((p) => p.sha256));
    const absent = m.clips.filter((c) => !have.has(c.sha256));
    lacking += absent.length;
    s.missing = absent.filter((c) => !withProblem.has(c.sha256)).length;
  }
  const total = (f: (s: ShardImport) => number) => shards.reduce((a, s) => a + f(s), 0);
  const summary: ClusterImportSummary = {
    jobId: job.jobId,
    modelId: manifest.id,
    modelName: manifest.name,
    settingsKey: job.settingsKey,
    shards,
    merged: total((s) => s.merged),
    alreadyPresent: total((s) => s.alreadyPresent),
    missing: total((s) => s.missing),
    problems: total((s) => s.problems.length),
    complete: lacking === 0 && shards.every((s) => s.refused.length === 0),
  };
  recordEvent(
    db,
    'cluster.import',
    { jobId: job.jobId, jobDir, merged: summary.merged, alreadyPresent: summary.alreadyPresent, missing: summary.missing, problems: summary.problems, complete: summary.complete },
    now,
  );
  return summary;
}
