/**
 * Calibration of the WER tests (`npm run bench:calibration`): simulated audits with no true
 * group difference and speakers who differ in error rate, run through the app's own test
 * code (compareWerGroups in src/main/stats/wer.ts), and the share of audits in which each
 * test calls the difference "unlikely to be chance" at nominal 5%: the false-positive rate,
 * with a Wilson 95% interval. Then the same with one group's error rate 1.3 times the
 * reference's: the power. Prints a table; asserts nothing.
 *
 * Simulation (METHODS.md § WER and CER): k groups (2–4), n speakers per group (4–50), each
 * speaker 5–20 utterances of 4–18 reference words; speaker s has error rate
 * 0.12 · exp(u_s), u_s ~ N(0, 0.5²) (log-normal, SD 0.5, as in issue 13); errors ~ Poisson.
 * The comparison judged is the first non-reference group against the reference group.
 *
 * Options: --sims N (null simulations per scenario, default 400; power uses half),
 * --permutations N (default 999), --quick (100 simulations, three scenarios).
 * BENCH_WORKERS (default 2) worker threads share the simulations.
 */
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { compareWerGroups, Rng } from '../src/main/stats';

interface Scenario {
  groups: number;
  speakers: number;
}
interface Job {
  scenario: Scenario;
  rateRatio: number;
  sims: number;
  firstSim: number;
  permutations: number;
}
/** Per test, how many simulations rejected at 5%; and how often each primary test was chosen. */
interface Tally {
  n: number;
  reject: Record<string, number>;
  primary: Record<string, number>;
}

const TESTS = ['primary', 'mixed-poisson', 'speaker-permutation', 'utterance-permutation', 'poisson-fixed', 'overall-primary'] as const;
const BASE_RATE = 0.12;
const SPEAKER_SD = 0.5;

