/**
 * Cluster jobs without a scheduler: what `cluster export` writes (checked by opening the
 * files and hashing the audio independently), run-local.sh on a moved job folder with an
 * imported model (so the model must come from the job folder, not the data folder), a
 * recording changed after export (recorded, named by `cluster import`, fixed by a re-run),
 * and clear refusals for a tampered job folder. About 40 s on 2 cores.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterExportSummary, ClusterImportSummary, ClusterStatus } from '../../../src/shared/api/cluster';
import { createApi } from '../../../src/main/api';
import { embeddingOrigins, exportJob, importJob, jobStatus, readJob, readManifest, runShard } from '../../../src/main/cluster';
import { createEngine } from '../../../src/main/engine';
import { embedDataset } from '../../../src/main/inference/embed';
import { importModel } from '../../../src/main/inference/models';
import { inlineContext } from '../../../src/main/jobs/task';
import { openDatabase } from '../../../src/main/store/open';
import { PROJECT_FILE } from '../../../src/main/store/projects';
import { projectMigrations } from '../../../src/main/store/schema';
import { VERSION } from '../../../src/main/version';
import { writeFixtures } from '../../fixtures/models/build';
import { cli, copyProject, demoTargetProject, embeddingRows, ok, removeTempDirs, tempDir } from './helpers';

let home: string;
let pristine: string;
let datasetId: string;
let modelId: string;
let settingsKey: string;
/** Project clips: absolute path, SHA-256 of the file as imported, duration. */
let clips: { path: string; sha256: string; duration_s: number; row_index: number }[];

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

beforeAll(async () => {
  home = tempDir('home');
  const fx = writeFixtures(tempDir('fixtures'));
  const m = await importModel(home, { file: fx.wav2vec2! });
  modelId = m.id;
  settingsKey = m.settingsKey;
  const made = await demoTargetProject(home, join(tempDir('pristine'), 'project'));
  pristine = made.dir;
  datasetId = made.datasetId;
  const db = new Database(join(pristine, PROJECT_FILE), { readonly: true });
  clips = db.prepare('SELECT path, sha256, duration_s, row_index FROM clips WHERE dataset_id = ? ORDER BY row_index').all(datasetId) as typeof clips;
  db.close();
}, 120_000);

afterAll(removeTempDirs);

