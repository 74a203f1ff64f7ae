/**
 * WER verdicts by speaker count (issue 32.2; a section of `npm run bench:calibration`, run
 * alone with `--only wer-speakers`): simulated audits of two groups with S speakers each
 * (S = 4, 5, 6, 10, 20), 10 utterances of 4–18 reference words per speaker, speaker error
 * rates 0.12 · exp(u_s), u_s ~ N(0, 0.5²) (log-normal, SD 0.5, as the WER section), errors
 * Poisson. Everything is judged by compareWerGroups, the app's own code, with its default
 * bootstrap (WER_LR_BOOTSTRAP replicates at most, stopping after WER_LR_STOP_AFTER hits).
 *
 * 1. Null audits (no group difference): how often the primary test says "unlikely to be
 *    chance" at nominal 5% (target ≤ 7%), with the mixed model's Wald test and the χ²
 *    reference of its likelihood-ratio statistic beside it for contrast (what the verdict
 *    used before, and what the bootstrap calibrates below 20 speakers; from 20 the χ²
 *    reference is the primary test). With 4 speakers there is no verdict.
 * 2. The planted effect of the WER section (a rate ratio of 1.3): the primary test's power.
 * 3. The stated MDE: per S one pilot audit without a difference, the minimum detectable rate
 *    ratio the app states for it (werMde, 200 simulations, alpha 0.05), then audits
 *    simulated from the model fitted to the pilot at that ratio (other random streams),
 *    judged by compareWerGroups: the power should be 0.8 ± 0.07. With 4 speakers the MDE is
 *    the power statement's (the exact speaker-level permutation test), judged by that test.
 *
 * Worker threads (BENCH_WORKERS, default 2) share the simulations; each simulation has its
 * own random stream, so the figures do not depend on the number of workers.
 */
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { compareWerGroups, MIXED_MODEL_MIN_SPEAKERS, normalDraw, poissonDraw, Rng, werMde, werSimulator, type WerCounts } from '../src/main/stats';

const BASE_RATE = 0.12;
const SPEAKER_SD = 0.5;
const UTTERANCES = 10;
const ALPHA = 0.05;

interface Job {
  werSpeakers: true;
  speakers: number;
  rateRatio: number;
  firstSim: number;
  sims: number;
  /** MDE check: audits simulated from the model fitted to this pilot. */
  pilot?: { errors: number[]; words: number[]; groups: string[]; speakers: string[] };
}

interface Tally {
  n: number;
  primary: number;
  wald: number;
  lrChi2: number;
  permutation: number;
  noVerdict: number;
  tests: Record<string, number>;
  replicates: number;
}

function audit(rng: Rng, speakers: number, rateRatio: number): WerCounts {
  const errors: number[] = [];
  const words: number[] = [];
  const groups: string[] = [];
  const ids: string[] = [];
  for (let g = 0; g < 2; g += 1) {
    for (let s = 0; s < speakers; s += 1) {
      const u = SPEAKER_SD * normalDraw(rng);
      for (let i = 0; i < UTTERANCES; i += 1) {
        const w = 4 + rng.nextInt(15);
        errors.push(poissonDraw(rng, w * BASE_RATE * (g === 1 ? rateRatio : 1) * Math.exp(u)));
        words.push(w);
        groups.push(`g${g}`);
        ids.push(`g${g}-s${s}`);
      }
    }
  }
  return { errors: Float64Array.from(errors), words: Float64Array.from(words), groups, speakers: ids };
}

