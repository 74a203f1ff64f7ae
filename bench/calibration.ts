/**
 * Calibration of the tests behind verdicts (`npm run bench:calibration`): simulated audits
 * run through the app's own code, and the share in which a test calls a difference
 * "unlikely to be chance" at nominal 5% (the false-positive rate, with a Wilson 95%
 * interval), and the power at the minimum detectable effect (MDE) the app states.
 * Prints tables; asserts nothing. Sections (--only speat,speat-speakers,fdi,wer,wer-mde,wer-speakers,ser,fdi-speakers,wer-reference; default all):
 *
 * - SpEAT (two-sided permutation p, speatPermutationTest): null audits with associations
 *   N(0, 1) in both groups; then the MDE the app states (speatMde) averaged over 50 null
 *   audits, planted as a shift of X's mean in 500 fresh audits: power should be 0.8 ± 0.05.
 *   For contrast, the power at the closed form (z_{1−α/2} + z_{0.8}) × bootstrap SE(d).
 * - SpEAT with speakers (calibration-speat.ts): embeddings clustered by speaker, 6 speakers
 *   × 4 clips per group and more: false positives of the paper's clip-level test and of the
 *   speaker-level test behind verdicts; power at the MDE stated under the speaker design.
 * - FDI (fdiPermutationNull): groups with identical genuine N(0.7, 0.1) and impostor
 *   N(0.5, 0.1) score distributions, threshold at the equal error rate, 999 shuffles.
 * - WER (compareWerGroups): k groups (2–4), n speakers per group (4–50), each speaker 5–20
 *   utterances of 4–18 reference words; speaker s has error rate 0.12 · exp(u_s),
 *   u_s ~ N(0, 0.5²) (log-normal, SD 0.5, as in issue 13); errors ~ Poisson. The comparison
 *   judged is the first non-reference group against the reference group. Then the same
 *   with one group's error rate 1.3 times the reference's: the power.
 * - SER group comparison (bench/calibration-ser.ts) and the FDI null with speakers
 *   (bench/calibration-fdi-speakers.ts): clustered null audits, see those files.
 * - WER MDE (werMde): for a pilot audit per scenario, the MDE the app states; 500 audits
 *   simulated from the model fitted to the pilot (werSimulator, other random streams) at
 *   that rate ratio, judged by compareWerGroups: the primary test's power should be
 *   0.8 ± 0.05.
 * - WER by speakers per group (bench/wer-speakers.ts): 5, 6, 10 and 20 speakers per group ×
 *   10 utterances, the primary test's false-positive rate, its power at a rate ratio of 1.3
 *   and at the MDE the app states (and 4 speakers: no verdict, the power statement's MDE).
 *
 * - WER reference (bench/calibration-reference.ts): the family-wise false-positive rate on
 *   null audits of 4 groups × 12 speakers with the reference fixed before the run, picked
 *   as the lowest-WER group, or every pair compared.
 *
 * Options: --sims N (WER null simulations per scenario, default 400; power uses half),
 * --permutations N (default 999), --speaker-sims N (WER by speakers: null audits per row,
 * default 800), --mde-sims N (WER by speakers: audits at the stated MDE, default 400),
 * --speakers LIST (WER by speakers: the rows, default 4,5,6,10,20),
 * --quick (fewer simulations and scenarios), --only LIST.
 * BENCH_WORKERS (default 2) worker threads share the WER simulations.
 */
import { fileURLToPath, pathToFileURL } from 'node:url';
import { werSpeakersSection } from './wer-speakers';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import {
  bootstrapSpeatSE,
  compareWerGroups,
  equalErrorRate,
  fdiAtThreshold,
  fdiPermutationNull,
  normalQuantile,
  Rng,
  speatMde,
  speatPermutationTest,
  werMde,
  werSimulator,
  type WerCounts,
} from '../src/main/stats';
import { speatSpeakerCalibration } from './calibration-speat';
import { fdiSpeakerCalibration } from './calibration-fdi-speakers';
import { serCalibration } from './calibration-ser';
import { referenceCalibration, referenceCalibrationTable } from './calibration-reference';

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
  /** WER MDE check: audits simulated from the model fitted to this pilot, at `rateRatio`. */
  pilot?: { data: { errors: number[]; words: number[]; groups: string[]; speakers: string[] }; alpha: number };
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

