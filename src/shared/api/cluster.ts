import { z } from 'zod';
import { Id } from './common';

/**
 * Cluster jobs: embedding extraction handed to a scheduler (Slurm) as an array job and
 * merged back into the project's cache. See src/main/cluster/ and docs/cluster.md.
 */

/** What `cluster.export` wrote. */
export interface ClusterExportSummary {
  jobId: string;
  /** The job folder (absolute). */
  jobDir: string;
  /** Slurm job name (`#SBATCH --job-name`), used by `cluster status` to ask the scheduler. */
  jobName: string;
  modelId: string;
  modelName: string;
  settingsKey: string;
  /** Recordings in the job (distinct audio, after leaving out those already embedded). */
  clips: number;
  /** Recordings of the chosen datasets already embedded with this model: not in the job. */
  alreadyCached: number;
  audioSeconds: number;
  /** Folder the manifests' audio paths are relative to, on this computer. */
  audioRoot: string;
  shards: { shard: number; clips: number; audioSeconds: number }[];
  /** What each array task asks of Slurm; run-shard gives onnxruntime as many threads as CPUs. */
  resources: { cpusPerTask: number; gpusPerTask: number | null };
  /** How the job's scripts start Equivox on a node (recorded in job.json). */
  cli: { kind: 'bundled' | 'checkout' | 'unknown'; command: string[] };
}

export type ShardState = 'finished' | 'partial' | 'missing';

export interface ShardRunInfo {
  host: string | null;
  /** "<array job id>_<task id>" under Slurm, else null. */
  schedulerJob: string | null;
  startedAt: string;
  finishedAt: string | null;
}

export interface ShardStatus {
  shard: number;
  state: ShardState;
  /** Recordings in the shard's manifest. */
  clips: number;
  /** Recordings with embeddings in the shard's output. */
  embedded: number;
  /** Recordings the shard could not use (audio changed or missing, undecodable). */
  problems: number;
  lastRun: ShardRunInfo | null;
  /** Why the output could not be read, when it could not. */
  error?: string;
}

/** What a scheduler tool said about the job's tasks. */
export interface SchedulerView {
  tool: 'squeue' | 'sacct';
  ok: boolean;
  /** The tool's message when it could not answer (e.g. accounting disabled). */
  message?: string;
  tasks: SchedulerTask[];
}

export interface SchedulerTask {
  id: string;
  state: string;
  detail: string;
  /** Why a pending task waits, in words (squeue's reason code explained); absent for other states. */
  reason?: { code: string; words: string; blocked: boolean };
}

export interface ClusterStatus {
  jobId: string;
  jobDir: string;
  jobName: string;
  modelName: string;
  shardCount: number;
  finished: number;
  partial: number;
  missing: number;
  clips: number;
  embedded: number;
  problems: number;
  shards: ShardStatus[];
  /** What squeue/sacct say (CLI only, where installed); empty otherwise. */
  scheduler: SchedulerView[];
}

export type ClipProblemKind = 'sha256-mismatch' | 'missing-file' | 'decode-failed';

/** A recording a shard did not embed, with the project's clips that hold that audio. */
export interface ClipProblem {
  shard: number;
  /** Path in the shard's manifest, relative to the audio root. */
  relPath: string;
  sha256: string;
  kind: ClipProblemKind;
  detail: string;
  clips: { datasetId: string; datasetName: string; row: number; path: string }[];
}

export interface ShardImport {
  shard: number;
  /** 'refused': the shard's output belongs to another job or cannot be read. */
  state: ShardState | 'refused';
  clips: number;
  /** Embeddings added to the project's cache. */
  merged: number;
  /** Embeddings the cache already held (a second import merges nothing). */
  alreadyPresent: number;
  /** Recordings of the manifest with neither embeddings nor a recorded problem. */
  missing: number;
  problems: ClipProblem[];
  /** Rows of the shard's output not merged, with why. */
  refused: { reason: string; rows: number }[];
}

export interface ClusterImportSummary {
  jobId: string;
  modelId: string;
  modelName: string;
  settingsKey: string;
  shards: ShardImport[];
  merged: number;
  alreadyPresent: number;
  missing: number;
  problems: number;
  /** Every shard finished, nothing missing, no problems, nothing refused. */
  complete: boolean;
}

/** Where a dataset's cached embeddings came from, per model. */
export interface EmbeddingOrigins {
  datasetId: string;
  /** Usable recordings (distinct audio) in the dataset. */
  clips: number;
  models: {
    modelId: string;
    modelName: string;
    settingsKey: string;
    /** Recordings with cached embeddings. */
    cached: number;
    /** Of those, computed by a cluster job and merged with cluster import. */
    fromCluster: number;
    jobs: { jobId: string; clips: number; shards: number[]; hosts: string[]; importedAt: string }[];
  }[];
}

const AbsPath = z.string().min(1, 'must not be empty').max(4096, 'must be at most 4096 characters');
/** Written into submit.sbatch: only characters Slurm uses in partition names. */
const Partition = z.string().regex(/^[A-Za-z0-9_.,-]{1,100}$/, 'a partition name has letters, digits, "_", "-", "." or "," only');
/** Slurm time limits: MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS. */
const TimeLimit = z.string().regex(/^(\d{1,3}-)?\d{1,4}(:\d{2}){0,2}$/, 'a time limit looks like HH:MM:SS or D-HH:MM:SS');

export const clusterOperations = {
  'cluster.export': {
    input: z.strictObject({
      projectId: Id,
      datasetIds: z.array(Id).min(1, 'choose at least one dataset').max(100),
      modelId: z.string().min(1),
      shards: z.number().int().min(1).max(10_000).default(4),
      /** The job folder to create (new or empty). */
      out: AbsPath,
      /** Folder the audio paths are written relative to (default: the recordings' common folder). */
      audioRoot: AbsPath.optional(),
      partition: Partition.optional(),
      time: TimeLimit.optional(),
      gpusPerTask: z.number().int().min(1).max(64).optional(),
      /** CPUs per array task, and onnxruntime threads to match (run-shard): one unless asked, so a task fits any node. */
      cpusPerTask: z.number().int().min(1).max(512).default(1),
    }),
    paths: [{ field: 'out', access: 'write' }, 'audioRoot'],
    result: null as unknown as ClusterExportSummary,
    summary: 'Write a self-contained Slurm array job folder that extracts embeddings of the chosen datasets with one model',
  },
  'cluster.status': {
    input: z.strictObject({ jobDir: AbsPath }),
    paths: ['jobDir'],
    result: null as unknown as ClusterStatus,
    summary: 'Finished, partial and missing shards of a cluster job folder, from its files alone (the CLI also asks squeue/sacct; the app stays offline)',
  },
  'cluster.import': {
    input: z.strictObject({ projectId: Id, jobDir: AbsPath, wait: z.boolean().default(false) }),
    paths: ['jobDir'],
    result: null as unknown as { jobId: string; summary: ClusterImportSummary | null },
    summary: "Merge a cluster job's finished shards into the project's embedding cache (a job; importing twice changes nothing)",
  },
  'cluster.origins': {
    input: z.strictObject({ projectId: Id, datasetId: Id }),
    result: null as unknown as EmbeddingOrigins,
    summary: "Per model: how many of a dataset's cached embeddings came from cluster jobs, and which",
  },
} as const;
