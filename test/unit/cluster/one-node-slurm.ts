/**
 * A real one-node Slurm cluster for the tests (Debian's slurm-wlm and munge; see
 * STACK.md "A one-node Slurm cluster as root"). Everything lives in one temporary folder:
 * munged's key, socket and pid file, slurm.conf with free ports, state, spool and logs.
 * Nothing system-wide is touched: munged gets its own socket (AuthInfo=socket=…), so a
 * site's own munged, if any, is left alone. The daemons are stopped by the PIDs in their
 * pid files.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';

export interface OneNodeSlurm {
  dir: string;
  conf: string;
  /** Environment for sbatch, squeue, scancel and anything they start. */
  env: NodeJS.ProcessEnv;
  logs(): string;
  stop(): Promise<void>;
}

const TOOLS = { munged: '/usr/sbin/munged', mungekey: '/usr/sbin/mungekey', slurmctld: '/usr/sbin/slurmctld', slurmd: '/usr/sbin/slurmd', sbatch: '/usr/bin/sbatch', scancel: '/usr/bin/scancel', squeue: '/usr/bin/squeue', sinfo: '/usr/bin/sinfo' };

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls fn until it returns a value; `what` may be computed at the timeout (to show the last state seen). */
export async function waitFor<T>(what: string | (() => string), fn: () => T | null | undefined, ms: number, everyMs = 100): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v !== null && v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
    await sleep(everyMs);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function readPid(file: string): number | null {
  if (!existsSync(file)) return null;
  const n = Number(readFileSync(file, 'utf8').trim());
  return Number.isInteger(n) && n > 0 ? n : null;
}

function tail(file: string, lines = 15): string {
  return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').slice(-lines).join('\n') : '(no log)';
}

/** Why this machine cannot run the daemons at all, or null. */
export function cannotRunSlurm(): string | null {
  if (process.platform !== 'linux') return `Slurm runs on Linux only (this is ${process.platform})`;
  if (process.getuid?.() !== 0) return 'starting slurmd and munged needs root (the tests run as an ordinary user)';
  const missing = Object.entries(TOOLS).filter(([, p]) => !existsSync(p)).map(([n]) => n);
  if (missing.length > 0) return `not installed: ${missing.join(', ')} (Debian packages slurm-wlm and munge)`;
  if (spawnSync('id', ['-u', 'munge']).status !== 0) return 'there is no "munge" user (Debian package munge creates it)';
  return null;
}