/** Audits from the model fitted to the pilot, at the stated MDE: how often the primary test rejects. */
function runMdeJob(job: Job): Tally {
  const tally: Tally = { n: 0, reject: Object.fromEntries(TESTS.map((t) => [t, 0])), primary: {} };
  const { data, alpha } = job.pilot!;
  const pilot: WerCounts = { errors: Float64Array.from(data.errors), words: Float64Array.from(data.words), groups: data.groups, speakers: data.speakers };
  const simulate = werSimulator(pilot, 'g0', 'g1');
  if (typeof simulate === 'string') throw new Error(simulate);
  for (let k = 0; k < job.sims; k += 1) {
    const sim = job.firstSim + k;
    // Streams apart from werMde's (8000 + sim) and from the null and power runs.
    const d = simulate(job.rateRatio, Rng.stream(31_337 + job.scenario.groups * 1000 + job.scenario.speakers, sim));
    const c = compareWerGroups(d, 'g0', { by: 'speaker', permutations: job.permutations, seed: sim }).comparisons.find((x) => x.group === 'g1')!;
    tally.n += 1;
    // No verdict (fewer than 5 speakers): the MDE stated is the exact speaker-level permutation test's.
    if ((c.primary?.pValue ?? c.permutationPValue) < alpha) tally.reject.primary += 1;
    const test = c.primary?.test ?? 'none (speaker-permutation)';
    tally.primary[test] = (tally.primary[test] ?? 0) + 1;
  }
  return tally;
}