describe('cluster export', () => {
  it('writes a self-contained job: job.json, balanced manifests with the files’ SHA-256, the model, submit.sbatch and run-local.sh', async () => {
    const project = await copyProject(pristine, tempDir('export'), home);
    const out = join(tempDir('job'), 'job');
    const args = ['cluster', 'export', '--project', project, '--dataset', datasetId, '--model', modelId, '--shards', '3', '--out', out];
    const r = ok<ClusterExportSummary>(await cli([...args, '--partition', 'gpu', '--time', '01:30:00', '--gpus-per-task', '1', '--cpus-per-task', '2'], home));
    expect(r).toMatchObject({ jobDir: out, clips: 48, alreadyCached: 0, modelId, settingsKey });

    const job = readJob(out);
    expect(job).toMatchObject({ formatVersion: 1, modelSha256: modelId, settingsKey, equivoxVersion: VERSION, shardCount: 3, clips: 48 });
    expect(VERSION).toBe((JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version);

    // Every recording exactly once, by its path under the audio root and its SHA-256,
    // hashed here independently of the importer.
    const listed = [0, 1, 2].flatMap((k) => readManifest(out, job, k).clips);
    expect(listed.map((c) => c.path).sort()).toEqual(clips.map((c) => relative(job.audioRoot, c.path)).sort());
    for (const c of listed) expect(c.sha256, c.path).toBe(sha256(join(job.audioRoot, c.path)));

    // Balanced by duration: no two shards further apart than the longest recording.
    const totals = [0, 1, 2].map((k) => readManifest(out, job, k).clips.reduce((s, c) => s + c.durationS!, 0));
    const longest = Math.max(...clips.map((c) => c.duration_s));
    expect(Math.max(...totals) - Math.min(...totals)).toBeLessThanOrEqual(longest);
    expect(totals.reduce((a, b) => a + b)).toBeCloseTo(clips.reduce((s, c) => s + c.duration_s, 0), 6);

    // The imported model in the model store's layout, hashes as recorded.
    expect(job.model.dir).toBe(`models/${modelId}`);
    expect(sha256(join(out, job.model.dir, 'model.onnx'))).toBe(modelId);
    for (const f of job.model.files) expect(sha256(join(out, job.model.dir, f.name))).toBe(f.sha256);
    expect(job.model.files.map((f) => f.name)).toEqual(expect.arrayContaining(['derived.onnx', 'manifest.json', 'model.onnx']));
    // The store's runnable form is a cache the node writes for itself (inference/runnable-graph.ts), not shipped.
    expect(existsSync(join(home, 'models', modelId, 'runnable.onnx'))).toBe(true);
    expect(job.model.files.map((f) => f.name).filter((n) => n.startsWith('runnable.'))).toEqual([]);

    const submit = readFileSync(join(out, 'submit.sbatch'), 'utf8');
    for (const line of ['#SBATCH --array=0-2', '#SBATCH --cpus-per-task=2', '#SBATCH --gpus-per-task=1', '#SBATCH --partition=gpu', '#SBATCH --time=01:30:00', `#SBATCH --job-name=${job.jobName}`, 'export ORT_DISABLE_TELEMETRY=1']) {
      expect(submit.split('\n'), line).toContain(line);
    }
    expect(submit).toContain('cluster run-shard --job "$JOB_DIR" --shard "$SLURM_ARRAY_TASK_ID"');
    const local = readFileSync(join(out, 'run-local.sh'), 'utf8');
    expect(local.split('\n')).toContain('export ORT_DISABLE_TELEMETRY=1');
    for (const script of ['submit.sbatch', 'run-local.sh']) expect(spawnSync('bash', ['-n', join(out, script)]).status, script).toBe(0);
    expect(readFileSync(join(out, 'README.txt'), 'utf8')).toContain('sbatch --array=2 submit.sbatch');
    expect(readdirSync(out).sort()).toEqual(['README.txt', 'job.json', 'logs', 'manifests', 'models', 'out', 'run-local.sh', 'submit.sbatch']);

    // The project records the export; a second export into the same folder is refused.
    const db = new Database(join(project, PROJECT_FILE), { readonly: true });
    expect(db.prepare('SELECT id, shards, clips FROM cluster_jobs').all()).toEqual([{ id: job.jobId, shards: 3, clips: 48 }]);
    db.close();
    const again = await cli(args, home);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`${out} is not empty; choose a new or empty folder for the job`);
  });
});

