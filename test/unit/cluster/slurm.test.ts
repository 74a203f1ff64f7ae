/**
 * Issue 16 on a real one-node Slurm cluster (munged, slurmctld and slurmd started in a
 * temporary folder, stopped by their PIDs afterwards, also when a test fails). The demo's
 * target dataset (48 recordings) is embedded with the speech_embedding model three ways:
 * locally with `embed`, and as two cluster jobs. Every merged vector must equal the local
 * one bit for bit. Tasks get one CPU each and the local run one thread: onnxruntime's
 * results can differ in the last bits between thread counts, so like is compared with like.
 *
 * Skipped, with the reason, only where the daemons cannot run (not root, packages missing,
 * a daemon that does not come up); the rest of the suite runs either way.
 * About 2 minutes on 2 cores, most of it the tasks' CLI start-ups and waiting for them.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterExportSummary, ClusterImportSummary, ClusterStatus } from '../../../src/shared/api/cluster';
import type { EmbedSummary } from '../../../src/shared/api/models';
import { PROJECT_FILE } from '../../../src/main/store/projects';
import { cannotRunSlurm, startOneNodeSlurm, waitFor, type OneNodeSlurm } from './one-node-slurm';
import { skipUnless } from '../../support/skips';
import { cli, copyProject, count, demoTargetProject, embeddingRows, ok, removeTempDirs, tempDir } from './helpers';

const wrapper = resolve('test/support/cluster-kill-wrapper.mjs');

let slurm: OneNodeSlurm | null = null;
let skip: string | null = cannotRunSlurm();
let home: string;
/** The demo target imported, nothing embedded: copied for each job. */
let pristine: string;
/** The same, embedded locally with `embed --threads 1`. */
let local: string;
let datasetId: string;
let modelSha: string;