function runJob(job: Job): Tally {
  if (job.pilot) return runMdeJob(job);
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
      primary: c.primary?.pValue ?? NaN,
      'mixed-poisson': c.mixed?.pValue ?? NaN,
      'speaker-permutation': c.permutationPValue,
      'utterance-permutation': u.permutationPValue,
      'poisson-fixed': c.poisson.pValue,
      'overall-primary': withSpeakers.overallPrimary?.pValue ?? NaN,
    };
    tally.n += 1;
    for (const t of TESTS) if (ps[t] < 0.05) tally.reject[t] += 1;
    const test = c.primary?.test ?? 'none';
    tally.primary[test] = (tally.primary[test] ?? 0) + 1;
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
  const onlyIndex = args.indexOf('--only');
  const only = new Set(onlyIndex >= 0 ? args[onlyIndex + 1]!.split(',') : ['speat', 'speat-speakers', 'fdi', 'wer', 'wer-mde', 'wer-speakers', 'wer-reference']);
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

  const runParallel = async (scenario: Scenario, rateRatio: number, n: number, pilot?: Job['pilot']): Promise<Tally> => {
    const per = Math.ceil(n / workers);
    const parts = await Promise.all(
      Array.from({ length: workers }, (_, w) => {
        const count = Math.max(0, Math.min(per, n - w * per));
        const job: Job = { scenario, rateRatio, sims: count, firstSim: w * per, permutations, ...(pilot ? { pilot } : {}) };
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
  const took = (since: number) => `${((performance.now() - since) / 1000).toFixed(0)} s`;

  if (only.has('speat')) {
    const t = performance.now();
    const nullSims = quick ? 400 : 2000;
    const powerSims = 500;
    const perms = 1999;
    const rng = new Rng(20_261_201);
    const draw = (n: number, shift: number) => Float64Array.from({ length: n }, () => normal(rng) + shift);
    console.log(`SpEAT two-sided permutation test: associations N(0, 1) in both groups, ${nullSims} null audits per row, ${perms} permutations; MDE as the app states it (speatMde, 2,000 simulations) averaged over 50 null audits, planted as a shift of X in ${powerSims} audits.\n`);
    console.log('| stimuli per group | alpha | false positives, two-sided | stated MDE d (mean over 50 audits) | power at the stated MDE | closed form (z+z)·SE(d) | power at the closed form |');
    console.log('| --- | --- | --- | --- | --- | --- | --- |');
    const rows: { n: number; alpha: number }[] = quick ? [{ n: 10, alpha: 0.05 }, { n: 24, alpha: 0.05 }] : [{ n: 10, alpha: 0.05 }, { n: 24, alpha: 0.05 }, { n: 24, alpha: 0.05 / 6 }, { n: 50, alpha: 0.05 }];
    for (const { n, alpha } of rows) {
      let fp = 0;
      for (let k = 0; k < nullSims; k += 1) if (speatPermutationTest(draw(n, 0), draw(n, 0), { permutations: perms, seed: k }).pTwoSided < alpha) fp += 1;
      let dSum = 0;
      let shiftSum = 0;
      let seSum = 0;
      for (let k = 0; k < 50; k += 1) {
        const x = draw(n, 0);
        const y = draw(n, 0);
        const m = speatMde(x, y, { alpha, permutations: perms, seed: k });
        dSum += m.d!;
        shiftSum += m.standardisedShift!;
        seSum += bootstrapSpeatSE(x, y, [n], { resamples: 1000, seed: k })[0]!.standardError;
      }
      const mdeD = dSum / 50;
      const shift = shiftSum / 50;
      // The closed form names a d; the shift of normal data with unit SD whose expected SpEAT d it is
      // (d² = δ²(2n−1) / ((2n−2) + nδ²/2), solved for δ).
      const closedD = (normalQuantile(1 - alpha / 2) + normalQuantile(0.8)) * (seSum / 50);
      const closedShift = closedD * Math.sqrt((2 * n - 2) / (2 * n - 1 - (n * closedD * closedD) / 2));
      let hits = 0;
      let hitsClosed = 0;
      for (let k = 0; k < powerSims; k += 1) {
        if (speatPermutationTest(draw(n, shift), draw(n, 0), { permutations: perms, seed: k }).pTwoSided < alpha) hits += 1;
        if (speatPermutationTest(draw(n, closedShift), draw(n, 0), { permutations: perms, seed: k }).pTwoSided < alpha) hitsClosed += 1;
      }
      console.log(`| ${n} | ${alpha === 0.05 ? '0.05' : `0.05 / 6 = ${alpha.toPrecision(3)}`} | ${cell(fp, nullSims)} | ${mdeD.toFixed(3)} | ${cell(hits, powerSims)} | ${closedD.toFixed(3)} | ${cell(hitsClosed, powerSims)} |`);
    }
    console.log(`\nSpEAT took ${took(t)}. Targets: false positives ≤ 7%; power 0.8 ± 0.05 at the stated MDE.\n`);
  }

  if (only.has('speat-speakers')) await speatSpeakerCalibration({ quick, cell });

  if (only.has('fdi')) {
    const t = performance.now();
    const fdiSims = quick ? 150 : 1000;
    const shuffles = 999;
    console.log(`FDI permutation null: groups with the same genuine N(0.7, 0.1) and impostor N(0.5, 0.1) score distributions, threshold at the equal error rate over all trials, ${shuffles} shuffles, ${fdiSims} null audits per row.\n`);
    console.log('| groups × trials per group | mean FDI with no group difference | false positives, null p < 5% |');
    console.log('| --- | --- | --- |');
    const rng = new Rng(20_261_202);
    for (const [G, T] of quick ? [[3, 200]] : [[2, 100], [3, 200], [4, 400]]) {
      let fp = 0;
      let fdiSum = 0;
      for (let k = 0; k < fdiSims; k += 1) {
        const groups: string[] = [];
        const labels: number[] = [];
        const scores: number[] = [];
        for (let g = 0; g < G!; g += 1) {
          for (let i = 0; i < T!; i += 1) {
            const genuine = i < T! / 2 ? 1 : 0;
            groups.push(`g${g}`);
            labels.push(genuine);
            scores.push((genuine ? 0.7 : 0.5) + 0.1 * normal(rng));
          }
        }
        const items = { groups, labels: Int8Array.from(labels), scores: Float64Array.from(scores) };
        const tau = equalErrorRate(items.scores, items.labels).threshold;
        fdiSum += fdiAtThreshold(items, tau).fdi;
        if (fdiPermutationNull(items, tau, shuffles, 0.5, 'harm', k).pValue < 0.05) fp += 1;
      }
      console.log(`| ${G} × ${T} | ${(fdiSum / fdiSims).toFixed(2)} | ${cell(fp, fdiSims)} |`);
    }
    console.log(`\nFDI took ${took(t)}. Target: false positives ≤ 7%.\n`);
  }

  if (only.has('wer')) {
    const t = performance.now();
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
        `| ${s.groups} × ${s.speakers} | ${primaryNames} | ${s.speakers >= 5 ? cell(nul.reject.primary!, nul.n) : 'no verdict (< 5 speakers)'} | ${s.speakers >= 5 ? cell(nul.reject['mixed-poisson']!, nul.n) : `(${cell(nul.reject['mixed-poisson']!, nul.n)})`} | ${cell(nul.reject['speaker-permutation']!, nul.n)} | ${cell(nul.reject['utterance-permutation']!, nul.n)} | ${cell(nul.reject['poisson-fixed']!, nul.n)} | ${overallCell} | ${s.speakers >= 5 ? cell(alt.reject.primary!, alt.n) : '–'} |`,
      );
    }
    console.log(`\nWER took ${took(t)}. The primary test's target: a false-positive rate within 2–7% from 5 speakers per group (none below: no verdict).\n`);
  }

  if (only.has('wer-mde')) {
    const t = performance.now();
    const checkSims = 500;
    const mdeSims = 200;
    console.log(`WER minimum detectable rate ratio: per scenario one pilot audit with no group difference; the MDE the app states for it (werMde, ${mdeSims} simulations, alpha 0.05); ${checkSims} audits simulated from the model fitted to the pilot at that ratio (other random streams), judged by compareWerGroups.\n`);
    console.log('| groups × speakers | primary test | stated MDE (rate ratio) | its simulated power ± Monte Carlo error | power of the app’s test at the stated MDE |');
    console.log('| --- | --- | --- | --- | --- |');
    for (const s of quick ? [{ groups: 2, speakers: 20 }] : [{ groups: 2, speakers: 4 }, { groups: 2, speakers: 10 }, { groups: 2, speakers: 20 }]) {
      const d = simulate(Rng.stream(20_261_203 + s.speakers, 0), s, 1);
      const c = compareWerGroups(d, 'g0', { by: 'speaker', permutations, seed: 1 }).comparisons.find((x) => x.group === 'g1')!;
      const test = c.primary?.test ?? 'speaker-permutation';
      const m = werMde(d, 'g0', 'g1', { test, alpha: 0.05, simulations: mdeSims, seed: 7, permutations, ...(c.primary?.bootstrap ? { lrBootstrap: { seed: 1, resamples: c.primary.bootstrap.maxReplicates } } : {}) });
      if (m.rateRatio === null) {
        console.log(`| ${s.groups} × ${s.speakers} | ${test} | none up to ${m.maxRateRatio} (power there ${pct(m.power)}) | – | – |`);
        continue;
      }
      const pilot = { data: { errors: Array.from(d.errors), words: Array.from(d.words), groups: d.groups, speakers: d.speakers }, alpha: 0.05 };
      const check = await runParallel(s, m.rateRatio, checkSims, pilot);
      const tests = Object.keys(check.primary).join(', ');
      console.log(`| ${s.groups} × ${s.speakers} | ${tests} | ${m.rateRatio.toFixed(3)} | ${pct(m.power)} ± ${pct(m.monteCarloError)} | ${cell(check.reject.primary!, check.n)} |`);
    }
    console.log(`\nWER MDE took ${took(t)}. Target: power 0.8 ± 0.05 at the stated MDE.\n`);
  }
  // Sections in their own modules; they run by default, and with --only naming them.
  if (onlyIndex < 0 || only.has('ser')) serCalibration({ quick, cell });
  if (onlyIndex < 0 || only.has('fdi-speakers')) fdiSpeakerCalibration({ quick, cell });
  if (only.has('wer-reference')) {
    // bench/calibration-reference.ts: the family-wise rate by how the reference group is chosen.
    const t = performance.now();
    const s = { groups: 4, speakers: 12 };
    const r = referenceCalibration({ audits: sims, permutations, fixedReference: 'g0', simulate: (rng) => simulate(rng, s, 1) });
    for (const line of referenceCalibrationTable(r, `${s.groups} groups × ${s.speakers} speakers`, cell)) console.log(line);
    console.log(`\nReference group took ${took(t)}.\n`);
  }

  if (only.has('wer-speakers')) {
    const si = args.indexOf('--speakers');
    const speakers = si >= 0 ? args[si + 1]!.split(',').map(Number) : quick ? [4, 6, 20] : [4, 5, 6, 10, 20];
    await werSpeakersSection({ sims: opt('speaker-sims', quick ? 100 : 800), powerSims: quick ? 50 : 200, mdeSims: opt('mde-sims', quick ? 100 : 400), workers, speakers });
  }
  console.log(`Took ${took(t0)} in all.`);
}