function run(job: Job): Tally {
  const t: Tally = { n: 0, primary: 0, wald: 0, lrChi2: 0, permutation: 0, noVerdict: 0, tests: {}, replicates: 0 };
  const sim = job.pilot ? werSimulator({ ...job.pilot, errors: Float64Array.from(job.pilot.errors), words: Float64Array.from(job.pilot.words) }, 'g0', 'g1') : null;
  if (typeof sim === 'string') throw new Error(sim);
  for (let k = 0; k < job.sims; k += 1) {
    const s = job.firstSim + k;
    // Streams apart from werMde's (8000 + sim) and from the WER section's.
    const d = sim ? sim(job.rateRatio, Rng.stream(32_202 + job.speakers, s)) : audit(Rng.stream(32_201 + job.speakers, s * 2 + (job.rateRatio === 1 ? 0 : 1)), job.speakers, job.rateRatio);
    const r = compareWerGroups(d, 'g0', { by: 'speaker', permutations: 999, seed: s });
    const c = r.comparisons[0]!;
    t.n += 1;
    if (c.primary === null) t.noVerdict += 1;
    else if (c.primary.pValue < ALPHA) t.primary += 1;
    if (c.primary) t.tests[c.primary.test] = (t.tests[c.primary.test] ?? 0) + 1;
    t.replicates += c.primary?.bootstrap?.replicates ?? 0;
    if ((c.mixed?.pValue ?? NaN) < ALPHA) t.wald += 1;
    if ((r.mixed?.overall.pValue ?? NaN) < ALPHA) t.lrChi2 += 1;
    if (c.permutationPValue < ALPHA) t.permutation += 1;
  }
  return t;
}

if (!isMainThread && (workerData as Partial<Job> | null)?.werSpeakers) parentPort!.postMessage(run(workerData as Job));

async function parallel(job: Omit<Job, 'firstSim' | 'sims' | 'werSpeakers'>, n: number, workers: number): Promise<Tally> {
  const per = Math.ceil(n / workers);
  const parts = await Promise.all(
    Array.from({ length: workers }, (_, w) => {
      const sims = Math.max(0, Math.min(per, n - w * per));
      const data: Job = { ...job, werSpeakers: true, firstSim: w * per, sims };
      return new Promise<Tally>((resolve, reject) => {
        // Workers do not inherit tsx's loader: register it in the worker before importing this file.
        const tsxApi = import.meta.resolve('tsx/esm/api');
        const boot = `import(${JSON.stringify(tsxApi)}).then((m) => { m.register(); return import(${JSON.stringify(pathToFileURL(fileURLToPath(import.meta.url)).href)}); })`;
        const worker = new Worker(boot, { eval: true, workerData: data });
        worker.once('message', resolve);
        worker.once('error', reject);
      });
    }),
  );
  return parts.reduce((a, t) => {
    a.n += t.n;
    a.primary += t.primary;
    a.wald += t.wald;
    a.lrChi2 += t.lrChi2;
    a.permutation += t.permutation;
    a.noVerdict += t.noVerdict;
    a.replicates += t.replicates;
    for (const [k, v] of Object.entries(t.tests)) a.tests[k] = (a.tests[k] ?? 0) + v;
    return a;
  });
}

/** Wilson score interval for k of n. */
function wilson(k: number, n: number): [number, number] {
  const z = 1.959963984540054;
  const p = k / n;
  const den = 1 + (z * z) / n;
  const centre = (p + (z * z) / (2 * n)) / den;
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / den;
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}
const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
const cell = (k: number, n: number): string => {
  const [lo, hi] = wilson(k, n);
  return `${k}/${n} = ${pct(k / n)} (${pct(lo)}–${pct(hi)})`;
};
const SHORT: Record<string, string> = { 'mixed-poisson-lr-bootstrap': 'bootstrap LR', 'mixed-poisson-lr': 'LR, χ²', 'mixed-poisson': 'Wald', 'speaker-permutation': 'speaker permutation' };
const testsOf = (t: Tally): string => (t.noVerdict === t.n ? 'none (no verdict)' : Object.entries(t.tests).map(([k, v]) => (v === t.n ? SHORT[k] ?? k : `${SHORT[k] ?? k} ${v}/${t.n}`)).join(', '));

