/**
 * Import at scale (issues 12 and 25), through the bundled CLI (out/cli/equivox.mjs, built
 * first by scripts/build-cli.mjs) as an auditor runs it:
 *
 * - real audio: 3 s 16 kHz 16-bit mono WAVs (10 per speaker, four accents), generated
 *   once into a cache folder (default /tmp/equivox-bench-wavs; 50,000 take 4.8 GB) and
 *   imported at each of --audio sizes (default 5000,50000);
 * - manifest only: rows naming files that do not exist (the importer's own cost, no
 *   audio) at each of --rows sizes (default 20000,200000), for the memory comparison.
 *
 *   npm run bench:import [-- --audio 5000,50000] [--rows 20000,200000] [--cache DIR] [--rounds 1] [--repos DIR,DIR…]
 *
 * Prints per run: CPU ms per clip (user + system of the CLI process and any ffmpeg it
 * ran), wall ms per clip, peak RSS (VmHWM, every thread), stdout bytes and the counts.
 * When the cache folder's disk cannot hold the largest audio set it says so and uses
 * the largest set that fits, with a linear extrapolation marked as such. --repos runs
 * each checkout's bundled CLI on the same inputs, interleaved round by round.
 * Figures only; tests never assert timings.
 */
import '../src/main/security/telemetry-off'; // first: children (old checkouts too) inherit onnxruntime-node's telemetry switch
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, openSync, closeSync, rmSync, statfsSync, writeFileSync, writeSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pcm16WavHeader } from '../src/main/audio/wav';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : fallback;
}
const list = (s: string) => s.split(',').map((x) => x.trim()).filter(Boolean).map(Number);

const audioSizes = list(arg('audio', '5000,50000')).filter((n) => n > 0);
const rowSizes = list(arg('rows', '20000,200000')).filter((n) => n > 0);
const cache = resolve(arg('cache', join(tmpdir(), 'equivox-bench-wavs')));
const rounds = Number(arg('rounds', '1'));
const repos = arg('repos', '.').split(',').map((r) => resolve(r));

const CLIP_S = 3;
const RATE = 16000;
const CLIP_BYTES = 44 + CLIP_S * RATE * 2;
const ACCENTS = ['us', 'gb', 'in', 'ng'];

// Records, when the CLI exits, its peak resident memory (VmHWM) and its CPU time and its
// reaped children's (ffmpeg), from /proc/self/stat (clock ticks).
const probe = join(mkdtempSync(join(tmpdir(), 'equivox-peak-')), 'probe.cjs');
writeFileSync(
  probe,
  `process.on('exit', () => { try { const fs = require('fs');
    const m = /VmHWM:\\s*(\\d+)/.exec(fs.readFileSync('/proc/self/status', 'utf8'));
    const f = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    const ticks = Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
    process.stderr.write('EQUIVOX_PEAK_KB=' + (m ? m[1] : 0) + ' EQUIVOX_CPU_TICKS=' + ticks + '\\n'); } catch {} });\n`,
);
const clockTicks = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/** Eight speech-like 3 s bases (a voiced tone under a syllable-rate envelope, pitches 100–240 Hz). */
const BASES = Array.from({ length: 8 }, (_, v) => {
  const n = CLIP_S * RATE;
  const out = new Float64Array(n);
  const f0 = 100 + 20 * v;
  for (let i = 0; i < n; i += 1) {
    const t = i / RATE;
    out[i] = (0.5 + 0.5 * Math.sin(2 * Math.PI * 2.5 * t)) * (0.35 * Math.sin(2 * Math.PI * f0 * t) + 0.15 * Math.sin(2 * Math.PI * (600 + 90 * v) * t));
  }
  return out;
});

