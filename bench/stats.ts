/**
 * Paper-scale benchmark of the statistics engine (`npm run bench:stats`). Prints figures;
 * it asserts nothing about time.
 *
 * 1. SpEAT: 16 models × 6 tests, each 60+60 targets and 60+60 attributes of 1024
 *    dimensions, 100,000 permutations, 10,000 bootstrap resamples at 30 sample sizes
 *    (2, 4, …, 60), spread over worker threads (default 2; BENCH_WORKERS to change).
 * 2. One such test through `npm run --silent cli` (the bundled CLI), process start included,
 *    against bench/speat_numpy.py doing the same work (ratio printed; target ≤ 0.5), in
 *    interleaved rounds (3 by default), with the bundle alone at 1 and at the default
 *    number of threads, and the fixed costs beside them: `npm run --silent cli -- --help`
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
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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

function timeCommand(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env): { secs: number; ok: boolean; stdout: string; stderr: string } {
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env });
  return { secs: (performance.now() - t0) / 1000, ok: r.status === 0, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
const secs = (xs: number[]): string => xs.map((x) => x.toFixed(2)).join(', ');

function cliVsNumpy(rounds: number): void {
  const dir = mkdtempSync(join(tmpdir(), 'equivox-bench-'));
  try {
    const file = join(dir, 'speat.json');
    const t = makeTest(0);
    const toArr = (rows: Float64Array[]) => rows.map((r) => Array.from(r, (v) => Number(v.toPrecision(7))));
    writeFileSync(file, JSON.stringify({ X: toArr(t.X), Y: toArr(t.Y), A: toArr(t.A), B: toArr(t.B) }));
    const sizes = SIZES.join(',');
    const statsArgs = ['stats', 'speat', '--input', file, '--permutations', String(PERMUTATIONS), '--bootstrap', String(RESAMPLES), '--sample-sizes', sizes, '--seed', '1'];
    const bundlePath = fileURLToPath(new URL('../out/cli/equivox.mjs', import.meta.url));
    const numpyScript = fileURLToPath(new URL('./speat_numpy.py', import.meta.url));
    const noExtraCerts = { ...process.env };
    delete noExtraCerts.NODE_EXTRA_CA_CERTS;
    const certsSet = Boolean(process.env.NODE_EXTRA_CA_CERTS);
    const runs = {
      npm: [] as number[],
      npmBare: [] as number[],
      npmHelp: [] as number[],
      bundle: [] as number[],
      bundle1: [] as number[],
      numpy: [] as number[],
      node: [] as number[],
      nodeBare: [] as number[],
      numpyImport: [] as number[],
    };
    const loads: number[] = [];
    let outputs: { npm: string; bundle1: string; numpy: string } | undefined;
    for (let round = 0; round < rounds; round += 1) {
      loads.push(loadavg()[0]!);
      // The documented command, `npm run --silent cli` (scripts/cli.mjs: the bundled CLI,
      // rebuilt only when a source changed), then the bundle alone, then numpy.
      const viaNpm = timeCommand('npm', ['run', '--silent', 'cli', '--', ...statsArgs]);
      const bundle = timeCommand(process.execPath, [bundlePath, ...statsArgs]);
      const bundle1 = timeCommand(process.execPath, [bundlePath, ...statsArgs, '--threads', '1']);
      const py = timeCommand('python3', [numpyScript, file, String(PERMUTATIONS), String(RESAMPLES), sizes]);
      if (!viaNpm.ok || !bundle.ok || !bundle1.ok || !py.ok) {
        console.log(`CLI vs numpy: failed (npm run cli ok=${viaNpm.ok}, bundle ok=${bundle.ok}/${bundle1.ok}, numpy ok=${py.ok}) ${viaNpm.stderr.slice(-400)} ${py.stderr.slice(-400)}`);
        return;
      }
      runs.npm.push(viaNpm.secs);
      runs.bundle.push(bundle.secs);
      runs.bundle1.push(bundle1.secs);
      runs.numpy.push(py.secs);
      // The documented command's fixed cost: npm, its shell and the CLI printing its usage.
      runs.npmHelp.push(timeCommand('npm', ['run', '--silent', 'cli', '--', '--help']).secs);
      if (certsSet) runs.npmBare.push(timeCommand('npm', ['run', '--silent', 'cli', '--', ...statsArgs], noExtraCerts).secs);
      runs.node.push(timeCommand(process.execPath, ['-e', '0']).secs);
      runs.nodeBare.push(timeCommand(process.execPath, ['-e', '0'], noExtraCerts).secs);
      runs.numpyImport.push(timeCommand('python3', ['-c', 'import numpy']).secs);
      if (bundle.stdout !== bundle1.stdout || viaNpm.stdout !== bundle.stdout) console.log('  warning: the outputs differ between runs or thread counts');
      outputs = { npm: viaNpm.stdout, bundle1: bundle1.stdout, numpy: py.stdout };
    }
    const a = JSON.parse(outputs!.npm) as { effectSize: number; pValue: number };
    const b = JSON.parse(outputs!.numpy) as { effectSize: number; pValue: number };
    const ratios = runs.npm.map((x, i) => x / runs.numpy[i]!);
    console.log(
      `One test through \`npm run --silent cli -- stats speat …\`, process start included, ${rounds} interleaved rounds (load average ${secs(loads)}): ` +
        `${secs(runs.npm)} s; numpy (python3 bench/speat_numpy.py, process start included): ${secs(runs.numpy)} s; ` +
        `ratio npm-run-cli/numpy = ${ratios.map((r) => r.toFixed(2)).join(', ')}, median ${median(ratios).toFixed(2)} (target ≤ 0.5). ` +
        `d: ${a.effectSize.toFixed(6)} vs ${b.effectSize.toFixed(6)}; p: ${a.pValue} vs ${b.pValue}`,
    );
    console.log(
      `  the bundled CLI alone (node out/cli/equivox.mjs): ${secs(runs.bundle)} s (${availableParallelism()} threads), ${secs(runs.bundle1)} s (--threads 1, same output); ` +
        `median ratio ${(median(runs.bundle) / median(runs.numpy)).toFixed(2)}`,
    );
    const medianNumpy = median(runs.numpy);
    console.log(
      `  the documented command's fixed cost, \`npm run --silent cli -- --help\`: ${secs(runs.npmHelp)} s, median ${(median(runs.npmHelp) / medianNumpy).toFixed(2)} of numpy's median before any work` +
        (certsSet
          ? `; the same test with NODE_EXTRA_CA_CERTS unset for npm and the CLI: ${secs(runs.npmBare)} s, median ratio ${(median(runs.npmBare) / medianNumpy).toFixed(2)}`
          : ''),
    );
    console.log(
      `  fixed costs: node -e 0 ${secs(runs.node)} s` +
        (process.env.NODE_EXTRA_CA_CERTS ? ` (NODE_EXTRA_CA_CERTS is set: ${secs(runs.nodeBare)} s without it; \`npm run\` starts two Node processes)` : '') +
        `; python3 -c "import numpy" ${secs(runs.numpyImport)} s`,
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
