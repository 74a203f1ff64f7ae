/**
 * `cluster status`: what the job folder's files say about each shard — finished
 * (out/K.sqlite), partial (out/K.sqlite.partial: a task stopped or is running) or
 * missing — with counts read from the shard databases. No scheduler access is needed;
 * where squeue/sacct are installed their view is added.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ClusterStatus, ShardState, ShardStatus } from '../../shared/api/cluster';
import { readJob, readManifest, shardOutput, type JobFile } from './format';
import { schedulerView } from './scheduler';
import { countEmbeddings } from '../store/embeddings';
import { lastRun, readShardDb, shardInfo, shardProblemCount } from '../store/shard-db';

/** One shard's state and counts from its output file, if any. */
export function shardStatus(jobDir: string, job: JobFile, shard: number): ShardStatus {
  const clips = readManifest(jobDir, job, shard).clips.length;
  const out = shardOutput(jobDir, shard);
  const state: ShardState = existsSync(out.final) ? 'finished' : existsSync(out.partial) ? 'partial' : 'missing';
  const base: ShardStatus = { shard, state, clips, embedded: 0, problems: 0, lastRun: null };
  if (state === 'missing') return base;
  try {
    const db = readShardDb(state === 'finished' ? out.final : out.partial);
    try {
      const info = shardInfo(db);
      if (info.job_id !== job.jobId || info.shard !== String(shard)) {
        return { ...base, error: `the output belongs to job ${info.job_id ?? '?'} shard ${info.shard ?? '?'}, not to this job's shard ${shard}` };
      }
      return {
        ...base,
        embedded: countEmbeddings(db, job.modelSha256, job.settingsKey),
        problems: shardProblemCount(db),
        lastRun: lastRun(db),
      };
    } finally {
      db.close();
    }
  } catch (err) {
    // A task that was just started may not have created its tables yet.
    return { ...base, error: `could not read the output yet: ${err instanceof Error ? err.message : String(err)}` };
  }
}

export function jobStatus(dir: string, options: { scheduler?: boolean } = {}): ClusterStatus {
  const jobDir = resolve(dir);
  const job = readJob(jobDir);
  const shards = job.shards.map((s) => shardStatus(jobDir, job, s.shard));
  const count = (st: ShardState) => shards.filter((s) => s.state === st).length;
  return {
    jobId: job.jobId,
    jobDir,
    jobName: job.jobName,
    modelName: job.model.name,
    shardCount: job.shardCount,
    finished: count('finished'),
    partial: count('partial'),
    missing: count('missing'),
    clips: shards.reduce((s, x) => s + x.clips, 0),
    embedded: shards.reduce((s, x) => s + x.embedded, 0),
    problems: shards.reduce((s, x) => s + x.problems, 0),
    shards,
    scheduler: options.scheduler === false ? [] : schedulerView(job.jobName, job.createdAt),
  };
}