/** One clip: a base with its own gain and low noise from a per-clip seed (distinct bytes, so no duplicates). */
function clipBytes(k: number): Buffer {
  const n = CLIP_S * RATE;
  const b = Buffer.alloc(CLIP_BYTES);
  pcm16WavHeader(n, RATE).copy(b, 0);
  const base = BASES[k % BASES.length]!;
  const gain = 0.6 + 0.4 * ((k * 0.618034) % 1);
  const pcm = new Int16Array(b.buffer, b.byteOffset + 44, n);
  let seed = (k * 2654435761 + 1) >>> 0;
  for (let i = 0; i < n; i += 1) {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    pcm[i] = Math.round((base[i]! * gain + (seed / 2 ** 32 - 0.5) * 0.02) * 32767);
  }
  return b;
}

/** Make sure the cache holds clips 0..n-1 (only missing ones are written). */
function ensureClips(n: number): void {
  mkdirSync(cache, { recursive: true });
  const t0 = performance.now();
  let made = 0;
  for (let k = 0; k < n; k += 1) {
    const file = join(cache, `c${k}.wav`);
    if (existsSync(file)) continue;
    const fd = openSync(file, 'w');
    writeSync(fd, clipBytes(k));
    closeSync(fd);
    made += 1;
  }
  if (made) process.stderr.write(`wrote ${made} clips into ${cache} in ${((performance.now() - t0) / 1000).toFixed(0)} s\n`);
}

function freeBytes(dir: string): number {
  mkdirSync(dir, { recursive: true });
  const s = statfsSync(dir);
  return s.bavail * s.bsize;
}

const work = mkdtempSync(join(tmpdir(), 'equivox-import-scale-'));

