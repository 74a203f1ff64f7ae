/**
 * Paper-scale benchmark of the statistics engine (`npm run bench:stats`). Prints figures;
 * it asserts nothing about time.
 *
 * 1. SpEAT: 16 models × 6 tests, each 60+60 targets and 60+60 attributes of 1024
 *    dimensions, 100,000 permutations, 10,000 bootstrap resamples at 30 sample sizes
 *    (2, 4, …, 60), spread over worker threads (default 2; BENCH_WORKERS to change).
 * 2. One such test through the `equivox` bin (node out/cli/equivox.mjs, process start
 *    included) against bench/speat_numpy.py doing the same work: the ratio of each round and
 *    their median (issue 36's goal ≤ 0.35), wall clock and, on Linux, CPU seconds (the
 *    children's user + system time from /proc, 10 ms ticks: on a machine shared with other
 *    work the CPU ratio moves less than the wall-clock one), with the one-minute load average
 *    of each round. Interleaved rounds (3 by default); beside it the same test through
 *    `npm run --silent cli` (the documented command; its target ≤ 0.5), the bin at
 *    --threads 1, the speaker-level variant (200 speakers × 5 clips per group, from an
 *    associations file with speakersX/speakersY: the speaker-level and the paper's clip-level
 *    permutation tests), and the fixed costs: `npm run --silent cli -- --help`
 *    (npm, its shell and the CLI's start, no work), `node -e 0` as the environment is and
 *    without NODE_EXTRA_CA_CERTS (Node 20 reads every certificate of that file before it
 *    runs any code; `npm run` starts two Node processes), the same test through npm with
 *    that variable unset, and numpy's import.
 * 3. WER over 100,000 utterances with 1,000 bootstrap resamples (and 1,000 permutations).
 *
 * Options: --quick (fewer tests, for a smoke run), --skip-cli, --skip-wer, --cli-only,
 * --rounds N (CLI comparison rounds).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { analyseWer, bootstrapSpeatSE, Rng, speatAssociations, speatFromAssociations, type WerRow } from '../src/main/stats';

const DIM = 1024;
const N_TARGET = 60;
const N_ATTR = 60;
const PERMUTATIONS = 100_000;
const RESAMPLES = 10_000;
const SIZES = Array.from({ length: 30 }, (_, i) => 2 * (i + 1));

function gaussianRows(rng: Rng, n: number, shift: number): Float64Array[] {
  return Array.from({ length: n }, () => {
    const row = new Float64Array(DIM);
    for (let j = 0; j < DIM; j += 2) {
      // Box–Muller
      const u = 1 - rng.nextFloat();
      const v = rng.nextFloat();
      const r = Math.sqrt(-2 * Math.log(u));
      row[j] = r * Math.cos(2 * Math.PI * v) + (j < 16 ? shift : 0);
      if (j + 1 < DIM) row[j + 1] = r * Math.sin(2 * Math.PI * v);
    }
    return row;
  });
}

function makeTest(index: number) {
  const rng = new Rng(1234, index);
  return {
    X: gaussianRows(rng, N_TARGET, 0.2),
    Y: gaussianRows(rng, N_TARGET, 0),
    A: gaussianRows(rng, N_ATTR, 0.2),
    B: gaussianRows(rng, N_ATTR, 0),
  };
}

function runTest(index: number): { d: number; p: number; se60: number } {
  const s = speatAssociations(makeTest(index));
  const r = speatFromAssociations(s.X, s.Y, { permutations: PERMUTATIONS, seed: index });
  const se = bootstrapSpeatSE(s.X, s.Y, SIZES, { resamples: RESAMPLES, seed: index });
  return { d: r.effectSize, p: r.pValue, se60: se[se.length - 1]!.standardError };
}

const tsxApi = import.meta.resolve('tsx/esm/api');

const peakMb = () => (process.resourceUsage().maxRSS / 1024).toFixed(0);

async function speatWorkload(tests: number, workers: number): Promise<void> {
  const t0 = performance.now();
  const self = fileURLToPath(import.meta.url);
  const results = await Promise.all(
    Array.from({ length: workers }, (_, w) => {
      const indices = Array.from({ length: tests }, (_, i) => i).filter((i) => i % workers === w);
      return new Promise<{ d: number; p: number; se60: number }[]>((resolve, reject) => {
        // Workers do not inherit tsx's loader: register it in the worker before importing this file.
        const boot = `import(${JSON.stringify(tsxApi)}).then((m) => { m.register(); return import(${JSON.stringify(pathToFileURL(self).href)}); })`;
        const worker = new Worker(boot, { eval: true, workerData: { indices } });
        worker.once('message', resolve);
        worker.once('error', reject);
      });
    }),
  );
  const secs = (performance.now() - t0) / 1000;
  const all = results.flat();
  const meanSe = all.reduce((s, r) => s + r.se60, 0) / all.length;
  console.log(
    `SpEAT workload: ${tests} tests (60+60 targets, 60+60 attributes, ${DIM} dims, ${PERMUTATIONS.toLocaleString('en')} permutations, ` +
      `${RESAMPLES.toLocaleString('en')} resamples × ${SIZES.length} sizes) on ${workers} worker thread(s): ${secs.toFixed(2)} s ` +
      `(target < 60 s on 2 cores); mean SE at k=60: ${meanSe.toFixed(3)}; peak RSS ${peakMb()} MB`,
  );
}

/**
 * CPU seconds (user + system) of this process's waited-for children so far, from
 * /proc/self/stat (Linux; in clock ticks of 10 ms), or null elsewhere.
 */
