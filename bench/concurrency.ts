/**
 * `npm run bench:concurrency [-- --imports 50] [--clips 6] [--root DIR] [--limit-s 900] [--idle-s 10] [--verbose]`
 *
 * Many imports at once through the web host (issue 33 item 7): --imports folder imports
 * (each its own folder of --clips short Ogg/Opus and MP3 recordings, so every clip goes
 * through ffmpeg) are started together with `datasets.import`, while `app.info` is asked
 * every 20 ms. Prints the engine process's peak resident memory and thread count (from
 * /proc, sampled every 200 ms), `app.info` p50/p99/worst (also counted from when each call
 * was due on the 20 ms schedule), how many imports finished and clips were imported, and
 * the wall time (memory and threads also with the engine's job processes, where imports run
 * when the host can start them); first, for --idle-s seconds with nothing running, the same app.info
 * figures as the machine's own baseline (on a shared computer they are most of it). app.info calls are sent on the schedule whether or not the one before was
 * answered. --root starts another checkout's web host (before/after, as
 * bench:responsiveness); --limit-s stops waiting after that long and prints what it has.
 * Goal: `app.info` p99 < 100 ms throughout, memory and threads bounded.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

const root = resolve(arg('root', process.cwd()));
const IMPORTS = Number(arg('imports', '50'));
const CLIPS = Number(arg('clips', '6'));
const LIMIT_S = Number(arg('limit-s', '900'));
const IDLE_S = Number(arg('idle-s', '10'));
const verbose = process.argv.includes('--verbose');

interface Host {
  base: string;
  token: string;
  pid: number;
  stop(): void;
}

async function startHost(dataDir: string): Promise<Host> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main/web.ts'], { cwd: root, env: { ...process.env, EQUIVOX_HOME: dataDir }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let err = '';
  child.stderr.on('data', (d: Buffer) => {
    err += d.toString();
    if (verbose) process.stderr.write(d);
  });
  const url = await new Promise<string>((ok, fail) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /EQUIVOX_WEB_URL=(\S+)/.exec(out);
      if (m) ok(m[1]!);
    });
    child.on('exit', (code) => fail(new Error(`web host exited with ${code}: ${err}`)));
  });
  const u = new URL(url);
  // The whole process group (web host, engine, its ffmpeg children): the engine ignores SIGTERM and a busy one would linger.
  return { base: u.origin, token: u.searchParams.get('token') ?? '', pid: child.pid!, stop: () => process.kill(-child.pid!, 'SIGKILL') };
}

async function call<T>(host: Host, name: string, input: unknown): Promise<T> {
  const res = await fetch(`${host.base}/api/invoke/${name}`, { method: 'POST', headers: { 'X-Equivox-Token': host.token, 'Content-Type': 'application/json' }, body: JSON.stringify(input) });
  const body = (await res.json()) as { ok: boolean; result?: T; error?: { message: string } };
  if (!body.ok) throw new Error(`${name}: ${body.error?.message}`);
  return body.result as T;
}

/** The children of `parentPid` whose command line names `entry`. */
function childPids(parentPid: number, entry: string): number[] {
  const found: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== parentPid) continue;
      if (readFileSync(`/proc/${d}/cmdline`, 'utf8').includes(entry)) found.push(Number(d));
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return found;
}

/** The engine process: the web host's child whose command line names engine-process. */
function enginePid(hostPid: number): number | null {
  return childPids(hostPid, 'engine-process')[0] ?? null;
}

/** The engine with its job processes (job-process.ts: imports and model jobs run in them where the host can start them), summed. */
function engineUsage(engine: number): { rssMb: number; threads: number } | null {
  const own = usage(engine);
  if (!own) return null;
  for (const pid of childPids(engine, 'job-process')) {
    const u = usage(pid);
    if (u) {
      own.rssMb += u.rssMb;
      own.threads += u.threads;
    }
  }
  return own;
}