function audioManifest(n: number): string {
  const lines = ['path,speaker,accent,transcript'];
  for (let i = 0; i < n; i += 1) lines.push(`c${i}.wav,s${Math.floor(i / 10)},${ACCENTS[Math.floor(i / 10) % 4]},"sentence number ${i}"`);
  // Beside the clips: an import reads only files inside its manifest's folder.
  const file = join(cache, `manifest-${n}.csv`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

function rowsManifest(n: number): string {
  const lines = ['path,speaker,accent,transcript'];
  for (let i = 0; i < n; i += 1) lines.push(`missing/m${i}.wav,s${i % 500},${ACCENTS[i % 4]},"a short sentence, number ${i}"`);
  const file = join(work, `rows-${n}.csv`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

function cliOf(repo: string): string {
  const r = spawnSync(process.execPath, ['scripts/build-cli.mjs'], { cwd: repo, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`building the CLI failed in ${repo}`);
  return join(repo, 'out/cli/equivox.mjs');
}

function cli(repo: string, bin: string, args: string[], home: string) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ['--require', probe, bin, ...args], { cwd: repo, env: { ...process.env, EQUIVOX_HOME: home }, encoding: 'utf8', maxBuffer: 1 << 30 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, wallS: (performance.now() - t0) / 1000 };
}

interface Run {
  repo: string;
  kind: 'audio' | 'manifest-only';
  clips: number;
  round: number;
  cpuMsPerClip: number;
  wallMsPerClip: number;
  wallS: number;
  peakRssMb: number;
  stdoutBytes: number;
  stderrLines: number;
  imported: number | null;
  failed: number | null;
  exit: number | null;
}

const runs: Run[] = [];
const notes: string[] = [];

// Real audio: as many as the disk allows.
const wanted = Math.max(0, ...audioSizes);
const free = freeBytes(cache);
const alreadyThere = (n: number) => { let k = 0; while (k < n && existsSync(join(cache, `c${k}.wav`))) k += 1; return k; };
const have = alreadyThere(wanted);
const fits = Math.min(wanted, have + Math.floor((free - 2e9) / (CLIP_BYTES + 4096)));
if (fits < wanted) notes.push(`disk: ${(free / 1e9).toFixed(1)} GB free at ${cache}; ${wanted} clips need ${((wanted * CLIP_BYTES) / 1e9).toFixed(1)} GB, so audio runs stop at ${fits} clips and larger sizes are extrapolated linearly`);
ensureClips(Math.max(0, fits));

const bins = new Map(repos.map((r) => [r, cliOf(r)]));
const plan: { kind: Run['kind']; n: number; manifest: string }[] = [
  ...audioSizes.map((n) => ({ kind: 'audio' as const, n: Math.min(n, fits), manifest: '' })),
  ...rowSizes.map((n) => ({ kind: 'manifest-only' as const, n, manifest: '' })),
];
for (const p of plan) p.manifest = p.kind === 'audio' ? audioManifest(p.n) : rowsManifest(p.n);

for (let round = 0; round < rounds; round += 1) {
  for (const p of plan) {
    for (const repo of repos) {
      const home = mkdtempSync(join(tmpdir(), 'equivox-import-scale-home-'));
      const project = join(home, 'project');
      const bin = bins.get(repo)!;
      const created = cli(repo, bin, ['projects', 'create', '--name', 'Scale', '--dir', project], home);
      if (created.status !== 0) throw new Error(`projects create failed in ${repo}: ${created.stderr}`);
      const r = cli(repo, bin, ['datasets', 'import', '--project', project, '--manifest', p.manifest, '--map', 'path=path,speaker=speaker,accent=group,transcript=transcript'], home);
      let out: { imported?: number; failed?: unknown[]; failedCount?: number } = {};
      try {
        out = JSON.parse(r.stdout) as typeof out;
      } catch {
        // reported as nulls below
      }
      const peak = Number(/EQUIVOX_PEAK_KB=(\d+)/.exec(r.stderr)?.[1] ?? 0);
      const cpuS = Number(/EQUIVOX_CPU_TICKS=(\d+)/.exec(r.stderr)?.[1] ?? 0) / clockTicks;
      runs.push({
        repo,
        kind: p.kind,
        clips: p.n,
        round,
        cpuMsPerClip: Math.round((cpuS * 1000 * 1000) / p.n) / 1000,
        wallMsPerClip: Math.round((r.wallS * 1000 * 1000) / p.n) / 1000,
        wallS: Math.round(r.wallS * 10) / 10,
        peakRssMb: Math.round(peak / 1024),
        stdoutBytes: Buffer.byteLength(r.stdout),
        stderrLines: r.stderr.split('\n').filter(Boolean).length,
        imported: out.imported ?? null,
        failed: out.failedCount ?? out.failed?.length ?? null,
        exit: r.status,
      });
      process.stderr.write(`${JSON.stringify(runs[runs.length - 1])}\n`);
      rmSync(home, { recursive: true, force: true });
    }
  }
}
rmSync(work, { recursive: true, force: true });

// The summary an auditor reads: the targets next to what was measured.
const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s.length ? s[Math.floor((s.length - 1) / 2)]! : NaN; };
const summary: Record<string, unknown> = {};
for (const repo of repos) {
  const of = (kind: Run['kind'], n: number) => runs.filter((r) => r.repo === repo && r.kind === kind && r.clips === n);
  const audio = audioSizes.map((n) => {
    const rs = of('audio', Math.min(n, fits));
    const cpu = median(rs.map((r) => r.cpuMsPerClip));
    const wall = median(rs.map((r) => r.wallMsPerClip));
    return { clips: n, measuredOn: Math.min(n, fits), cpuMsPerClip: cpu, wallMsPerClip: wall, wallMinutes: Math.round(((wall * n) / 60000) * 100) / 100, peakRssMb: median(rs.map((r) => r.peakRssMb)) };
  });
  const rows = rowSizes.map((n) => ({ rows: n, peakRssMb: median(of('manifest-only', n).map((r) => r.peakRssMb)), cpuMsPerRow: median(of('manifest-only', n).map((r) => r.cpuMsPerClip)), stdoutBytes: median(of('manifest-only', n).map((r) => r.stdoutBytes)) }));
  const rss = rows.map((r) => r.peakRssMb);
  summary[repo] = {
    audio,
    goalCpuMsPerWavClip: 5,
    goalMinutesFor50k: 5,
    manifestOnly: rows,
    peakRssSpread: rss.length > 1 ? Math.round((Math.max(...rss) / Math.min(...rss) - 1) * 1000) / 10 + '%' : null,
    goalRssSpread: '≤ 10%',
  };
}
console.log(JSON.stringify({ cache, cores: cpus().length, loadAverage1m: loadavg()[0], notes, summary, runs }, null, 2));
