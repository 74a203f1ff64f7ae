/**
 * `cluster export`: write a self-contained, movable job folder for one model and the
 * chosen datasets. Recordings whose embeddings the project already holds (same audio,
 * model and settings keys) are left out; the rest are split into shards of about equal
 * audio duration. The folder is assembled beside its destination and renamed into place,
 * so a half-written job never appears.
 */
import { randomUUID } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, rmdirSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type Database from 'better-sqlite3';
import type { ClusterExportSummary } from '../../shared/api/cluster';
import { UserError } from '../../shared/errors';
import { sha256File } from '../audio';
import { cachedAudioShas, datasetClips, ensureModel, isRunnableFile, modelsDir, type ModelGraphs, type ModelManifest } from '../inference';
import { isEqualOrInside, relativeInside, samePath } from '../paths/same-path';
import { datasetNameAndRole } from '../store/cluster-inputs';
import { insertClusterJob } from '../store/cluster-jobs';
import { recordEvent } from '../store/events';
import { projectIdentity } from '../store/project-row';
import { VERSION } from '../version';
import { balanceShards } from './balance';
import { FORMAT_VERSION, JOB_FILE, JOB_FORMAT, SHARD_FORMAT, sha256Hex, type JobFile, type ShardManifest } from './format';
import { equivoxInvocation } from './invocation';
import { readmeText, runLocalScript, submitScript } from './scripts';

export interface ExportOptions {
  datasetIds: string[];
  /** Model id, unique prefix or built-in alias. */
  model: string;
  shards: number;
  /** The job folder to create (new, or an existing empty folder). */
  out: string;
  audioRoot?: string;
  partition?: string;
  time?: string;
  gpusPerTask?: number;
  /** CPUs each array task asks for; run-shard runs onnxruntime with as many threads. */
  cpusPerTask: number;
}

interface ExportClip {
  path: string;
  sha256: string;
  durationS: number | null;
}

/** The deepest folder holding every file (folder names compared as paths/same-path.ts does). */
export function commonFolder(files: readonly string[]): string {
  let parts = dirname(files[0]!).split(sep);
  for (const f of files.slice(1)) {
    const p = dirname(f).split(sep);
    let k = 0;
    while (k < parts.length && k < p.length && samePath(parts.slice(0, k + 1).join(sep) || sep, p.slice(0, k + 1).join(sep) || sep)) k += 1;
    parts = parts.slice(0, k);
  }
  return parts.join(sep) || sep;
}

function toManifestPath(root: string, file: string): string {
  return (relativeInside(root, file) ?? relative(root, file)).split(sep).join('/');
}

/** Copy the model's files into the job: an imported model as its model-store folder, a built-in one as a record. */
async function copyModel(dataDir: string, manifest: ModelManifest, graphs: ModelGraphs, target: string): Promise<{ dir: string; files: JobFile['model']['files'] }> {
  const dir = manifest.builtin ? `models/builtin-${manifest.alias ?? manifest.family}` : `models/${manifest.id}`;
  const to = join(target, dir);
  mkdirSync(to, { recursive: true });
  if (manifest.builtin) {
    // Built-in models ship with Equivox itself; run-shard uses the node's copy after
    // checking its id (the SHA-256 of these files) equals the job's.
    for (const f of manifest.files) copyFileSync(f.path, join(to, basename(f.path)));
    if (manifest.exposure.derivedSha256) {
      // The store may hand the derived graph as bytes or as the path of its file.
      if (typeof graphs.main === 'string') copyFileSync(graphs.main, join(to, 'derived.onnx'));
      else writeFileSync(join(to, 'derived.onnx'), graphs.main);
    }
    writeFileSync(join(to, 'manifest.json'), JSON.stringify(manifest, null, 2));
  } else {
    // The same layout as the Equivox model store, so run-shard finds it with the job folder as its data folder.
    const from = join(modelsDir(dataDir), manifest.id);
    // The runnable form is a cache the node writes for itself (inference/runnable-graph.ts): not shipped twice.
    for (const name of readdirSync(from)) if (!isRunnableFile(name) && statSync(join(from, name)).isFile()) copyFileSync(join(from, name), join(to, name));
  }
  const files: JobFile['model']['files'] = [];
  for (const name of readdirSync(to).sort()) {
    files.push({ name, sha256: await sha256File(join(to, name)), bytes: statSync(join(to, name)).size });
  }
  return { dir, files };
}

