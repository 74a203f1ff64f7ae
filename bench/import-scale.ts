/**
 * Import at scale (issue 12): a 200,000-row manifest through the real CLI
 * (`datasets import`), as an auditor would run it. Most rows name files that do not
 * exist (the fast path, so the figures are the importer's own cost, not ffmpeg's) and
 * --real rows name real clips.
 *
 *   npx tsx bench/import-scale.ts [--rows 200000] [--real 200] [--rounds 1] [--repos DIR,DIR…]
 *
 * --repos runs each checkout's CLI (default: this one) on the same manifest, interleaved
 * round by round, so a before/after comparison shares the machine's load. Prints, per
 * run: wall seconds, the CLI process's peak RSS (VmHWM, all threads), the size of the
 * JSON it printed, and the counts it reported. Figures only; tests never assert timings.
 */
import '../src/main/security/telemetry-off'; // first: children (old checkouts too) inherit onnxruntime-node's telemetry switch
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { makeTone } from '../test/fixtures/data/make-audio';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : fallback;
}

const rows = Number(arg('rows', '200000'));
const real = Number(arg('real', '200'));
const rounds = Number(arg('rounds', '1'));
const repos = arg('repos', '.').split(',').map((r) => resolve(r));

// Records VmHWM (peak resident memory of the whole process, every thread) when the CLI exits.
const peakProbe = join(mkdtempSync(join(tmpdir(), 'equivox-peak-')), 'peak.cjs');
writeFileSync(
  peakProbe,
  "process.on('exit', () => { try { const m = /VmHWM:\\s*(\\d+)/.exec(require('fs').readFileSync('/proc/self/status', 'utf8')); process.stderr.write(`EQUIVOX_PEAK_KB=${m ? m[1] : 0}\\n`); } catch {} });\n",
);

const dir = mkdtempSync(join(tmpdir(), 'equivox-import-scale-'));
makeTone(join(dir, 'clips', 'c0.wav'), { freq: 300, seconds: 0.5 });
for (let i = 1; i < real; i += 1) {
  if (i % 20 === 0) copyFileSync(join(dir, 'clips', 'c0.wav'), join(dir, 'clips', `c${i}.wav`));
  else makeTone(join(dir, 'clips', `c${i}.wav`), { freq: 200 + i * 5, seconds: 0.5 });
}
const every = Math.max(1, Math.floor(rows / Math.max(1, real)));
const lines = ['path,speaker,gender,transcript'];
for (let i = 0; i < rows; i += 1) {
  const k = i / every;
  const path = i % every === 0 && k < real ? `clips/c${k}.wav` : `missing/m${i}.wav`;
  lines.push(`${path},s${i % 500},${i % 2 ? 'female' : 'male'},"a short sentence, number ${i}"`);
}
const manifest = join(dir, 'manifest.csv');
writeFileSync(manifest, `${lines.join('\n')}\n`);

interface Run {
  repo: string;
  round: number;
  wallS: number;
  peakRssMb: number;
  stdoutBytes: number;
  imported: number | null;
  failed: number | null;
  exit: number | null;
}

function cli(repo: string, args: string[], home: string): { status: number | null; stdout: string; stderr: string; wallS: number } {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ['--require', peakProbe, '--import', 'tsx', join(repo, 'src/main/cli.ts'), ...args], {
    cwd: repo,
    env: { ...process.env, EQUIVOX_HOME: home },
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, wallS: (performance.now() - t0) / 1000 };
}

const runs: Run[] = [];
for (let round = 0; round < rounds; round += 1) {
  for (const repo of repos) {
    const home = mkdtempSync(join(tmpdir(), 'equivox-import-scale-home-'));
    const project = join(home, 'project');
    mkdirSync(home, { recursive: true });
    const created = cli(repo, ['projects', 'create', '--name', 'Scale', '--dir', project], home);
    if (created.status !== 0) throw new Error(`projects create failed in ${repo}: ${created.stderr}`);
    const r = cli(repo, ['datasets', 'import', '--project', project, '--manifest', manifest, '--map', 'path=path,speaker=speaker,gender=group,transcript=transcript'], home);
    let out: { imported?: number; failed?: unknown[]; failedCount?: number } = {};
    try {
      out = JSON.parse(r.stdout) as typeof out;
    } catch {
      // reported as nulls below
    }
    const peak = Number(/EQUIVOX_PEAK_KB=(\d+)/.exec(r.stderr)?.[1] ?? 0);
    runs.push({
      repo,
      round,
      wallS: Math.round(r.wallS * 10) / 10,
      peakRssMb: Math.round(peak / 1024),
      stdoutBytes: Buffer.byteLength(r.stdout),
      imported: out.imported ?? null,
      failed: out.failedCount ?? out.failed?.length ?? null,
      exit: r.status,
    });
    process.stderr.write(`${JSON.stringify(runs[runs.length - 1])}\n`);
    rmSync(home, { recursive: true, force: true });
  }
}
rmSync(dir, { recursive: true, force: true });
console.log(JSON.stringify({ rows, realClips: real, manifestBytes: Buffer.byteLength(lines.join('\n')), loadAverage1m: loadavg()[0], runs }, null, 2));
