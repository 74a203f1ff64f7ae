import { join, resolve } from 'node:path';
import type { Api } from '../api';
import type { ClusterImportSummary, ClusterStatus } from '../../shared/api/cluster';
import { importJob, jobStatus, runShard } from '../cluster';
import { defaultDataDir } from '../store/data-dir';
import { openDatabase } from '../store/open';
import { PROJECT_DB } from '../store/schema';
import { cliTaskContext } from './task-context';
import { PROJECT_FILE } from '../store/projects';
import { UsageError, type CliCommand, type Options } from './args';
import { projectRef } from './project-ref';

const PROVIDERS = ['auto', 'cuda', 'dml', 'coreml', 'webgpu', 'cpu'] as const;

/** `--project` takes a project folder or a project id. */
async function projectId(api: Api, o: Options): Promise<string> {
  const ref = o.requireString('project');
  const r = projectRef(ref);
  return (await api.invoke('projects.open', 'dir' in r ? { path: r.dir } : { id: r.id })).id;
}

function optionalInt(o: Options, key: string, min: number, max: number): number | undefined {
  return o.string(key) === undefined ? undefined : o.int(key, 0, min, max);
}

function stamp(): string {
  return new Date().toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '-');
}

/** One line per shard and per recording that could not be used, naming the project's clips. */
function describeImport(s: ClusterImportSummary, log: (m: string) => void): void {
  for (const sh of s.shards) {
    log(`shard ${sh.shard}: ${sh.state}, ${sh.merged} merged, ${sh.alreadyPresent} already present, ${sh.missing} missing, ${sh.problems.length} problem(s)`);
    for (const p of sh.problems) {
      const where = p.clips.length > 0 ? p.clips.map((c) => `${c.path} (dataset "${c.datasetName}", row ${c.row})`).join('; ') : p.relPath;
      log(`  ${where}: ${p.kind === 'sha256-mismatch' ? 'SHA-256 mismatch' : p.kind === 'missing-file' ? 'missing on the cluster' : 'could not be decoded'}: ${p.detail}`);
    }
    for (const r of sh.refused) log(`  ${r.rows} row(s) refused: ${r.reason}`);
  }
  log(s.complete ? `complete: every recording of job ${s.jobId} has embeddings in the project` : `not complete yet: ${s.missing} recording(s) still missing, ${s.problems} problem(s)`);
}

/** One line per reason squeue gives for waiting tasks, in words: a job that can never start says so. */
function describeWaiting(s: ClusterStatus, log: (m: string) => void): void {
  const byReason = new Map<string, { words: string; blocked: boolean; ids: string[] }>();
  for (const view of s.scheduler) {
    for (const t of view.tasks) {
      if (!t.reason) continue;
      const key = `${t.reason.code}\n${t.reason.words}`;
      const entry = byReason.get(key) ?? { words: t.reason.words, blocked: t.reason.blocked, ids: [] };
      entry.ids.push(t.id);
      byReason.set(key, entry);
    }
  }
  for (const [key, e] of byReason) {
    const ids = e.ids.length <= 6 ? e.ids.join(', ') : `${e.ids.slice(0, 5).join(', ')} and ${e.ids.length - 5} more`;
    log(`${e.blocked ? 'blocked' : 'waiting'}: ${e.ids.length === 1 ? 'task' : `${e.ids.length} tasks`} ${ids} (${key.split('\n')[0]}): ${e.words}`);
  }
}