function childrenCpu(): number | null {
  if (!existsSync('/proc/self/stat')) return null;
  const stat = readFileSync('/proc/self/stat', 'utf8');
  // Fields after the command name (which may hold spaces) start at field 3; cutime and cstime are fields 16 and 17.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

function timeCommand(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env): { secs: number; cpu: number | null; ok: boolean; stdout: string; stderr: string } {
  const cpu0 = childrenCpu();
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env });
  const secs = (performance.now() - t0) / 1000;
  const cpu1 = childrenCpu();
  return { secs, cpu: cpu0 === null || cpu1 === null ? null : cpu1 - cpu0, ok: r.status === 0, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

/**
 * Associations of 200 speakers × 5 clips per group, clustered by speaker (speaker SD 1, clip
 * SD 0.5, as bench/calibration-speat.ts), with their speaker ids: the speaker-level test's
 * workload. Written as `stats speat --associations` reads it.
 */
function speakerAssociations(speakersPerGroup: number, clips: number): { X: number[]; Y: number[]; speakersX: string[]; speakersY: string[] } {
  const rng = new Rng(36, 2);
  const normal = () => Math.sqrt(-2 * Math.log(1 - rng.nextFloat())) * Math.cos(2 * Math.PI * rng.nextFloat());
  const group = (prefix: string) => {
    const values: number[] = [];
    const ids: string[] = [];
    for (let k = 0; k < speakersPerGroup; k += 1) {
      const speaker = normal();
      for (let c = 0; c < clips; c += 1) {
        values.push(Number((0.01 * (speaker + 0.5 * normal())).toPrecision(7)));
        ids.push(`${prefix}${k}`);
      }
    }
    return { values, ids };
  };
  const x = group('x');
  const y = group('y');
  return { X: x.values, Y: y.values, speakersX: x.ids, speakersY: y.ids };
}

const median = (xs: number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const secs = (xs: number[]): string => xs.map((x) => x.toFixed(2)).join(', ');

function cliVsNumpy(rounds: number): void {
  const dir = mkdtempSync(join(tmpdir(), 'equivox-bench-'));
  try {
    const file = join(dir, 'speat.json');
    const t = makeTest(0);
    const toArr = (rows: Float64Array[]) => rows.map((r) => Array.from(r, (v) => Number(v.toPrecision(7))));
    writeFileSync(file, JSON.stringify({ X: toArr(t.X), Y: toArr(t.Y), A: toArr(t.A), B: toArr(t.B) }));
    const speakerFile = join(dir, 'speat-speakers.json');
    writeFileSync(speakerFile, JSON.stringify(speakerAssociations(200, 5)));
    const sizes = SIZES.join(',');
    const statsArgs = ['stats', 'speat', '--input', file, '--permutations', String(PERMUTATIONS), '--bootstrap', String(RESAMPLES), '--sample-sizes', sizes, '--seed', '1'];
    const speakerArgs = ['stats', 'speat', '--associations', speakerFile, '--permutations', String(PERMUTATIONS), '--seed', '1'];
    const bundlePath = fileURLToPath(new URL('../out/cli/equivox.mjs', import.meta.url));
    const numpyScript = fileURLToPath(new URL('./speat_numpy.py', import.meta.url));
    const noExtraCerts = { ...process.env };
    delete noExtraCerts.NODE_EXTRA_CA_CERTS;
    const certsSet = Boolean(process.env.NODE_EXTRA_CA_CERTS);
    type Run = { secs: number; cpu: number | null };
    const runs = {
      npm: [] as Run[],
      npmBare: [] as Run[],
      npmHelp: [] as Run[],
      bundle: [] as Run[],
      bundle1: [] as Run[],
      speakers: [] as Run[],
      numpy: [] as Run[],
      node: [] as Run[],
      nodeBare: [] as Run[],
      numpyImport: [] as Run[],
    };
    const loads: number[] = [];
    let outputs: { bundle: string; numpy: string; speakers: string } | undefined;
    for (let round = 0; round < rounds; round += 1) {
      loads.push(loadavg()[0]!);
      // The bin (process start included) and numpy back to back, so that each round's ratio
      // is taken under the same load; then the documented command, `npm run --silent cli`
      // (scripts/cli.mjs: the bundled CLI, rebuilt only when a source changed), and the rest.
      const bundle = timeCommand(process.execPath, [bundlePath, ...statsArgs]);
      const py = timeCommand('python3', [numpyScript, file, String(PERMUTATIONS), String(RESAMPLES), sizes]);
      const viaNpm = timeCommand('npm', ['run', '--silent', 'cli', '--', ...statsArgs]);
      const bundle1 = timeCommand(process.execPath, [bundlePath, ...statsArgs, '--threads', '1']);
      const speakers = timeCommand(process.execPath, [bundlePath, ...speakerArgs]);
      if (!viaNpm.ok || !bundle.ok || !bundle1.ok || !py.ok || !speakers.ok) {
        console.log(
          `CLI vs numpy: failed (npm run cli ok=${viaNpm.ok}, bundle ok=${bundle.ok}/${bundle1.ok}, speakers ok=${speakers.ok}, numpy ok=${py.ok}) ` +
            `${bundle.stderr.slice(-400)} ${speakers.stderr.slice(-400)} ${py.stderr.slice(-400)}`,
        );
        return;
      }
      runs.npm.push(viaNpm);
      runs.bundle.push(bundle);
      runs.bundle1.push(bundle1);
      runs.speakers.push(speakers);
      runs.numpy.push(py);
      // The documented command's fixed cost: npm, its shell and the CLI printing its usage.
      runs.npmHelp.push(timeCommand('npm', ['run', '--silent', 'cli', '--', '--help']));
      if (certsSet) runs.npmBare.push(timeCommand('npm', ['run', '--silent', 'cli', '--', ...statsArgs], noExtraCerts));
      runs.node.push(timeCommand(process.execPath, ['-e', '0']));
      runs.nodeBare.push(timeCommand(process.execPath, ['-e', '0'], noExtraCerts));
      runs.numpyImport.push(timeCommand('python3', ['-c', 'import numpy']));
      if (bundle.stdout !== bundle1.stdout || viaNpm.stdout !== bundle.stdout) console.log('  warning: the outputs differ between runs or thread counts');
      outputs = { bundle: bundle.stdout, numpy: py.stdout, speakers: speakers.stdout };
    }
    const wall = (xs: Run[]) => xs.map((x) => x.secs);
    const cpu = (xs: Run[]) => (xs.every((x) => x.cpu !== null) ? xs.map((x) => x.cpu!) : null);
    const a = JSON.parse(outputs!.bundle) as { effectSize: number; pValue: number; pTwoSided: number };
    const b = JSON.parse(outputs!.numpy) as { effectSize: number; pValue: number };
    const perRound = (xs: Run[], ys: Run[], of: (r: Run) => number | null) => xs.map((x, i) => of(x)! / of(ys[i]!)!);
    const wallRatios = perRound(runs.bundle, runs.numpy, (r) => r.secs);
    const binCpu = cpu(runs.bundle);
    const numpyCpu = cpu(runs.numpy);
    const cpuRatios = binCpu && numpyCpu ? perRound(runs.bundle, runs.numpy, (r) => r.cpu) : null;
    const load = `load average ${loads.map((l) => l.toFixed(1)).join(', ')} at the start of each round, ${availableParallelism()} cores`;
    console.log(
      `SpEAT paper-scale test through the equivox bin (node out/cli/equivox.mjs stats speat, process start included), ${rounds} interleaved rounds (${load}):\n` +
        `  bin ${secs(wall(runs.bundle))} s, numpy (python3 bench/speat_numpy.py, process start included) ${secs(wall(runs.numpy))} s: ` +
        `ratio bin/numpy ${wallRatios.map((r) => r.toFixed(2)).join(', ')}, median ${median(wallRatios).toFixed(2)} (goal ≤ 0.35)` +
        (cpuRatios
          ? `\n  CPU seconds (user + system): bin ${secs(binCpu!)}, numpy ${secs(numpyCpu!)}: ratio ${cpuRatios.map((r) => r.toFixed(2)).join(', ')}, median ${median(cpuRatios).toFixed(2)}`
          : '') +
        `\n  d: ${a.effectSize.toFixed(6)} vs ${b.effectSize.toFixed(6)}; one-sided p: ${a.pValue} vs ${b.pValue}; two-sided p ${a.pTwoSided}; same output at --threads 1: ${secs(wall(runs.bundle1))} s`,
    );
    const spk = JSON.parse(outputs!.speakers) as { unit: string; pTwoSided: number; clipLevel?: { pTwoSided: number } };
    const spkCpu = cpu(runs.speakers);
    console.log(
      `  speaker-level variant, 200 speakers × 5 clips per group (--associations with speakersX/speakersY, ${PERMUTATIONS.toLocaleString('en')} permutations; ` +
        `the speaker-level test and the paper's clip-level test over 2,000 clips, process start included): ${secs(wall(runs.speakers))} s` +
        (spkCpu ? ` (CPU ${secs(spkCpu)} s)` : '') +
        `; unit ${spk.unit}, two-sided p ${spk.pTwoSided} by speaker, ${spk.clipLevel?.pTwoSided} by clip`,
    );
    const npmRatios = perRound(runs.npm, runs.numpy, (r) => r.secs);
    console.log(
      `  through \`npm run --silent cli -- stats speat …\`: ${secs(wall(runs.npm))} s, ratio ${npmRatios.map((r) => r.toFixed(2)).join(', ')}, median ${median(npmRatios).toFixed(2)} (target ≤ 0.5)`,
    );
    const medianNumpy = median(wall(runs.numpy));
    console.log(
      `  the documented command's fixed cost, \`npm run --silent cli -- --help\`: ${secs(wall(runs.npmHelp))} s, median ${(median(wall(runs.npmHelp)) / medianNumpy).toFixed(2)} of numpy's median before any work` +
        (certsSet
          ? `; the same test with NODE_EXTRA_CA_CERTS unset for npm and the CLI: ${secs(wall(runs.npmBare))} s, median ratio ${(median(wall(runs.npmBare)) / medianNumpy).toFixed(2)}`
          : ''),
    );
    const nodeCpu = cpu(runs.node);
    console.log(
      `  fixed costs: node -e 0 ${secs(wall(runs.node))} s${nodeCpu ? ` (CPU ${secs(nodeCpu)} s)` : ''}` +
        (certsSet ? ` (NODE_EXTRA_CA_CERTS is set: ${secs(wall(runs.nodeBare))} s without it; \`npm run\` starts two Node processes)` : '') +
        `; python3 -c "import numpy" ${secs(wall(runs.numpyImport))} s`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function werWorkload(): void {
  const rng = new Rng(77);
  const vocab = Array.from({ length: 2000 }, (_, i) => `w${i.toString(36)}`);
  const rows: WerRow[] = [];
  const groups = ['g1', 'g2', 'g3', 'g4'];
  for (let i = 0; i < 100_000; i += 1) {
    const g = groups[i % 4]!;
    const len = 5 + rng.nextInt(16);
    const ref = Array.from({ length: len }, () => vocab[rng.nextInt(vocab.length)]!);
    const errRate = 0.05 + 0.03 * (i % 4);
    const hyp: string[] = [];
    for (const w of ref) {
      const u = rng.nextFloat();
      if (u < errRate / 3) continue;
      if (u < (2 * errRate) / 3) hyp.push(vocab[rng.nextInt(vocab.length)]!);
      else hyp.push(w);
      if (u > 1 - errRate / 3) hyp.push(vocab[rng.nextInt(vocab.length)]!);
    }
    rows.push({ id: String(i), group: g, reference: ref.join(' '), hypothesis: hyp.join(' '), speaker: `${g}-s${i % 400}` });
  }
  const t0 = performance.now();
  const r = analyseWer(rows, { bootstrap: 1000, permutations: 1000, seed: 1 });
  const secs = (performance.now() - t0) / 1000;
  const t1 = performance.now();
  analyseWer(rows, { bootstrap: 1000, permutations: 1000, seed: 1, by: 'speaker' });
  const secsSpk = (performance.now() - t1) / 1000;
  console.log(
    `WER: 100,000 utterances, 1,000 bootstrap resamples + 1,000 permutations, 4 groups: ${secs.toFixed(2)} s by utterance, ` +
      `${secsSpk.toFixed(2)} s by speaker (WER ${groups.map((g) => r.groups[g]!.wer!.toFixed(4)).join(', ')}); peak RSS ${peakMb()} MB`,
  );
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const quick = argv.includes('--quick');
  const cliOnly = argv.includes('--cli-only');
  const roundsAt = argv.indexOf('--rounds');
  const rounds = roundsAt >= 0 ? Number(argv[roundsAt + 1]) : 3;
  const workers = Number(process.env.BENCH_WORKERS ?? 2);
  console.log(`node ${process.version}, ${process.platform}/${process.arch}, ${availableParallelism()} cores`);
  if (!cliOnly) await speatWorkload(quick ? 4 : 96, workers);
  if (!argv.includes('--skip-cli')) cliVsNumpy(rounds);
  if (!argv.includes('--skip-wer') && !cliOnly) werWorkload();
}

if (isMainThread) {
  await main();
} else {
  const { indices } = workerData as { indices: number[] };
  parentPort!.postMessage(indices.map(runTest));
}