export async function werSpeakersSection(options: { sims: number; powerSims: number; mdeSims: number; workers: number; speakers: number[] }): Promise<void> {
  const t0 = performance.now();
  const { sims, powerSims, mdeSims, workers } = options;
  console.log(
    `WER by speakers per group: two groups, ${UTTERANCES} utterances of 4–18 words per speaker, speaker SD ${SPEAKER_SD} (log scale), base WER ${BASE_RATE}; judged by compareWerGroups (the bootstrap at its defaults); ${workers} worker(s). ` +
      `False positives at nominal ${ALPHA} on audits without a difference (Wilson 95% CI; with the mixed model's Wald test and the χ² reference of its likelihood-ratio statistic for contrast); power at the WER section's planted rate ratio of 1.3.\n`,
  );
  console.log('| speakers per group × utterances | primary test | null audits: false positives, primary | Wald (contrast) | LR with χ² (contrast) | mean bootstrap replicates under the null | power at rate ratio 1.3, primary |');
  console.log('| --- | --- | --- | --- | --- | --- | --- |');
  for (const S of options.speakers) {
    const nul = await parallel({ speakers: S, rateRatio: 1 }, sims, workers);
    const alt = await parallel({ speakers: S, rateRatio: 1.3 }, powerSims, workers);
    const verdict = S >= MIXED_MODEL_MIN_SPEAKERS;
    console.log(
      `| ${S} × ${UTTERANCES} | ${testsOf(nul)} | ${verdict ? cell(nul.primary, nul.n) : `no verdict (${nul.n} audits)`} | ${cell(nul.wald, nul.n)} | ${cell(nul.lrChi2, nul.n)} | ${nul.tests['mixed-poisson-lr-bootstrap'] ? (nul.replicates / nul.tests['mixed-poisson-lr-bootstrap']).toFixed(0) : '–'} | ${verdict ? cell(alt.primary, alt.n) : '–'} |`,
    );
  }
  console.log(`\nTarget: false positives ≤ 7% from 5 speakers per group; the planted ratio still detected more often than at random.\n`);

  console.log(`Stated MDE: per row one pilot audit without a difference, the minimum detectable rate ratio the app states (werMde, 200 simulations, alpha ${ALPHA}), then ${mdeSims} audits simulated from the model fitted to the pilot at that ratio, judged by compareWerGroups (with 4 speakers: the power statement's exact speaker-level permutation test).\n`);
  console.log('| speakers per group × utterances | test | stated MDE (rate ratio) | its simulated power ± Monte Carlo error | power of the app’s test at the stated MDE |');
  console.log('| --- | --- | --- | --- | --- |');
  for (const S of options.speakers) {
    const d = audit(Rng.stream(32_203 + S, 0), S, 1);
    const c = compareWerGroups(d, 'g0', { by: 'speaker', permutations: 999, seed: 1 }).comparisons[0]!;
    const test = c.primary?.test ?? 'speaker-permutation';
    const m = werMde(d, 'g0', 'g1', { test, alpha: ALPHA, simulations: 200, seed: 7, permutations: 999, ...(c.primary?.bootstrap ? { lrBootstrap: { seed: 1, resamples: c.primary.bootstrap.maxReplicates } } : {}) });
    if (m.rateRatio === null) {
      console.log(`| ${S} × ${UTTERANCES} | ${SHORT[test]} | none up to ${m.maxRateRatio} (power there ${pct(m.power)}) | – | – |`);
      continue;
    }
    const pilot = { errors: Array.from(d.errors), words: Array.from(d.words), groups: [...d.groups], speakers: [...d.speakers!] };
    const check = await parallel({ speakers: S, rateRatio: m.rateRatio, pilot }, mdeSims, workers);
    const hits = c.primary ? check.primary : check.permutation;
    console.log(`| ${S} × ${UTTERANCES} | ${SHORT[test]} | ${m.rateRatio.toFixed(3)} | ${pct(m.power)} ± ${pct(m.monteCarloError)} | ${cell(hits, check.n)} |`);
  }
  console.log(`\nTarget: power 0.8 ± 0.07 at the stated MDE. WER by speakers took ${((performance.now() - t0) / 1000).toFixed(0)} s.\n`);
}