/** Cluster jobs: export a Slurm array job, run one shard on a node, check it, take it back. */
export function clusterCommands(api: () => Api): CliCommand[] {
  return [
    {
      path: ['cluster', 'export'],
      usage:
        'cluster export --project DIR --dataset ID [--dataset ID …] --model ID|ALIAS [--shards N] [--out JOBDIR] [--partition P] [--time HH:MM:SS] [--gpus-per-task N] [--cpus-per-task N] [--audio-root PATH]',
      run: async (o, _pos, ctx) => {
        const datasetIds = o.strings('dataset');
        const modelId = o.requireString('model');
        const shards = o.int('shards', 4, 1, 10_000);
        const out = resolve(o.string('out') ?? `equivox-cluster-job-${stamp()}`);
        const audioRoot = o.string('audio-root');
        const partition = o.string('partition');
        const time = o.string('time');
        const gpusPerTask = optionalInt(o, 'gpus-per-task', 1, 64);
        const cpusPerTask = optionalInt(o, 'cpus-per-task', 1, 512);
        const pid = await projectId(api(), o);
        o.assertNoUnknown();
        if (datasetIds.length === 0) throw new UsageError('missing --dataset (give it once per dataset)');
        const r = await api().invoke('cluster.export', {
          projectId: pid,
          datasetIds,
          modelId,
          shards,
          out,
          ...(audioRoot !== undefined ? { audioRoot: resolve(audioRoot) } : {}),
          ...(partition !== undefined ? { partition } : {}),
          ...(time !== undefined ? { time } : {}),
          ...(gpusPerTask !== undefined ? { gpusPerTask } : {}),
          ...(cpusPerTask !== undefined ? { cpusPerTask } : {}),
        });
        ctx.log(`wrote ${r.jobDir}: ${r.clips} recordings in ${r.shards.length} shards${r.alreadyCached > 0 ? ` (${r.alreadyCached} already embedded, left out)` : ''}`);
        ctx.log(
          `each array task asks ${r.resources.cpusPerTask} CPU(s)${r.resources.gpusPerTask !== null ? ` and ${r.resources.gpusPerTask} GPU(s)` : ''} and runs onnxruntime with as many threads${cpusPerTask === undefined ? ' (the default: give --cpus-per-task N for more)' : ''}`,
        );
        ctx.log(`next: copy it to the cluster, then  cd ${r.jobDir} && sbatch submit.sbatch  (see README.txt there)`);
        return r;
      },
    },
    {
      path: ['cluster', 'run-shard'],
      usage: 'cluster run-shard --job JOBDIR --shard K [--audio-root PATH] [--provider auto|cuda|dml|coreml|webgpu|cpu] [--threads N] [--progress-every SECONDS]',
      run: async (o, _pos, ctx) => {
        const jobDir = o.requireString('job');
        const shard = o.int('shard', -1, 0, 1_000_000);
        if (o.string('shard') === undefined) throw new UsageError('missing --shard');
        const audioRoot = o.string('audio-root');
        const provider = o.string('provider') ?? 'auto';
        if (!(PROVIDERS as readonly string[]).includes(provider)) throw new UsageError(`--provider must be one of ${PROVIDERS.join(', ')}`);
        const threads = optionalInt(o, 'threads', 1, 512);
        const progressEvery = o.number('progress-every', 10);
        o.assertNoUnknown();
        // Slurm sends SIGTERM at the time limit or on preemption: stop after the current
        // recording; what is done stays in out/K.sqlite.partial for the next run.
        let cancelled = false;
        const stop = () => {
          if (!cancelled) ctx.log('equivox: stopping after the current recording (what is done is kept)');
          cancelled = true;
        };
        process.on('SIGTERM', stop);
        process.on('SIGINT', stop);
        try {
          return await runShard({
            jobDir,
            shard,
            provider: provider as (typeof PROVIDERS)[number],
            progressEvery,
            log: ctx.log,
            cancelled: () => cancelled,
            ...(audioRoot !== undefined ? { audioRoot } : {}),
            ...(threads !== undefined ? { threads } : {}),
          });
        } finally {
          process.off('SIGTERM', stop);
          process.off('SIGINT', stop);
        }
      },
    },
    {
      path: ['cluster', 'status'],
      usage: 'cluster status --job JOBDIR   (finished, partial and missing shards; squeue/sacct where installed)',
      run: async (o, _pos, ctx) => {
        const jobDir = o.requireString('job');
        o.assertNoUnknown();
        const s = jobStatus(jobDir);
        ctx.log(`${s.finished} of ${s.shardCount} shards finished, ${s.partial} partial, ${s.missing} missing; ${s.embedded} of ${s.clips} recordings embedded, ${s.problems} problem(s)`);
        describeWaiting(s, ctx.log);
        return s;
      },
    },
    {
      path: ['cluster', 'import'],
      usage: "cluster import --project DIR --job JOBDIR   (merge finished shards into the project's cache)",
      run: async (o, _pos, ctx) => {
        const jobDir = resolve(o.requireString('job'));
        const ref = o.requireString('project');
        o.assertNoUnknown();
        // Inline rather than through a worker (as `embed` does): progress on stderr, and the
        // bundled CLI needs no worker entry.
        const r = projectRef(ref);
        // Through projects.open for a folder too: a folder from elsewhere is checked (store/db-check.ts) before it is written to.
        const dir = (await api().invoke('projects.open', 'dir' in r ? { path: r.dir } : { id: r.id })).path;
        const db = openDatabase(join(dir, PROJECT_FILE), PROJECT_DB);
        const task = cliTaskContext(ctx.log);
        try {
          const summary = await importJob(db, defaultDataDir(), jobDir, task);
          describeImport(summary, ctx.log);
          return summary;
        } finally {
          task.dispose();
          db.close();
        }
      },
    },
  ];
}
