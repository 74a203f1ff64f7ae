/**
 * Cluster jobs: embedding extraction handed to a scheduler and merged back. `export`
 * writes a self-contained job folder (job.json, one manifest per shard with audio paths
 * relative to an audio root and their SHA-256s, the model files, submit.sbatch for a
 * Slurm array job, run-local.sh, README.txt); `run-shard` runs one shard on a node
 * through the same embedding code as `embed` and writes out/K.sqlite atomically and
 * resumably; `status` reads the folder (and squeue/sacct where present); `import` merges
 * finished shards into the project's content-keyed cache with INSERT OR IGNORE and
 * records where each merged row came from. The scheduler is an existing engine: Equivox
 * adds no daemon, queue or network protocol, and the audit itself only reads the cache.
 */
export { balanceShards } from './balance';
export { exportJob, type ExportOptions } from './export';
export { JOB_FILE, readJob, readManifest, shardOutput, type JobFile, type ShardManifest } from './format';
export { importJob } from './import';
export { equivoxInvocation, type Invocation } from './invocation';
export { embeddingOrigins } from './origins';
export { runShard, type RunShardOptions, type RunShardSummary } from './run-shard';
export { schedulerView } from './scheduler';
export { jobStatus, shardStatus } from './status';
export { clusterImportTask, type ClusterImportTaskInput } from './task';