function sbatch(jobDir: string, args: string[], env: NodeJS.ProcessEnv = {}): { status: number | null; out: string } {
  const r = spawnSync('sbatch', [...args, 'submit.sbatch'], { cwd: jobDir, env: { ...slurm!.env, ORT_DISABLE_TELEMETRY: '1', ...env }, encoding: 'utf8', timeout: 240_000 });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

const FINISHED = /^(COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|PREEMPTED|BOOT_FAIL|DEADLINE|OUT_OF_MEMORY)$/;

/**
 * Submits the job and waits for every task to end, with `sbatch --wait`'s exit code (the
 * highest task's; 1 for a task ended by a signal), read from `scontrol show job` every
 * half second. Not `sbatch --wait` itself: it polls every 2 s and, when the controller has
 * purged the job in between (MinJobAge), prints "no longer found and exit code not found"
 * and exits 0, which made a killed task look like a success on a loaded machine.
 */
async function sbatchUntilDone(jobDir: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ status: number; out: string }> {
  const submitted = sbatch(jobDir, ['--parsable', ...args], env);
  expect(submitted.status, submitted.out).toBe(0);
  const id = /^(\d+)/.exec(submitted.out.trim())![1]!;
  let shown = '';
  const status = await waitFor(() => `job ${id} to end (240 s):\n${shown}\n${slurm!.logs()}`, () => {
    const r = spawnSync('scontrol', ['--oneliner', 'show', 'job', id], { env: slurm!.env, encoding: 'utf8', timeout: 20_000 });
    expect(r.status, `scontrol show job ${id}: ${r.stdout}${r.stderr}\n${slurm!.logs()}`).toBe(0);
    shown = r.stdout;
    const tasks = r.stdout.trim().split('\n').map((line) => ({
      state: /\bJobState=(\S+)/.exec(line)?.[1] ?? '',
      exit: /\bExitCode=(\d+):(\d+)/.exec(line),
    }));
    if (tasks.length === 0 || !tasks.every((t) => FINISHED.test(t.state))) return null;
    return Math.max(...tasks.map((t) => (!t.exit ? 1 : Number(t.exit[2]) !== 0 ? 1 : Number(t.exit[1]))));
  }, 240_000, 500);
  return { status, out: `${submitted.out}${shown}` };
}

/** Without --cpus-per-task: each task asks 1 CPU and run-shard gives onnxruntime 1 thread (issue 20.4). */
async function exportJob(project: string, shards: number, out: string, extra: string[] = []): Promise<ClusterExportSummary> {
  return ok<ClusterExportSummary>(await cli(['cluster', 'export', '--project', project, '--dataset', datasetId, '--model', 'speech-embedding', '--shards', String(shards), '--out', out, ...extra], home));
}

async function status(jobDir: string): Promise<ClusterStatus> {
  return ok<ClusterStatus>(await cli(['cluster', 'status', '--job', jobDir], home, slurm!.env));
}

async function importJob(project: string, jobDir: string): Promise<ClusterImportSummary> {
  return ok<ClusterImportSummary>(await cli(['cluster', 'import', '--project', project, '--job', jobDir], home));
}

/** Every merged row equals the local `embed` row: vectors byte for byte, frames, widths, provider. */
function expectEqualToLocal(project: string): void {
  const want = embeddingRows(join(local, PROJECT_FILE), modelSha);
  const got = embeddingRows(join(project, PROJECT_FILE), modelSha);
  expect(want.size).toBe(48);
  expect([...got.keys()]).toEqual([...want.keys()]);
  const hex = (r: ReturnType<typeof want.get>) => ({ ...r!, mean: r!.mean.toString('hex'), min: r!.min.toString('hex'), max: r!.max.toString('hex') });
  for (const [sha, w] of want) expect(hex(got.get(sha)), sha).toEqual(hex(w));
}

beforeAll(async () => {
  if (skip) return;
  try {
    // A second partition over the same node that lets a job use one CPU per node.
    slurm = await startOneNodeSlurm({ partitions: ['PartitionName=small Nodes=$HOST MaxCPUsPerNode=1 MaxTime=INFINITE State=UP'] });
  } catch (err) {
    skip = `the one-node Slurm cluster could not start: ${err instanceof Error ? err.message : String(err)}`;
    return;
  }
  home = tempDir('home');
  const made = await demoTargetProject(home, join(tempDir('pristine'), 'project'));
  pristine = made.dir;
  datasetId = made.datasetId;
  local = await copyProject(pristine, tempDir('local'), home);
  const e = ok<EmbedSummary>(await cli(['embed', '--project', local, '--dataset', datasetId, '--model', 'speech-embedding', '--threads', '1'], home));
  expect(e).toMatchObject({ clips: 48, computed: 48, failed: [], provider: 'cpu threads=1 ort=1.30.0' });
  modelSha = e.modelId;
}, 240_000);

afterAll(async () => {
  await slurm?.stop();
  removeTempDirs();
}, 60_000);

describe('embedding extraction as a Slurm array job', () => {
  it('4 shards of the demo target: the job succeeds, import merges all 48, bit for bit equal to a local embed; a second import merges nothing', { timeout: 300_000 }, async (ctx) => {
    skipUnless(skip, (r) => ctx.skip(r));
    const project = await copyProject(pristine, tempDir('a'), home);
    const job = join(tempDir('job-a'), 'job');
    const exported = await exportJob(project, 4, job);
    expect(exported.clips).toBe(48);
    expect(exported.shards.map((s) => s.clips).reduce((a, b) => a + b)).toBe(48);
    expect(readFileSync(join(job, 'submit.sbatch'), 'utf8')).toContain('#SBATCH --array=0-3\n');
    // The default: one CPU per task, and (below) one onnxruntime thread, like the local run.
    expect(exported.resources).toEqual({ cpusPerTask: 1, gpusPerTask: null });
    expect(readFileSync(join(job, 'submit.sbatch'), 'utf8')).toContain('#SBATCH --cpus-per-task=1\n');

    const run = await sbatchUntilDone(job, []);
    expect(run.status, `${run.out}\n${slurm!.logs()}`).toBe(0);
    const st = await status(job);
    expect(st).toMatchObject({ shardCount: 4, finished: 4, partial: 0, missing: 0, clips: 48, embedded: 48, problems: 0 });
    // The scheduler's own view: nothing left in the queue; this cluster keeps no accounting.
    expect(st.scheduler).toEqual([
      { tool: 'squeue', ok: true, tasks: [] },
      { tool: 'sacct', ok: false, message: expect.stringMatching(/accounting storage is disabled/), tasks: [] },
    ]);
    // Each task ran under Slurm: its array id is recorded.
    expect(st.shards.map((s) => s.lastRun?.schedulerJob)).toEqual([0, 1, 2, 3].map((k) => expect.stringMatching(new RegExp(`^\\d+_${k}$`))));

    const first = await importJob(project, job);
    expect(first).toMatchObject({ merged: 48, alreadyPresent: 0, missing: 0, problems: 0, complete: true });
    expect(first.shards.map((s) => [s.state, s.merged])).toEqual(exported.shards.map((s) => ['finished', s.clips]));
    expectEqualToLocal(project);
    const db = join(project, PROJECT_FILE);
    expect(count(db, 'SELECT COUNT(*) AS n FROM embedding_origins WHERE job_id = ? AND model_sha256 = ?', exported.jobId, modelSha)).toBe(48);
    expect(count(db, 'SELECT COUNT(DISTINCT shard) AS n FROM embedding_origins')).toBe(4);

    expect(new Set([...embeddingRows(join(project, PROJECT_FILE), modelSha).values()].map((r) => r.provider))).toEqual(new Set(['cpu threads=1 ort=1.30.0']));

    const second = await importJob(project, job);
    expect(second).toMatchObject({ merged: 0, alreadyPresent: 48, missing: 0, complete: true });
    expect(count(db, 'SELECT COUNT(*) AS n FROM embeddings')).toBe(48);
    expect(count(db, 'SELECT COUNT(*) AS n FROM embedding_origins')).toBe(48);
    expectEqualToLocal(project);

    // The audit reads the cache: embedding the dataset again computes nothing.
    const again = ok<EmbedSummary>(await cli(['embed', '--project', project, '--dataset', datasetId, '--model', 'speech-embedding'], home));
    expect(again).toMatchObject({ computed: 0, cached: 48, provider: null });
  });

  it('a task killed mid-shard shows as partial; resubmitting only its index completes the job', { timeout: 300_000 }, async (ctx) => {
    skipUnless(skip, (r) => ctx.skip(r));
    const project = await copyProject(pristine, tempDir('b'), home);
    const job = join(tempDir('job-b'), 'job');
    const exported = await exportJob(project, 2, job);
    const command = (JSON.parse(readFileSync(join(job, 'job.json'), 'utf8')) as { cli: { command: string[] } }).cli.command.join(' ');

    // Shard 1 is frozen after its 3rd recording and killed by Slurm (scancel --signal=KILL).
    const killed = await sbatchUntilDone(job, [], { EQUIVOX_CLI: `${process.execPath} ${wrapper}`, EQUIVOX_REAL_CLI: command, EQUIVOX_KILL_SHARD: '1', EQUIVOX_KILL_AFTER: '3' });
    expect(killed.status, killed.out).not.toBe(0);
    const log = spawnSync('sh', ['-c', `cat ${job}/logs/shard-1-*.log`], { encoding: 'utf8' }).stdout;
    expect(log).toMatch(/froze Equivox at ".* 3\/24 clips/);
    const before = await status(job);
    expect(before).toMatchObject({ finished: 1, partial: 1, missing: 0 });
    const partial = before.shards[1]!;
    expect(partial.state).toBe('partial');
    expect(partial.embedded).toBeGreaterThanOrEqual(3);
    expect(partial.embedded).toBeLessThan(partial.clips);
    expect(partial.lastRun?.finishedAt).toBeNull();

    const rerun = await sbatchUntilDone(job, ['--array=1']);
    expect(rerun.status, rerun.out).toBe(0);
    const after = await status(job);
    expect(after).toMatchObject({ finished: 2, partial: 0, missing: 0, embedded: 48 });
    // The second run resumed: it found the recordings the killed one had finished.
    expect(spawnSync('sh', ['-c', `cat ${job}/logs/shard-1-*.log`], { encoding: 'utf8' }).stdout).toMatch(new RegExp(`checked 24 recording\\(s\\) .*; ${partial.embedded} already embedded here`));

    const merged = await importJob(project, job);
    expect(merged).toMatchObject({ merged: 48, complete: true });
    expect(exported.clips).toBe(48);
    expectEqualToLocal(project);
  });

  it('a job that asks more CPUs than any node has waits with PartitionConfig, and cluster status says why in words; so do held and delayed ones', { timeout: 300_000 }, async (ctx) => {
    if (skip) ctx.skip(skip);
    const nproc = Number(spawnSync('nproc', { encoding: 'utf8' }).stdout.trim());
    const job = join(tempDir('job-c'), 'job');
    await exportJob(await copyProject(pristine, tempDir('c'), home), 2, job, ['--cpus-per-task', String(nproc + 1)]);
    expect(readFileSync(join(job, 'submit.sbatch'), 'utf8')).toContain(`#SBATCH --cpus-per-task=${nproc + 1}\n`);
    const jobName = (JSON.parse(readFileSync(join(job, 'job.json'), 'utf8')) as { jobName: string }).jobName;
    // sbatch accepts it (a partition limit, not a hardware one: EnforcePartLimits is off by default) and it waits forever.
    const submitted: string[] = [];
    const submit = (args: string[]) => {
      const r = sbatch(job, args);
      expect(r.status, r.out).toBe(0);
      submitted.push(/Submitted batch job (\d+)/.exec(r.out)![1]!);
      return submitted.at(-1)!;
    };
    try {
      const tooBig = submit([]);
      // The same script on the partition capped at one CPU per node, asking two.
      const capped = submit(['--array=0', '--partition=small', '--cpus-per-task=2']);
      const held = submit(['--array=0', '--cpus-per-task=1', '--hold']);
      const later = submit(['--array=0', '--cpus-per-task=1', '--begin=now+1hour']);
      // squeue itself, until the scheduler has given every task its reason.
      const reasons = () => spawnSync('squeue', ['--noheader', '--array', `--name=${jobName}`, '--format=%i %r'], { env: slurm!.env, encoding: 'utf8' }).stdout.trim().split('\n');
      const end = Date.now() + 60_000;
      while (Date.now() < end && !(reasons().length === 5 && reasons().every((l) => /(PartitionConfig|JobHeldUser|BeginTime)$/.test(l)))) await new Promise((r) => setTimeout(r, 500));
      expect(reasons().sort()).toEqual([`${tooBig}_0 PartitionConfig`, `${tooBig}_1 PartitionConfig`, `${capped}_0 PartitionConfig`, `${held}_0 JobHeldUser`, `${later}_0 BeginTime`].sort());

      const run = await cli(['cluster', 'status', '--job', job], home, slurm!.env);
      const st = ok<ClusterStatus>(run);
      const tasks = new Map(st.scheduler.find((v) => v.tool === 'squeue')!.tasks.map((t) => [t.id, t]));
      const tooBigWords = `it can never start on partition debug: the job asks ${nproc + 1} CPUs per task and the nodes of partition debug have at most ${nproc} CPU${nproc === 1 ? '' : 's'}.`;
      for (const id of [`${tooBig}_0`, `${tooBig}_1`]) {
        expect(tasks.get(id)).toMatchObject({ state: 'PENDING', reason: { code: 'PartitionConfig', blocked: true, words: expect.stringContaining(tooBigWords) } });
      }
      expect(tasks.get(`${capped}_0`)!.reason).toMatchObject({
        code: 'PartitionConfig',
        words: expect.stringContaining('it can never start on partition small: the job asks 2 CPUs per task and partition small lets a job use at most 1 CPU per node (MaxCPUsPerNode).'),
      });
      expect(tasks.get(`${held}_0`)!.reason).toMatchObject({ code: 'JobHeldUser', blocked: true });
      expect(tasks.get(`${later}_0`)!.reason).toMatchObject({ code: 'BeginTime', blocked: false });
      // What the auditor reads on stderr: one line per reason.
      expect(run.stderr).toContain(`blocked: 2 tasks ${tooBig}_0, ${tooBig}_1 (PartitionConfig): ${tooBigWords}`);
      expect(run.stderr).toMatch(new RegExp(`^waiting: task ${later}_0 \\(BeginTime\\): it was submitted to start later`, 'm'));
      expect(st).toMatchObject({ finished: 0, missing: 2 });
    } finally {
      spawnSync('scancel', submitted, { env: slurm!.env, timeout: 10_000 });
    }
  });
});
