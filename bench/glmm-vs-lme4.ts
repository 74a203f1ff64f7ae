/**
 * Mixed-effects Poisson regression against lme4 on random data sets it was not tuned on:
 * `Rscript test/golden/glmm_wer.R random N FILE` simulates N data sets (2–4 groups, 5–40
 * speakers per group, speaker SD 0–1.2, some crossed designs and utterances without
 * words) and fits glmer; this script fits the same data and prints the worst deviation
 * of each reported figure against the acceptance tolerances. Needs R with lme4 (a
 * development check; CI has no R).
 *
 *   npx tsx bench/glmm-vs-lme4.ts [N=60]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mixedPoissonGroupComparison } from '../src/main/stats';

interface RFit {
  referenceGroup: string;
  groups: string[] | string;
  coefficients: number[] | number;
  standardErrors: number[] | number;
  pValues: number[] | number;
  speakerVariance: number;
  singular: boolean;
  warnings: string[];
  overall: { chi2: number };
}
interface RDataset {
  name: string;
  note: string;
  rows: { group: string[]; speaker: string[]; words: number[]; errors: number[] };
  fits: { laplace: RFit };
}

const n = Number(process.argv[2] ?? 60);
const dir = mkdtempSync(join(tmpdir(), 'equivox-glmm-'));
const file = join(dir, 'random.json');
try {
  execFileSync('Rscript', ['test/golden/glmm_wer.R', 'random', String(n), file], { stdio: ['ignore', 'ignore', 'inherit'] });
} catch (err) {
  console.error(`Rscript with lme4 is needed for this check: ${(err as Error).message}`);
  process.exit(2);
}
const doc = JSON.parse(readFileSync(file, 'utf8')) as { versions: Record<string, string>; datasets: RDataset[] };
rmSync(dir, { recursive: true, force: true });
const arr = <T>(v: T | T[]): T[] => (Array.isArray(v) ? v : [v]);
const worst = { coefficient: 0, standardError: 0, pValue: 0, variance: 0, chi2: 0 };
const failures: string[] = [];
const warned: string[] = [];
let ms = 0;
for (const ds of doc.datasets) {
  const f = ds.fits.laplace;
  if (f.warnings.length > 0) {
    warned.push(`${ds.name} (${ds.note}): lme4 warned "${f.warnings.join('; ').replace(/\s+/g, ' ')}"`);
    continue;
  }
  const t0 = performance.now();
  const r = mixedPoissonGroupComparison(ds.rows.errors, ds.rows.words, ds.rows.group, ds.rows.speaker, f.referenceGroup);
  ms += performance.now() - t0;
  const se = arr(f.standardErrors);
  arr(f.groups).forEach((g, i) => {
    const c = r.comparisons.find((x) => x.group === g)!;
    const dc = Math.abs(c.coefficient - arr(f.coefficients)[i]!) / se[i]!;
    const ds2 = Math.abs(c.standardError / se[i]! - 1);
    const dp = Math.abs(c.pValue - arr(f.pValues)[i]!);
    worst.coefficient = Math.max(worst.coefficient, dc);
    worst.standardError = Math.max(worst.standardError, ds2);
    worst.pValue = Math.max(worst.pValue, dp);
    if (dc > 0.01 || ds2 > 0.01 || dp > 0.005) failures.push(`${ds.name} ${g}: coefficient ${dc.toExponential(1)} SE, SE ${ds2.toExponential(1)}, p ${dp.toExponential(1)}`);
  });
  const dv = f.singular ? Math.abs(r.speakerVariance) : Math.abs(r.speakerVariance / f.speakerVariance - 1);
  // A chi-square near zero has no meaningful relative error; judge those absolutely.
  const dchi = f.overall.chi2 > 0.1 ? Math.abs(r.overall.chi2 / f.overall.chi2 - 1) : Math.abs(r.overall.chi2 - f.overall.chi2);
  worst.variance = Math.max(worst.variance, dv);
  worst.chi2 = Math.max(worst.chi2, dchi);
  if (dv > 0.02 || dchi > 0.01) failures.push(`${ds.name}: speaker variance ${dv.toExponential(1)}, chi-square ${dchi.toExponential(1)}`);
}
const compared = doc.datasets.length - warned.length;
console.log(`lme4 ${doc.versions.lme4} (${doc.versions.R}); ${doc.datasets.length} random data sets, ${compared} compared, ${warned.length} left out because lme4 itself warned`);
console.log(`Equivox fit time: ${(ms / Math.max(1, compared)).toFixed(1)} ms per data set (full and reduced model)`);
console.log('| figure | worst deviation | tolerance |\n| --- | --- | --- |');
console.log(`| coefficient | ${(worst.coefficient * 100).toFixed(3)}% of its SE | 1% of SE |`);
console.log(`| standard error | ${(worst.standardError * 100).toFixed(3)}% | 1% |`);
console.log(`| Wald p | ${worst.pValue.toExponential(2)} | 0.005 |`);
console.log(`| speaker variance | ${(worst.variance * 100).toFixed(3)}% | 2% |`);
console.log(`| overall LR chi-square | ${(worst.chi2 * 100).toFixed(3)}% | 1% |`);
for (const w of warned) console.log(`  left out: ${w}`);
for (const f of failures) console.log(`  OUTSIDE TOLERANCE: ${f}`);
process.exitCode = failures.length > 0 ? 1 : 0;