describe('running a job without a scheduler', () => {
  it('run-local.sh on a moved job: a recording changed after export is recorded, import names it, a re-run with the file restored completes', { timeout: 240_000 }, async () => {
    const project = await copyProject(pristine, tempDir('local'), home);
    const exported = join(tempDir('job'), 'job');
    const r = ok<ClusterExportSummary>(await cli(['cluster', 'export', '--project', project, '--dataset', datasetId, '--model', modelId, '--shards', '2', '--cpus-per-task', '1', '--out', exported], home));
    // The job and the audio move to "the cluster"; one recording is changed there.
    const job = join(tempDir('cluster'), 'job');
    renameSync(exported, job);
    const audio = join(tempDir('cluster-audio'), 'audio');
    cpSync(r.audioRoot, audio, { recursive: true });
    const changed = readManifest(job, readJob(job), 1).clips[0]!;
    appendFileSync(join(audio, changed.path), Buffer.from([0]));
    const run = spawnSync('bash', [join(job, 'run-local.sh')], { env: { ...process.env, EQUIVOX_AUDIO_ROOT: audio, EQUIVOX_HOME: tempDir('node-home') }, encoding: 'utf8', timeout: 200_000 });
    expect(run.status, run.stderr.slice(-3000)).toBe(0);
    expect(run.stderr).toContain(`${changed.path}: SHA-256 mismatch (the audio changed after export); not embedded`);
    // The node's own data folder was empty: the model came from the job folder.
    expect(existsSync(join(job, 'out', '1.sqlite'))).toBe(true);

    // squeue and sacct stand-ins that record being asked: the CLI (on a login node) asks
    // them; the app's cluster.status never does (it stays offline).
    const bin = tempDir('bin');
    const asked = join(bin, 'asked.log');
    writeFileSync(join(bin, 'squeue'), `#!/bin/sh\necho "squeue $*" >> ${asked}\nprintf '77_1|RUNNING|0:05|None|debug|1|0|N/A|vm\\n77_2|PENDING|0:00|Resources|debug|1|0|N/A|\\n'\n`, { mode: 0o755 });
    writeFileSync(join(bin, 'sacct'), `#!/bin/sh\necho "sacct $*" >> ${asked}\necho "Slurm accounting storage is disabled"\n`, { mode: 0o755 });
    const st = ok<ClusterStatus>(await cli(['cluster', 'status', '--job', job], home, { PATH: `${bin}:${process.env.PATH ?? ''}` }));
    expect(st).toMatchObject({ finished: 2, partial: 0, missing: 0, clips: 48, embedded: 47, problems: 1 });
    const jobName = readJob(job).jobName;
    expect(st.scheduler).toEqual([
      {
        tool: 'squeue',
        ok: true,
        tasks: [
          { id: '77_1', state: 'RUNNING', detail: 'running for 0:05 on vm' },
          {
            id: '77_2',
            state: 'PENDING',
            detail: 'pending (Resources): waiting for free resources: the nodes it fits on are busy. It starts when enough CPUs, GPUs and memory are free.',
            reason: { code: 'Resources', words: 'waiting for free resources: the nodes it fits on are busy. It starts when enough CPUs, GPUs and memory are free.', blocked: false },
          },
        ],
      },
      { tool: 'sacct', ok: false, message: 'Slurm accounting storage is disabled', tasks: [] },
    ]);
    expect(readFileSync(asked, 'utf8')).toContain(`squeue --noheader --array --name=${jobName}`);
    rmSync(asked);
    const engine = createEngine({ host: 'cli', dataDir: home });
    const pathBefore = process.env.PATH;
    process.env.PATH = `${bin}:${pathBefore ?? ''}`;
    try {
      const viaApi = await createApi(engine).invoke('cluster.status', { jobDir: job });
      expect(viaApi).toMatchObject({ finished: 2, embedded: 47, problems: 1, scheduler: [] });
      expect(existsSync(asked)).toBe(false);
    } finally {
      process.env.PATH = pathBefore;
      await engine.close();
    }

    const imp = await cli(['cluster', 'import', '--project', project, '--job', job], home);
    const summary = ok<ClusterImportSummary>(imp);
    expect(summary).toMatchObject({ merged: 47, problems: 1, missing: 0, complete: false });
    const original = clips.find((c) => c.sha256 === changed.sha256)!;
    expect(summary.shards[1]!.problems).toEqual([
      {
        shard: 1,
        relPath: changed.path,
        sha256: changed.sha256,
        kind: 'sha256-mismatch',
        detail: `the file's SHA-256 is ${sha256(join(audio, changed.path))}, the manifest says ${changed.sha256}: it changed after export`,
        clips: [{ datasetId, datasetName: 'Demo target speech (accent x gender x rate)', row: original.row_index, path: original.path }],
      },
    ]);
    expect(imp.stderr).toContain(`${original.path} (dataset "Demo target speech (accent x gender x rate)", row ${original.row_index}): SHA-256 mismatch`);

    // The merged vectors equal embedDataset run here with the same thread count.
    const reference = await copyProject(pristine, tempDir('reference'), home);
    const refDb = openDatabase(join(reference, PROJECT_FILE), projectMigrations);
    await embedDataset(refDb, { dataDir: home, datasetId, model: modelId, provider: 'cpu', threads: 1 }, inlineContext());
    refDb.close();
    const want = embeddingRows(join(reference, PROJECT_FILE), modelId);
    const got = embeddingRows(join(project, PROJECT_FILE), modelId);
    expect(got.size).toBe(47);
    for (const [sha, g] of got) expect(Buffer.concat([g.mean, g.min, g.max]).equals(Buffer.concat([want.get(sha)!.mean, want.get(sha)!.min, want.get(sha)!.max])), sha).toBe(true);

    // Restored on the cluster: running that shard again checks the recording again and embeds it.
    copyFileSync(join(r.audioRoot, changed.path), join(audio, changed.path));
    const rerun = await runShard({ jobDir: job, shard: 1, audioRoot: audio, log: () => {} });
    expect(rerun).toMatchObject({ state: 'finished', computed: 1, embedded: rerun.clips, problems: [] });
    const db = openDatabase(join(project, PROJECT_FILE), projectMigrations);
    try {
      const done = await importJob(db, home, job, inlineContext());
      expect(done).toMatchObject({ merged: 1, alreadyPresent: 47, problems: 0, missing: 0, complete: true });
      const origins = embeddingOrigins(db, datasetId);
      expect(origins.clips).toBe(48);
      expect(origins.models).toEqual([
        { modelId, modelName: 'tiny-wav2vec2', settingsKey, cached: 48, fromCluster: 48, jobs: [{ jobId: readJob(job).jobId, clips: 48, shards: [0, 1], hosts: [expect.any(String)], importedAt: expect.any(String) }] },
      ]);
    } finally {
      db.close();
    }
  });
});