/** Resident memory (MB) and thread count of a process, from /proc/PID/status. */
function usage(pid: number): { rssMb: number; threads: number } | null {
  try {
    const s = readFileSync(`/proc/${pid}/status`, 'utf8');
    return { rssMb: Number(/VmRSS:\s+(\d+)/.exec(s)![1]) / 1024, threads: Number(/Threads:\s+(\d+)/.exec(s)![1]) };
  } catch {
    return null;
  }
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

function line(label: string, xs: number[]): string {
  const s = [...xs].sort((a, b) => a - b);
  return `${label.padEnd(36)} n=${String(s.length).padStart(5)}  p50 ${quantile(s, 0.5).toFixed(1).padStart(8)} ms  p99 ${quantile(s, 0.99).toFixed(1).padStart(8)} ms  max ${(s[s.length - 1] ?? NaN).toFixed(1).padStart(8)} ms`;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** --imports folders of --clips recordings each, two groups, made once with ffmpeg (copies of a few encodes). */
function makeCorpus(dir: string): string[] {
  const seeds = join(dir, 'seeds');
  mkdirSync(seeds, { recursive: true });
  const encodes: string[] = [];
  for (let k = 0; k < CLIPS; k += 1) {
    const ext = k % 2 === 0 ? 'ogg' : 'mp3';
    const f = join(seeds, `clip${k}.${ext}`);
    execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', `sine=frequency=${200 + 40 * k}:sample_rate=48000:duration=3`, '-af', 'volume=3', ...(ext === 'ogg' ? ['-c:a', 'libopus', '-b:a', '24k'] : []), f]);
    encodes.push(f);
  }
  const folders: string[] = [];
  for (let i = 0; i < IMPORTS; i += 1) {
    const folder = join(dir, `import-${String(i + 1).padStart(3, '0')}`);
    encodes.forEach((f, k) => {
      const group = join(folder, k % 2 === 0 ? 'a' : 'b');
      mkdirSync(group, { recursive: true });
      // The same recordings in every folder: duplicates are judged within a dataset, and each import measures its own files.
      writeFileSync(join(group, `c${i}-${k}${f.slice(f.lastIndexOf('.'))}`), readFileSync(f));
    });
    folders.push(folder);
  }
  return folders;
}

interface JobRow {
  jobId: string;
  state: string;
}

async function main(): Promise<void> {
  if (!existsSync(join(root, 'src/main/web.ts'))) throw new Error(`${root} has no src/main/web.ts`);
  const head = execFileSync('git', ['-C', root, 'log', '-1', '--format=%h %s']).toString().trim().slice(0, 100);
  const work = mkdtempSync(join(tmpdir(), 'equivox-bench-conc-'));
  const home = join(work, 'home');
  mkdirSync(home);
  process.stderr.write(`making ${IMPORTS} folders of ${CLIPS} recordings in ${work}…\n`);
  const folders = makeCorpus(join(work, 'corpus'));
  const host = await startHost(home);
  // Whatever happens, the web host and its engine (with every job thread and ffmpeg) end with this script.
  process.on('exit', () => {
    try {
      host.stop();
    } catch {
      // Already gone.
    }
  });
  let sampling = true;
  try {
    const engine = enginePid(host.pid);
    if (engine === null) throw new Error('no engine process found under the web host');
    const before = usage(engine)!;
    const project = await call<{ id: string }>(host, 'projects.create', { name: `Concurrency ${Date.now()}` });
    await call(host, 'files.grant', { path: join(work, 'corpus'), purpose: 'folder' });

    let peak = { ...before };
    let peakAll = { ...before };
    const mem = (async () => {
      while (sampling) {
        const u = usage(engine);
        if (u) peak = { rssMb: Math.max(peak.rssMb, u.rssMb), threads: Math.max(peak.threads, u.threads) };
        const all = engineUsage(engine);
        if (all) peakAll = { rssMb: Math.max(peakAll.rssMb, all.rssMb), threads: Math.max(peakAll.threads, all.threads) };
        await sleep(200);
      }
    })();
    // One app.info every 20 ms on a fixed schedule, each sent when due whether or not the
    // one before has been answered: a host that stalls for a second keeps some 50 calls
    // waiting, and each of them counts. `answered`: from sending to the answer.
    const INTERVAL_MS = 20;
    let failedCalls = 0;
    const sample = (running: () => boolean, answered: number[], due: number[]) =>
      (async () => {
        const pending: Promise<void>[] = [];
        const base = performance.now();
        for (let k = 0; running(); k += 1) {
          const scheduled = base + k * INTERVAL_MS;
          const wait = scheduled - performance.now();
          if (wait > 0) await sleep(wait);
          const t0 = performance.now();
          // A call that fails (the host did not even accept the connection in 10 s) counts with the time it took to fail.
          const done = () => {
            const end = performance.now();
            answered.push(end - t0);
            due.push(end - scheduled);
          };
          pending.push(
            call(host, 'app.info', {}).then(done, () => {
              failedCalls += 1;
              done();
            }),
          );
        }
        await Promise.all(pending);
      })();
    const idleAnswered: number[] = [];
    const idleDue: number[] = [];
    const idleUntil = performance.now() + IDLE_S * 1000;
    await sample(() => performance.now() < idleUntil, idleAnswered, idleDue);
    const idleLoad = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
    const answered: number[] = [];
    const due: number[] = [];
    const sampler = sample(() => sampling, answered, due);

    const t0 = performance.now();
    const started = await Promise.allSettled(
      folders.map((folder, i) => call<{ jobId: string }>(host, 'datasets.import', { projectId: project.id, source: { kind: 'folder', folder, groupLabel: 'group' }, role: 'target', name: `import ${i + 1}` })),
    );
    const callsMs = performance.now() - t0;
    const ids = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value.jobId] : []));
    const refused = started.filter((s) => s.status === 'rejected').map((s) => String((s as PromiseRejectedResult).reason).slice(0, 160));
    let states: JobRow[] = [];
    let mostQueued = 0;
    for (;;) {
      const listed = await call<JobRow[]>(host, 'jobs.list', {}).catch(() => null);
      if (listed === null) {
        await sleep(500);
        continue;
      }
      states = listed.filter((j) => ids.includes(j.jobId));
      mostQueued = Math.max(mostQueued, states.filter((j) => j.state === 'queued').length);
      if (states.every((j) => j.state !== 'running' && j.state !== 'queued')) break;
      if ((performance.now() - t0) / 1000 > LIMIT_S) break;
      await sleep(500);
    }
    const wallS = (performance.now() - t0) / 1000;
    sampling = false;
    await Promise.all([sampler, mem]);
    const datasets = await call<{ usable: number }[]>(host, 'datasets.list', { projectId: project.id });
    const count = (s: string) => states.filter((j) => j.state === s).length;

    process.stdout.write(`web host of ${root} (${head})\n`);
    process.stdout.write(`${IMPORTS} datasets.import of ${CLIPS} recordings each (Ogg/Opus and MP3, 3 s), started together; ${callsMs.toFixed(0)} ms for the ${IMPORTS} calls to answer${refused.length ? `; ${refused.length} refused: ${refused[0]}` : ''}\n`);
    process.stdout.write(`jobs: ${count('finished')} finished, ${count('failed')} failed, ${count('cancelled')} cancelled, ${count('running')} still running, ${count('queued')} still waiting (most waiting at once: ${mostQueued}) after ${wallS.toFixed(1)} s${wallS > LIMIT_S ? ` (stopped waiting at --limit-s ${LIMIT_S})` : ''}\n`);
    process.stdout.write(`clips imported: ${datasets.reduce((a, d) => a + d.usable, 0)} of ${IMPORTS * CLIPS}\n`);
    process.stdout.write(`engine process: RSS ${before.rssMb.toFixed(0)} MB and ${before.threads} threads before; peak ${peak.rssMb.toFixed(0)} MB and ${peak.threads} threads; with its job processes at peak ${peakAll.rssMb.toFixed(0)} MB and ${peakAll.threads} threads\n`);
    process.stdout.write(`${line(`app.info idle (load ${idleLoad})`, idleAnswered)}\n`);
    process.stdout.write(`${line('  the same, from when each was due', idleDue)}\n`);
    process.stdout.write(`${line('app.info during the imports', answered)}${failedCalls ? `  (${failedCalls} got no answer)` : ''}\n`);
    process.stdout.write(`${line('  the same, from when each was due', due)}\n`);
    const p99 = quantile([...answered].sort((a, b) => a - b), 0.99);
    const p99due = quantile([...due].sort((a, b) => a - b), 0.99);
    process.stdout.write(`goal app.info p99 < 100 ms throughout: ${p99 < 100 && p99due < 100 ? 'met' : 'NOT met'} (answered ${p99.toFixed(1)} ms; from when due ${p99due.toFixed(1)} ms)\n`);
    process.stdout.write(`load average at the end: ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}\n`);
  } finally {
    sampling = false;
    host.stop();
    await sleep(500);
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`error: ${(err as Error).message}\n`);
  process.exit(1);
});