function normal(rng: Rng): number {
  const u = 1 - rng.nextFloat();
  const v = rng.nextFloat();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** Poisson by inversion of the CDF (λ here stays below about 15). */
function poisson(rng: Rng, lambda: number): number {
  const u = rng.nextFloat();
  let k = 0;
  let p = Math.exp(-lambda);
  let cdf = p;
  while (u > cdf && k < 1000) {
    k += 1;
    p *= lambda / k;
    cdf += p;
  }
  return k;
}

function simulate(rng: Rng, s: Scenario, rateRatio: number): { errors: Float64Array; words: Float64Array; groups: string[]; speakers: string[] } {
  const errors: number[] = [];
  const words: number[] = [];
  const groups: string[] = [];
  const speakers: string[] = [];
  for (let g = 0; g < s.groups; g += 1) {
    // Group "g0" is the reference; "g1" carries the rate ratio in power runs.
    const rr = g === 1 ? rateRatio : 1;
    for (let k = 0; k < s.speakers; k += 1) {
      const u = SPEAKER_SD * normal(rng);
      const utterances = 5 + rng.nextInt(16);
      for (let i = 0; i < utterances; i += 1) {
        const w = 4 + rng.nextInt(15);
        errors.push(poisson(rng, w * BASE_RATE * rr * Math.exp(u)));
        words.push(w);
        groups.push(`g${g}`);
        speakers.push(`g${g}-s${k}`);
      }
    }
  }
  return { errors: Float64Array.from(errors), words: Float64Array.from(words), groups, speakers };
}

function runJob(job: Job): Tally {
  const tally: Tally = { n: 0, reject: Object.fromEntries(TESTS.map((t) => [t, 0])), primary: {} };
  for (let k = 0; k < job.sims; k += 1) {
    const sim = job.firstSim + k;
    const rng = Rng.stream(20_261_130 + job.scenario.groups * 1000 + job.scenario.speakers, sim * 2 + (job.rateRatio === 1 ? 0 : 1));
    const d = simulate(rng, job.scenario, job.rateRatio);
    const withSpeakers = compareWerGroups({ ...d }, 'g0', { by: 'speaker', permutations: job.permutations, seed: sim });
    const withoutSpeakers = compareWerGroups({ ...d, speakers: null }, 'g0', { by: 'utterance', permutations: job.permutations, seed: sim });
    const c = withSpeakers.comparisons.find((x) => x.group === 'g1')!;
    const u = withoutSpeakers.comparisons.find((x) => x.group === 'g1')!;
    const ps: Record<(typeof TESTS)[number], number> = {
      primary: c.primary.pValue,
      'mixed-poisson': c.mixed?.pValue ?? NaN,
      'speaker-permutation': c.permutationPValue,
      'utterance-permutation': u.permutationPValue,
      'poisson-fixed': c.poisson.pValue,
      'overall-primary': withSpeakers.overallPrimary?.pValue ?? NaN,
    };
    tally.n += 1;
    for (const t of TESTS) if (ps[t] < 0.05) tally.reject[t] += 1;
    tally.primary[c.primary.test] = (tally.primary[c.primary.test] ?? 0) + 1;
  }
  return tally;
}

if (!isMainThread) {
  parentPort!.postMessage(runJob(workerData as Job));
} else {
  const args = process.argv.slice(2);
  const opt = (name: string, fallback: number): number => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? Number(args[i + 1]) : fallback;
  };
  const quick = args.includes('--quick');
  const sims = opt('sims', quick ? 100 : 400);
  const permutations = opt('permutations', 999);
  const workers = Math.max(1, Number(process.env.BENCH_WORKERS ?? 2));
  const scenarios: Scenario[] = quick
    ? [{ groups: 2, speakers: 4 }, { groups: 2, speakers: 20 }, { groups: 3, speakers: 20 }]
    : [
        { groups: 2, speakers: 4 },
        { groups: 2, speakers: 10 },
        { groups: 2, speakers: 20 },
        { groups: 2, speakers: 50 },
        { groups: 3, speakers: 20 },
        { groups: 4, speakers: 10 },
        { groups: 4, speakers: 30 },
      ];

  const runParallel = async (scenario: Scenario, rateRatio: number, n: number): Promise<Tally> => {
    const per = Math.ceil(n / workers);
    const parts = await Promise.all(
      Array.from({ length: workers }, (_, w) => {
        const count = Math.max(0, Math.min(per, n - w * per));
        const job: Job = { scenario, rateRatio, sims: count, firstSim: w * per, permutations };
        return new Promise<Tally>((resolve, reject) => {
          // Workers do not inherit tsx's loader: register it in the worker before importing this file.
          const tsxApi = import.meta.resolve('tsx/esm/api');
          const boot = `import(${JSON.stringify(tsxApi)}).then((m) => { m.register(); return import(${JSON.stringify(pathToFileURL(fileURLToPath(import.meta.url)).href)}); })`;
          const worker = new Worker(boot, { eval: true, workerData: job });
          worker.once('message', resolve);
          worker.once('error', reject);
        });
      }),
    );
    return parts.reduce((acc, t) => {
      acc.n += t.n;
      for (const k of TESTS) acc.reject[k] += t.reject[k]!;
      for (const [k, v] of Object.entries(t.primary)) acc.primary[k] = (acc.primary[k] ?? 0) + v;
      return acc;
    }, { n: 0, reject: Object.fromEntries(TESTS.map((t) => [t, 0])), primary: {} } as Tally);
  };

  /** Wilson score interval for k of n. */
  const wilson = (k: number, n: number): [number, number] => {
    const z = 1.959963984540054;
    const p = k / n;
    const den = 1 + (z * z) / n;
    const centre = (p + (z * z) / (2 * n)) / den;
    const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / den;
    return [Math.max(0, centre - half), Math.min(1, centre + half)];
  };
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  const cell = (k: number, n: number) => {
    const [lo, hi] = wilson(k, n);
    return `${pct(k / n)} (${pct(lo)}–${pct(hi)})`;
  };

  const t0 = performance.now();
  console.log(`WER test calibration: ${sims} null simulations and ${Math.ceil(sims / 2)} at rate ratio 1.3 per scenario; speaker SD ${SPEAKER_SD} (log scale), base WER ${BASE_RATE}, 5–20 utterances of 4–18 words per speaker; ${permutations} permutations; ${workers} worker(s).`);
  console.log('False-positive rate at nominal 5% (Wilson 95% CI); power at rate ratio 1.3 for the primary test.\n');
  console.log('| groups × speakers | primary test | FPR primary | FPR mixed model (Wald) | FPR speaker permutation | FPR utterance permutation | FPR fixed-effects Poisson | FPR overall primary | power primary |');
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const s of scenarios) {
    const nul = await runParallel(s, 1, sims);
    const alt = await runParallel(s, 1.3, Math.ceil(sims / 2));
    const primaryNames = Object.entries(nul.primary).map(([k, v]) => (v === nul.n ? k : `${k} ${v}/${nul.n}`)).join(', ');
    const overall = nul.reject['overall-primary']!;
    const overallCell = s.speakers >= 5 ? cell(overall, nul.n) : 'none (a group has < 5 speakers)';
    console.log(
      `| ${s.groups} × ${s.speakers} | ${primaryNames} | ${cell(nul.reject.primary!, nul.n)} | ${s.speakers >= 5 ? cell(nul.reject['mixed-poisson']!, nul.n) : `(${cell(nul.reject['mixed-poisson']!, nul.n)})`} | ${cell(nul.reject['speaker-permutation']!, nul.n)} | ${cell(nul.reject['utterance-permutation']!, nul.n)} | ${cell(nul.reject['poisson-fixed']!, nul.n)} | ${overallCell} | ${cell(alt.reject.primary!, alt.n)} |`,
    );
  }
  console.log(`\nTook ${((performance.now() - t0) / 1000).toFixed(0)} s. The primary test's target: a false-positive rate within 2–7% at 20 or more speakers per group.`);
}