describe('run-shard and SIGTERM (what Slurm sends at the time limit or on preemption)', () => {
  it('stops after the recording it is on, keeps what is done in the .partial file, and the next run resumes', { timeout: 120_000 }, async () => {
    const db = openDatabase(join(await copyProject(pristine, tempDir('term-p'), home), PROJECT_FILE), projectMigrations);
    const job = join(tempDir('term'), 'job');
    await exportJob(db, home, { datasetIds: [datasetId], model: modelId, shards: 1, cpusPerTask: 1, out: job });
    db.close();
    // Frozen at its first progress line, sent SIGTERM, then let go: the signal is handled
    // between recordings, whatever the machine's speed.
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main/cli.ts', 'cluster', 'run-shard', '--job', job, '--shard', '0', '--progress-every', '0'], {
      env: { ...process.env, ORT_DISABLE_TELEMETRY: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let signalled = false;
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
      if (!signalled && / 1\/48 clips /.test(stderr)) {
        signalled = true;
        child.kill('SIGSTOP');
        child.kill('SIGTERM');
        child.kill('SIGCONT');
      }
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(signalled, stderr).toBe(true);
    expect(code).toBe(1);
    expect(stderr).toContain('stopping after the current recording (what is done is kept)');
    const st = jobStatus(job, { scheduler: false });
    expect(st.shards[0]).toMatchObject({ state: 'partial', clips: 48 });
    expect(st.shards[0]!.embedded).toBeGreaterThanOrEqual(1);
    expect(st.shards[0]!.embedded).toBeLessThan(48);
    const rest = await runShard({ jobDir: job, shard: 0, log: () => {} });
    expect(rest).toMatchObject({ state: 'finished', embedded: 48, cached: st.shards[0]!.embedded, computed: 48 - st.shards[0]!.embedded });
  });
});

describe('a tampered or foreign job folder', () => {
  it('is refused with the file named: changed model, changed manifest, broken job.json, another job’s output', async () => {
    const project = await copyProject(pristine, tempDir('bad'), home);
    // The same export the CLI and the app run, in this process.
    const make = async (name: string) => {
      const out = join(tempDir(name), 'job');
      const db = openDatabase(join(await copyProject(pristine, tempDir(`${name}-p`), home), PROJECT_FILE), projectMigrations);
      await exportJob(db, home, { datasetIds: [datasetId], model: modelId, shards: 2, cpusPerTask: 1, out });
      db.close();
      return out;
    };
    const a = await make('a');
    const b = await make('b');

    const model = join(a, `models/${modelId}/model.onnx`);
    const bytes = readFileSync(model);
    bytes[bytes.length - 1] ^= 1;
    writeFileSync(model, bytes);
    await expect(runShard({ jobDir: a, shard: 0, log: () => {} })).rejects.toThrow(`${model} differs from the file exported with the job`);

    const manifest = join(b, 'manifests/shard-1.json');
    writeFileSync(manifest, readFileSync(manifest, 'utf8').replace('"durationS": ', '"durationS":'));
    await expect(runShard({ jobDir: b, shard: 1, log: () => {} })).rejects.toThrow(`${manifest} was changed after export`);
    expect(() => jobStatus(b)).toThrow(`${manifest} was changed after export`);

    // Shard 0 of b is fine: run it, then put its output where a's shard 0 belongs.
    await runShard({ jobDir: b, shard: 0, log: () => {} });
    mkdirSync(join(a, 'out'), { recursive: true });
    copyFileSync(join(b, 'out', '0.sqlite'), join(a, 'out', '0.sqlite'));
    const db = openDatabase(join(project, PROJECT_FILE), projectMigrations);
    try {
      const r = await importJob(db, home, a, inlineContext());
      expect(r.shards[0]).toMatchObject({ state: 'refused', merged: 0, refused: [{ reason: `the output belongs to job ${readJob(b).jobId} shard 0`, rows: readManifest(b, readJob(b), 0).clips.length }] });
      expect(r.merged).toBe(0);
      expect(r.complete).toBe(false);
      expect((db.prepare('SELECT COUNT(*) AS n FROM embeddings').get() as { n: number }).n).toBe(0);
    } finally {
      db.close();
    }
    expect(jobStatus(a, { scheduler: false }).shards[0]!.error).toBe(`the output belongs to job ${readJob(b).jobId} shard 0, not to this job's shard 0`);

    writeFileSync(join(a, 'job.json'), '{"format": "equivox-cluster-job", "formatVersion": 1, "jobId": 7}');
    const st = await cli(['cluster', 'status', '--job', a], home);
    expect(st.code).toBe(1);
    expect(st.stderr).toMatch(new RegExp(`${join(a, 'job.json').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not a valid Equivox job description: jobId: `));
  });
});

describe('a shard database from the cluster is data, never code (issue 33.1)', () => {
  it('a finished shard with a view that never ends in place of its embeddings is refused naming it and its file, without reading it; the other shard merges', { timeout: 240_000 }, async () => {
    const job = join(tempDir('view'), 'job');
    const exporting = openDatabase(join(await copyProject(pristine, tempDir('view-e'), home), PROJECT_FILE), projectMigrations);
    await exportJob(exporting, home, { datasetIds: [datasetId], model: modelId, shards: 2, cpusPerTask: 1, out: job });
    exporting.close();
    await runShard({ jobDir: job, shard: 0, log: () => {} });
    await runShard({ jobDir: job, shard: 1, log: () => {} });
    const shard0 = join(job, 'out', '0.sqlite');
    const raw = new Database(shard0);
    raw.exec(`ALTER TABLE embeddings RENAME TO embeddings_data;
      CREATE VIEW embeddings AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT e.* FROM embeddings_data e, c WHERE c.x = 0;`);
    raw.close();
    const before = sha256(shard0);

    const db = openDatabase(join(await copyProject(pristine, tempDir('view-p'), home), PROJECT_FILE), projectMigrations);
    try {
      const r = await importJob(db, home, job, inlineContext());
      expect(r.shards[0]).toMatchObject({ state: 'refused', merged: 0 });
      expect(r.shards[0]!.refused.map((x) => x.reason)).toEqual([expect.stringContaining(`${shard0}: this cluster shard contains database code Equivox did not write (view embeddings); none of it was run`)]);
      const second = readManifest(job, readJob(job), 1).clips.length;
      expect(r.shards[1]).toMatchObject({ state: 'finished', merged: second });
      expect((db.prepare('SELECT COUNT(*) AS n FROM embeddings').get() as { n: number }).n).toBe(second);
    } finally {
      db.close();
    }
    expect(jobStatus(job, { scheduler: false }).shards[0]!.error).toContain('(view embeddings)');
    expect(sha256(shard0)).toBe(before);
  });
});