export async function exportJob(db: Database.Database, dataDir: string, o: ExportOptions): Promise<ClusterExportSummary> {
  const { manifest, graphs } = await ensureModel(dataDir, o.model);
  if (manifest.task === 'asr' || manifest.dims.length === 0) throw new UserError(`${manifest.name} is a speech recogniser: it has no embeddings to extract`, 'modelId');
  const project = projectIdentity(db);

  // Recordings of the chosen datasets, the same selection `embed` uses, distinct by audio.
  const datasets: JobFile['datasets'] = [];
  const bySha = new Map<string, ExportClip>();
  for (const id of [...new Set(o.datasetIds)]) {
    const clips = datasetClips(db, id);
    const ds = datasetNameAndRole(db, id);
    datasets.push({ id, name: ds.name, role: ds.role, clips: clips.length });
    for (const c of clips) {
      if (!isAbsolute(c.path)) throw new UserError(`row path ${c.path} of dataset ${ds.name} is not absolute; import the dataset again`, 'datasetIds');
      let sha = c.sha256;
      if (!sha) {
        if (!existsSync(c.path)) throw new UserError(`${c.path} (dataset ${ds.name}) cannot be found`, 'datasetIds');
        sha = await sha256File(c.path);
      }
      if (!bySha.has(sha)) bySha.set(sha, { path: c.path, sha256: sha, durationS: c.duration_s });
    }
  }
  const have = cachedAudioShas(db, manifest.id, manifest.settingsKey);
  const clips = [...bySha.values()].filter((c) => !have.has(c.sha256));
  const alreadyCached = bySha.size - clips.length;
  if (clips.length === 0) {
    throw new UserError(
      bySha.size === 0 ? 'the chosen datasets have no usable recordings' : `every recording of the chosen datasets already has embeddings for ${manifest.name}; there is nothing to run on a cluster`,
      'datasetIds',
    );
  }
  if (o.shards > clips.length) throw new UserError(`${o.shards} shards for ${clips.length} recordings: choose at most ${clips.length}`, 'shards');

  const audioRoot = o.audioRoot ? resolve(o.audioRoot) : commonFolder(clips.map((c) => c.path));
  const outside = clips.find((c) => !isEqualOrInside(c.path, audioRoot));
  if (outside) throw new UserError(`${outside.path} is not inside the audio folder ${audioRoot}; choose a folder that holds every recording`, 'audioRoot');

  const out = resolve(o.out);
  if (existsSync(out)) {
    if (!statSync(out).isDirectory()) throw new UserError(`${out} is a file; choose a new or empty folder for the job`, 'out');
    if (readdirSync(out).length > 0) throw new UserError(`${out} is not empty; choose a new or empty folder for the job`, 'out');
  } else if (!existsSync(dirname(out))) throw new UserError(`the folder ${dirname(out)} does not exist`, 'out');

  const jobId = randomUUID();
  const jobName = `equivox-${jobId.slice(0, 8)}`;
  const staging = `${out}.partial-${process.pid}-${jobId.slice(0, 8)}`;
  mkdirSync(staging);
  try {
    for (const d of ['manifests', 'logs', 'out']) mkdirSync(join(staging, d));
    const groups = balanceShards(
      clips.map((c) => c.durationS),
      o.shards,
    );
    const shards: JobFile['shards'] = [];
    groups.forEach((members, shard) => {
      const m: ShardManifest = {
        format: SHARD_FORMAT,
        formatVersion: FORMAT_VERSION,
        jobId,
        shard,
        clips: members.map((i) => ({ path: toManifestPath(audioRoot, clips[i]!.path), sha256: clips[i]!.sha256, durationS: clips[i]!.durationS })),
      };
      const rel = `manifests/shard-${shard}.json`;
      const text = `${JSON.stringify(m, null, 1)}\n`;
      writeFileSync(join(staging, rel), text);
      shards.push({ shard, manifest: rel, sha256: sha256Hex(text), clips: members.length, audioSeconds: members.reduce((s, i) => s + (clips[i]!.durationS ?? 0), 0) });
    });
    const model = await copyModel(dataDir, manifest, graphs, staging);
    const cli = equivoxInvocation();
    const job: JobFile = {
      format: JOB_FORMAT,
      formatVersion: FORMAT_VERSION,
      jobId,
      jobName,
      createdAt: new Date().toISOString(),
      equivoxVersion: VERSION,
      modelSha256: manifest.id,
      settingsKey: manifest.settingsKey,
      shardCount: o.shards,
      clips: clips.length,
      audioSeconds: clips.reduce((s, c) => s + (c.durationS ?? 0), 0),
      audioRoot,
      project,
      datasets,
      model: { name: manifest.name, alias: manifest.alias, builtin: manifest.builtin, family: manifest.family, dims: manifest.dims, ...model },
      shards,
      resources: { cpusPerTask: o.cpusPerTask, gpusPerTask: o.gpusPerTask ?? null, partition: o.partition ?? null, time: o.time ?? null },
      cli,
    };
    writeFileSync(join(staging, JOB_FILE), `${JSON.stringify(job, null, 2)}\n`);
    writeFileSync(join(staging, 'submit.sbatch'), submitScript(job));
    writeFileSync(join(staging, 'run-local.sh'), runLocalScript(job));
    chmodSync(join(staging, 'submit.sbatch'), 0o755);
    chmodSync(join(staging, 'run-local.sh'), 0o755);
    writeFileSync(join(staging, 'README.txt'), readmeText(job));
    // An empty folder the auditor chose is replaced by the finished job.
    if (existsSync(out)) rmdirSync(out);
    renameSync(staging, out);

    const now = new Date().toISOString();
    db.transaction(() => {
      insertClusterJob(db, {
        id: jobId,
        name: jobName,
        model_sha256: manifest.id,
        settings_key: manifest.settingsKey,
        shards: o.shards,
        clips: clips.length,
        job_dir: out,
        datasets_json: JSON.stringify(datasets),
        created_at: now,
      });
      recordEvent(
        db,
        'cluster.export',
        { jobId, model: manifest.id, settingsKey: manifest.settingsKey, shards: o.shards, clips: clips.length, datasets: datasets.map((d) => d.id), jobDir: out },
        now,
      );
    })();
    return {
      jobId,
      jobDir: out,
      jobName,
      modelId: manifest.id,
      modelName: manifest.name,
      settingsKey: manifest.settingsKey,
      clips: clips.length,
      alreadyCached,
      audioSeconds: job.audioSeconds,
      audioRoot,
      shards: shards.map((s) => ({ shard: s.shard, clips: s.clips, audioSeconds: s.audioSeconds })),
      resources: { cpusPerTask: o.cpusPerTask, gpusPerTask: o.gpusPerTask ?? null },
      cli: { kind: cli.kind, command: cli.command },
    };
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    throw err;
  }
}
