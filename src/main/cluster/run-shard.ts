/**
 * `cluster run-shard`: one array task. It checks the job folder (manifest and model
 * SHA-256s), checks each recording's SHA-256 against the manifest (a changed or missing
 * file is recorded as a problem, never embedded), and then embeds through the very code
 * `embed` runs (`embedDataset`), into out/K.sqlite.partial. Every finished clip is
 * committed, so a task that is killed resumes where it stopped; only a complete pass
 * renames the file to out/K.sqlite.
 */
import { existsSync, mkdirSync, openSync, closeSync, fsyncSync, renameSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import type Database from 'better-sqlite3';
import { join, resolve } from 'node:path';
import type { ClipProblemKind } from '../../shared/api/cluster';
import { UserError } from '../../shared/errors';
import { sha256File } from '../audio';
import { cachedAudioShas, embedDataset, ensureModel, type EmbedProgress, type EmbedSummary, type ProviderName } from '../inference';
import { inlineContext } from '../jobs/task';
import { VERSION } from '../version';
import { readJob, readManifest, shardOutput, type JobFile, type ShardManifest } from './format';
import {
  beginShardRun,
  closeAsOneFile,
  endShardRun,
  openShardDb,
  readShardDb,
  removeShardClips,
  setShardInfo,
  SHARD_DATASET_ID,
  shardClipAdder,
  shardClipShas,
  shardInfo,
  shardOwner,
  shardProblemClearer,
  shardProblems,
  shardProblemWriter,
} from '../store/shard-db';
import { checkInputFileSync } from '../security/input-file';

export interface RunShardOptions {
  jobDir: string;
  shard: number;
  /** Where the recordings are here; default: where they were at export. */
  audioRoot?: string;
  provider?: ProviderName | 'auto';
  threads?: number;
  /** Seconds between progress lines (0: one per recording). */
  progressEvery?: number;
  log: (line: string) => void;
  /** Polled between recordings: stop after the current one, keeping what is done. */
  cancelled?: () => boolean;
}

export interface RunShardSummary {
  jobId: string;
  shard: number;
  state: 'finished' | 'already-finished';
  output: string;
  clips: number;
  embedded: number;
  computed: number;
  cached: number;
  problems: { relPath: string; kind: ClipProblemKind; detail: string }[];
  provider: string | null;
  audioSeconds: number;
  wallSeconds: number;
}

/** Check every model file of the job against the SHA-256 in job.json. */
async function verifyModelFiles(jobDir: string, job: JobFile): Promise<void> {
  for (const f of job.model.files) {
    const file = join(jobDir, job.model.dir, f.name);
    if (!existsSync(file)) throw new UserError(`${file} is missing: copy the whole job folder`, 'jobDir');
    checkInputFileSync(file, 'model', 'jobDir');
    const sha = await sha256File(file);
    if (sha !== f.sha256) throw new UserError(`${file} differs from the file exported with the job (SHA-256 ${sha.slice(0, 12)}… instead of ${f.sha256.slice(0, 12)}…); copy the job folder again`, 'jobDir');
  }
}

/** The model as this Equivox computes it must be the job's: same id (file hashes) and settings key. */
async function checkModel(jobDir: string, job: JobFile): Promise<void> {
  let manifest;
  try {
    ({ manifest } = await ensureModel(jobDir, job.modelSha256));
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new UserError(
      job.model.builtin
        ? `this Equivox installation cannot load the built-in model "${job.model.name}" (${why}); install Equivox ${job.equivoxVersion} with its packages (npm ci)`
        : `the job's model could not be loaded from ${join(jobDir, job.model.dir)}: ${why}`,
      'jobDir',
    );
  }
  if (manifest.id !== job.modelSha256) throw new UserError(`this Equivox resolves the model to ${manifest.id}, not the job's ${job.modelSha256}`, 'jobDir');
  if (manifest.settingsKey !== job.settingsKey) {
    throw new UserError(
      `this Equivox (${VERSION}) computes "${manifest.settingsKey}" for the model, the job was exported with "${job.settingsKey}" (Equivox ${job.equivoxVersion}): its embeddings would not match; install Equivox ${job.equivoxVersion} on the nodes`,
      'jobDir',
    );
  }
}

function schedulerJob(): string | null {
  const e = process.env;
  if (e.SLURM_ARRAY_JOB_ID && e.SLURM_ARRAY_TASK_ID) return `${e.SLURM_ARRAY_JOB_ID}_${e.SLURM_ARRAY_TASK_ID}`;
  return e.SLURM_JOB_ID ?? null;
}

function threadsFor(o: RunShardOptions, job: JobFile): number {
  if (o.threads !== undefined) return o.threads;
  const slurm = Number(process.env.SLURM_CPUS_PER_TASK);
  if (Number.isInteger(slurm) && slurm > 0) return slurm;
  return job.resources.cpusPerTask;
}

/**
 * Claim the shard database for this job (refusing another job's), record this run (host,
 * Slurm ids) and make the shard a dataset, so embedDataset runs over it exactly as over a
 * project's. Returns the run's row id.
 */
function startRun(db: Database.Database, jobDir: string, job: JobFile, shard: number, file: string): number {
  const owner = shardOwner(db);
  if (owner !== undefined && owner !== job.jobId) throw new UserError(`${file} belongs to job ${owner}, not ${job.jobId}; move it away and run again`, 'jobDir');
  const now = new Date().toISOString();
  return beginShardRun(
    db,
    { jobId: job.jobId, shard, modelSha256: job.modelSha256, settingsKey: job.settingsKey },
    { name: `${job.jobName} shard ${shard}`, sourcePath: join(jobDir, job.shards[shard]!.manifest) },
    { startedAt: now, host: hostname(), schedulerJob: schedulerJob(), equivoxVersion: VERSION },
  );
}

/**
 * The shard's recordings as the clips of its dataset: those already embedded here, and
 * those whose file exists under the audio root with the manifest's SHA-256. A missing or
 * changed file is recorded in shard_problems (and cleared once it is right again).
 */
async function checkRecordings(
  db: Database.Database,
  manifest: ShardManifest,
  audioRoot: string,
  embedded: ReadonlySet<string>,
  say: (m: string) => void,
  cancelled: (() => boolean) | undefined,
): Promise<{ checked: number; relBySha: Map<string, string> }> {
  const stamp = () => new Date().toISOString();
  const problem = shardProblemWriter(db);
  const clearProblem = shardProblemClearer(db);
  const addClip = shardClipAdder(db);
  removeShardClips(db);
  let checked = 0;
  const relBySha = new Map<string, string>();
  for (const [i, c] of manifest.clips.entries()) {
    if (cancelled?.()) break;
    const file = join(audioRoot, ...c.path.split('/'));
    relBySha.set(c.sha256, c.path);
    let ok = embedded.has(c.sha256);
    if (!ok) {
      if (!existsSync(file)) {
        problem(c.sha256, c.path, 'missing-file', `no file at ${file}`, stamp());
        say(`${c.path}: missing (no file at ${file}); not embedded`);
      } else {
        const actual = await sha256File(file);
        if (actual !== c.sha256) {
          problem(c.sha256, c.path, 'sha256-mismatch', `the file's SHA-256 is ${actual}, the manifest says ${c.sha256}: it changed after export`, stamp());
          say(`${c.path}: SHA-256 mismatch (the audio changed after export); not embedded`);
        } else ok = true;
      }
    }
    if (ok) {
      clearProblem(c.sha256);
      addClip({ id: `${SHARD_DATASET_ID}-${i}`, rowIndex: i + 1, path: file, relPath: c.path, sha256: c.sha256, durationS: c.durationS });
    }
    checked += 1;
  }
  return { checked, relBySha };
}

/** Progress lines for logs: the first clip, then at most one every `seconds`, and the last. */
function progressLines(say: (m: string) => void, seconds: number): (p: EmbedProgress) => void {
  let last = 0;
  let lastDone = -1;
  return (p) => {
    const now = Date.now();
    if (p.done === lastDone || (p.done !== p.total && p.done !== 1 && now - last < seconds * 1000)) return;
    last = now;
    lastDone = p.done;
    const rate = p.audioSecondsPerSecond !== null ? `, ${p.audioSecondsPerSecond.toFixed(1)} audio s/s` : '';
    const eta = p.etaSeconds !== null && p.done < p.total ? `, about ${Math.ceil(p.etaSeconds)} s left` : '';
    say(`${p.done}/${p.total} clips (${p.computed} computed, ${p.cached} cached, ${p.failed} failed${rate}${eta})`);
  };
}

/** Close the database so that one file holds everything (no -wal), then rename it into place. */
function finishFile(db: ReturnType<typeof openShardDb>, partial: string, final: string): void {
  closeAsOneFile(db);
  const fd = openSync(partial, 'r');
  fsyncSync(fd);
  closeSync(fd);
  renameSync(partial, final);
}

export async function runShard(o: RunShardOptions): Promise<RunShardSummary> {
  const t0 = performance.now();
  const jobDir = resolve(o.jobDir);
  const job = readJob(jobDir);
  const manifest = readManifest(jobDir, job, o.shard);
  const label = `shard ${o.shard} of ${job.shardCount} (job ${job.jobName})`;
  const stamp = () => new Date().toISOString();
  const say = (m: string) => o.log(`${stamp()} equivox ${label}: ${m}`);
  if (job.equivoxVersion !== VERSION) say(`note: exported with Equivox ${job.equivoxVersion}, running ${VERSION}; the settings key is checked below`);

  const out = shardOutput(jobDir, o.shard);
  mkdirSync(out.dir, { recursive: true });
  if (existsSync(out.final)) {
    const done = readShardDb(out.final);
    const owner = shardInfo(done);
    const left = shardProblems(done);
    done.close();
    if (owner.job_id !== job.jobId || owner.shard !== String(o.shard)) {
      throw new UserError(`${out.final} belongs to job ${owner.job_id ?? '?'} shard ${owner.shard ?? '?'}, not to this job's shard ${o.shard}; move it away and run again`, 'jobDir');
    }
    if (left.length === 0) {
      say(`already finished (${out.final}); nothing to do`);
      return { jobId: job.jobId, shard: o.shard, state: 'already-finished', output: out.final, clips: manifest.clips.length, embedded: manifest.clips.length, computed: 0, cached: manifest.clips.length, problems: [], provider: null, audioSeconds: 0, wallSeconds: (performance.now() - t0) / 1000 };
    }
    // Finished with problems: look at those recordings again (their files may be fixed now).
    say(`finished earlier with ${left.length} problem(s); checking those recordings again`);
    renameSync(out.final, out.partial);
  }

  const audioRoot = resolve(o.audioRoot ?? job.audioRoot);
  if (!existsSync(audioRoot) || !statSync(audioRoot).isDirectory()) {
    throw new UserError(`the audio folder ${audioRoot} does not exist here; copy the recordings and give their folder with --audio-root (or EQUIVOX_AUDIO_ROOT)`, 'audioRoot');
  }
  await verifyModelFiles(jobDir, job);
  await checkModel(jobDir, job);

  const db = openShardDb(out.partial);
  let finished = false;
  try {
    const run = startRun(db, jobDir, job, o.shard, out.partial);
    const embedded = cachedAudioShas(db, job.modelSha256, job.settingsKey);
    const { checked, relBySha } = await checkRecordings(db, manifest, audioRoot, embedded, say, o.cancelled);
    say(`checked ${checked} recording(s) under ${audioRoot}; ${embedded.size} already embedded here`);

    const summary: EmbedSummary = await embedDataset(
      db,
      { dataDir: jobDir, datasetId: SHARD_DATASET_ID, model: job.modelSha256, provider: o.provider ?? 'auto', threads: threadsFor(o, job) },
      inlineContext(() => {}, () => o.cancelled?.() ?? false),
      progressLines(say, o.progressEvery ?? 10),
    );
    const shaById = shardClipShas(db);
    const problem = shardProblemWriter(db);
    for (const f of summary.failed) {
      const sha = shaById.get(f.clipId)!;
      problem(sha, relBySha.get(sha) ?? f.path, 'decode-failed', f.error, stamp());
      say(`${relBySha.get(sha) ?? f.path}: could not be decoded (${f.error}); not embedded`);
    }
    endShardRun(db, run, { finishedAt: stamp(), provider: summary.provider, computed: summary.computed, cached: summary.cached, failed: summary.failed.length });
    if (checked < manifest.clips.length) throw new UserError('stopped before every recording was checked; run the shard again to resume', 'shard');
    setShardInfo(db, 'finished_at', stamp());
    const left = shardProblems(db);
    const count = cachedAudioShas(db, job.modelSha256, job.settingsKey).size;
    finishFile(db, out.partial, out.final);
    finished = true;
    const wall = (performance.now() - t0) / 1000;
    say(`finished: ${count} of ${manifest.clips.length} recordings embedded (${summary.computed} now), ${left.length} problem(s), ${wall.toFixed(1)} s; wrote ${out.final}`);
    return {
      jobId: job.jobId,
      shard: o.shard,
      state: 'finished',
      output: out.final,
      clips: manifest.clips.length,
      embedded: count,
      computed: summary.computed,
      cached: summary.cached,
      problems: left.map((p) => ({ relPath: p.relPath, kind: p.kind, detail: p.detail })),
      provider: summary.provider,
      audioSeconds: summary.audioSeconds,
      wallSeconds: wall,
    };
  } finally {
    if (!finished && db.open) db.close();
  }
}
