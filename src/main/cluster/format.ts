/**
 * The job folder's files: job.json, one manifest per shard, and where each shard's
 * output goes. Both JSON files are validated on every read (a job folder comes back from
 * a machine we do not control), and each manifest's SHA-256 is checked against job.json
 * so an edited manifest is refused rather than silently embedded.
 */
import { createHash } from 'node:crypto';
import { isAbsolute, join } from 'node:path';
import { z } from 'zod';
import { UserError } from '../../shared/errors';
import { checkInputFolder, inputExists, readInputFileSync } from '../security/input-file';
import { quoteUserText } from '../../shared/quote';

export const JOB_FILE = 'job.json';
export const JOB_FORMAT = 'equivox-cluster-job';
export const SHARD_FORMAT = 'equivox-cluster-shard';
export const FORMAT_VERSION = 1;

const Sha = z.string().regex(/^[0-9a-f]{64}$/, 'must be a SHA-256 in hex');
/** A path inside the job folder or under the audio root: relative, '/'-separated, no '..'. */
const RelPath = z
  .string()
  .min(1)
  .max(4096)
  .refine((p) => !isAbsolute(p) && !/^[A-Za-z]:/.test(p) && !p.includes('\\') && !p.split('/').includes('..') && !p.includes('\0'), 'must be a relative path without ".."');

export const JobFile = z.object({
  format: z.literal(JOB_FORMAT),
  formatVersion: z.literal(FORMAT_VERSION),
  jobId: z.uuid(),
  jobName: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/),
  createdAt: z.string(),
  equivoxVersion: z.string(),
  modelSha256: Sha,
  settingsKey: z.string().min(1),
  shardCount: z.number().int().min(1),
  clips: z.number().int().min(1),
  audioSeconds: z.number().min(0),
  /** Where the audio was on the exporting computer; run-shard's default audio root. */
  audioRoot: z.string(),
  project: z.object({ id: z.string(), name: z.string() }),
  datasets: z.array(z.object({ id: z.string(), name: z.string(), role: z.string(), clips: z.number().int() })),
  model: z.object({
    name: z.string(),
    alias: z.string().nullable(),
    builtin: z.boolean(),
    family: z.string(),
    dims: z.array(z.number().int().positive()),
    /** Folder in the job holding the model's files. */
    dir: RelPath,
    files: z.array(z.object({ name: RelPath, sha256: Sha, bytes: z.number().int().min(0) })).min(1),
  }),
  shards: z.array(z.object({ shard: z.number().int().min(0), manifest: RelPath, sha256: Sha, clips: z.number().int().min(1), audioSeconds: z.number().min(0) })),
  resources: z.object({
    cpusPerTask: z.number().int().min(1),
    gpusPerTask: z.number().int().min(1).nullable(),
    partition: z.string().nullable(),
    time: z.string().nullable(),
  }),
  cli: z.object({ kind: z.enum(['bundled', 'checkout', 'unknown']), command: z.array(z.string()), checkout: z.string().nullable() }),
});
export type JobFile = z.infer<typeof JobFile>;

export const ShardManifest = z.object({
  format: z.literal(SHARD_FORMAT),
  formatVersion: z.literal(FORMAT_VERSION),
  jobId: z.uuid(),
  shard: z.number().int().min(0),
  clips: z.array(z.object({ path: RelPath, sha256: Sha, durationS: z.number().min(0).nullable() })).min(1),
});
export type ShardManifest = z.infer<typeof ShardManifest>;

export function sha256Hex(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function issuesText(err: z.ZodError): string {
  return err.issues
    .slice(0, 3)
    .map((i) => `${i.path.join('.') || '(top)'}: ${i.message}`)
    .join('; ');
}

/** job.json of a job folder, validated; the errors name the file and the field. */
export function readJob(jobDir: string): JobFile {
  checkInputFolder(jobDir, 'jobDir', 'cluster job folder');
  const file = join(jobDir, JOB_FILE);
  if (!inputExists(file)) throw new UserError(`${jobDir} is not an Equivox cluster job folder: it has no ${JOB_FILE}`, 'jobDir');
  // A FIFO or a device in place of job.json is refused, not waited on (security/input-file.ts).
  const text = readInputFileSync(file, 'job-file', 'jobDir').toString('utf8');
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new UserError(`${file} is not valid JSON: ${quoteUserText(err instanceof Error ? err.message : String(err))}`, 'jobDir');
  }
  if ((raw as { format?: unknown })?.format === JOB_FORMAT && (raw as { formatVersion?: unknown }).formatVersion !== FORMAT_VERSION) {
    throw new UserError(`${file} has format version ${String((raw as { formatVersion?: unknown }).formatVersion)}; this Equivox reads version ${FORMAT_VERSION}`, 'jobDir');
  }
  const parsed = JobFile.safeParse(raw);
  if (!parsed.success) throw new UserError(`${file} is not a valid Equivox job description: ${issuesText(parsed.error)}`, 'jobDir');
  const job = parsed.data;
  if (job.shards.length !== job.shardCount || job.shards.some((s, i) => s.shard !== i)) {
    throw new UserError(`${file}: shards must be listed 0..${job.shardCount - 1} in order`, 'jobDir');
  }
  return job;
}

/** Shard K's manifest, checked against the SHA-256 recorded in job.json. */
export function readManifest(jobDir: string, job: JobFile, shard: number): ShardManifest {
  const entry = job.shards[shard];
  if (!entry) throw new UserError(`shard ${shard} does not exist: this job has shards 0..${job.shardCount - 1}`, 'shard');
  const file = join(jobDir, entry.manifest);
  if (!inputExists(file)) throw new UserError(`${file} is missing: the job folder is incomplete`, 'jobDir');
  const bytes = readInputFileSync(file, 'job-file', 'jobDir');
  if (sha256Hex(bytes) !== entry.sha256) throw new UserError(`${file} was changed after export (its SHA-256 differs from job.json); export the job again`, 'jobDir');
  let raw: unknown;
  try {
    raw = JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    throw new UserError(`${file} is not valid JSON: ${quoteUserText(err instanceof Error ? err.message : String(err))}`, 'jobDir');
  }
  const parsed = ShardManifest.safeParse(raw);
  if (!parsed.success) throw new UserError(`${file} is not a valid shard manifest: ${issuesText(parsed.error)}`, 'jobDir');
  if (parsed.data.jobId !== job.jobId || parsed.data.shard !== shard) throw new UserError(`${file} belongs to job ${parsed.data.jobId} shard ${parsed.data.shard}, not to this job's shard ${shard}`, 'jobDir');
  return parsed.data;
}

/** Where shard K's finished output lives, and the file it is written in until then. */
export function shardOutput(jobDir: string, shard: number): { dir: string; final: string; partial: string } {
  const dir = join(jobDir, 'out');
  const final = join(dir, `${shard}.sqlite`);
  return { dir, final, partial: `${final}.partial` };
}