/** Start munged, slurmctld and slurmd; throws with the daemons' log tails when they do not come up (after stopping what started). */
export async function startOneNodeSlurm(options: { partitions?: string[] } = {}): Promise<OneNodeSlurm> {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'equivox-slurm-')));
  // munged (user munge) and the job steps must reach files in here.
  chmodSync(dir, 0o755);
  const uid = Number(execFileSync('id', ['-u', 'munge']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'munge']).toString().trim());
  const munge = join(dir, 'munge');
  mkdirSync(munge, { mode: 0o755 });
  for (const d of ['state', 'spool', 'log']) mkdirSync(join(dir, d));
  const key = join(munge, 'munge.key');
  execFileSync(TOOLS.mungekey, ['--create', `--keyfile=${key}`]);
  chownSync(key, uid, gid);
  chmodSync(key, 0o600);
  chownSync(munge, uid, gid);
  const socket = join(munge, 'munge.sock');
  const pids = { munged: join(munge, 'munged.pid'), slurmctld: join(dir, 'slurmctld.pid'), slurmd: join(dir, 'slurmd.pid') };
  const logs = { munged: join(munge, 'munged.log'), slurmctld: join(dir, 'log', 'slurmctld.log'), slurmd: join(dir, 'log', 'slurmd.log') };
  const conf = join(dir, 'slurm.conf');
  const env = { ...process.env, SLURM_CONF: conf };

  const stop = async (): Promise<void> => {
    // Our own cluster: cancel whatever is left on it, then stop the daemons, newest first.
    if (existsSync(conf)) spawnSync(TOOLS.scancel, ['--full', '--signal=KILL', '--user=root'], { env, timeout: 10_000 });
    for (const name of ['slurmd', 'slurmctld', 'munged'] as const) {
      const pid = readPid(pids[name]);
      if (pid === null || !alive(pid)) continue;
      process.kill(pid, 'SIGTERM');
      const end = Date.now() + 10_000;
      while (alive(pid) && Date.now() < end) await sleep(100);
      if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const allLogs = () => Object.entries(logs).map(([n, f]) => `--- ${n}\n${tail(f)}`).join('\n');

  try {
    const m = spawnSync(TOOLS.munged, [`--socket=${socket}`, `--key-file=${key}`, `--pid-file=${pids.munged}`, `--log-file=${logs.munged}`, `--seed-file=${join(munge, 'munged.seed')}`], { uid, gid, encoding: 'utf8', timeout: 20_000 });
    if (m.status !== 0) throw new Error(`munged did not start (exit ${m.status}): ${(m.stderr || m.stdout).trim()}`);
    await waitFor('munged pid file', () => readPid(pids.munged), 10_000);
    const host = hostname().split('.')[0]!;
    const [ctlPort, dPort] = [await freePort(), await freePort()];
    writeFileSync(
      conf,
      [
        'ClusterName=equivoxtest',
        // Addresses given, so nothing depends on the machine's name resolving (containers).
        `SlurmctldHost=${host}(127.0.0.1)`,
        'SlurmUser=root',
        'SlurmdUser=root',
        'AuthType=auth/munge',
        'CredType=cred/munge',
        `AuthInfo=socket=${socket}`,
        `SlurmctldPort=${ctlPort}`,
        `SlurmdPort=${dPort}`,
        'ProctrackType=proctrack/linuxproc',
        'TaskPlugin=task/none',
        'SelectType=select/cons_tres',
        'SelectTypeParameters=CR_Core',
        'MpiDefault=none',
        'ReturnToService=2',
        'JobCompType=jobcomp/none',
        'AccountingStorageType=accounting_storage/none',
        'JobAcctGatherType=jobacct_gather/none',
        // Finished jobs stay visible to `scontrol show job` for MinJobAge seconds; the tests
        // read each task's exit code there (a job purged before it is read has no exit code).
        'MinJobAge=300',
        `StateSaveLocation=${join(dir, 'state')}`,
        `SlurmdSpoolDir=${join(dir, 'spool')}`,
        `SlurmctldPidFile=${pids.slurmctld}`,
        `SlurmdPidFile=${pids.slurmd}`,
        `SlurmctldLogFile=${logs.slurmctld}`,
        `SlurmdLogFile=${logs.slurmd}`,
        `NodeName=${host} NodeAddr=127.0.0.1 CPUs=${Number(execFileSync('nproc').toString().trim())} RealMemory=2000 State=UNKNOWN`,
        `PartitionName=debug Nodes=${host} Default=YES MaxTime=INFINITE State=UP`,
        // Further partitions over the same node (e.g. one with MaxCPUsPerNode below the node's CPUs).
        ...(options.partitions ?? []).map((p) => p.replaceAll('$HOST', host)),
        '',
      ].join('\n'),
    );
    for (const daemon of ['slurmctld', 'slurmd'] as const) {
      const r = spawnSync(TOOLS[daemon], ['-f', conf], { env, encoding: 'utf8', timeout: 20_000 });
      if (r.status !== 0) throw new Error(`${daemon} did not start (exit ${r.status}): ${(r.stderr || r.stdout).trim()}`);
      await waitFor(`${daemon} pid file`, () => readPid(pids[daemon]), 15_000);
    }
    await waitFor(
      'the node to be idle',
      () => {
        const r = spawnSync(TOOLS.sinfo, ['--noheader', '--format=%T'], { env, encoding: 'utf8', timeout: 10_000 });
        return r.status === 0 && r.stdout.trim() === 'idle' ? true : null;
      },
      40_000,
    );
  } catch (err) {
    const message = `${err instanceof Error ? err.message : String(err)}\n${allLogs()}`;
    await stop();
    throw new Error(message);
  }
  return { dir, conf, env, logs: allLogs, stop };
}
