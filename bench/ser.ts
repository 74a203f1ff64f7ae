/**
 * The SER trainer at encoder width on the full budget (`npm run bench:ser`): the planted
 * valence data of the unit test (test/support/ser-planted.ts: 4 hidden states of width
 * 768, 3,000 rated items, 500 target items per group) written as a `stats ser` input file
 * and run through the command line in-process, once with a few thousand steps and once with
 * the paper's 20,000. Prints each regressor's test R² against a validation-tuned ridge on
 * the planted state, the layer weights, Cohen's d against the planted truth, the parse
 * time and the time per step. Asserts nothing.
 *
 * Options: --steps N (the short run, default 3000), --full N (default 20000), --skip-full.
 */
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../src/main/cli';
import { plantedSer, ridgeBaseline } from '../test/support/ser-planted';

const args = process.argv.slice(2);
const opt = (name: string, fallback: number): number => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const shortSteps = opt('steps', 3000);
const fullSteps = opt('full', 20_000);

const t0 = performance.now();
const planted = plantedSer({ items: 3000, layers: 4, dim: 768, planted: 2, attainableR2: 0.6, rho: 0, factors: 16, featureNoise: 0.05, sharedMixing: true, shiftD: 0.5, targetsPerGroup: 500, seed: 7 });
const ridge = ridgeBaseline(planted, 2);
console.log(`planted data: 3,000 items × 4 states × 768 in ${((performance.now() - t0) / 1000).toFixed(1)} s; ridge on the planted state: test R² ${ridge.testR2.toFixed(3)} (λ ${ridge.lambda}); true Cohen's d ${planted.trueD.toFixed(3)}`);

// Write the input file item by item (the way a researcher's export would look).
const dir = mkdtempSync(join(tmpdir(), 'equivox-bench-ser-'));
const file = join(dir, 'ser-input.json');
const fd = openSync(file, 'w');
const states = (f: Float32Array) => `[${Array.from({ length: 4 }, (_, l) => `[${Array.from(f.subarray(l * 768, (l + 1) * 768)).join(',')}]`).join(',')}]`;
const writeSplit = (name: string, rows: Int32Array, last = false) => {
  writeSync(fd, `"${name}":[`);
  rows.forEach((i, k) => writeSync(fd, `${k ? ',' : ''}{"features":${states(planted.features[i]!)},"valence":${planted.ratings[i]}}`));
  writeSync(fd, `]${last ? '' : ','}`);
};
writeSync(fd, '{');
writeSplit('train', planted.split.train);
writeSplit('validation', planted.split.validation);
writeSplit('test', planted.split.test);
writeSync(fd, `"targets":{"X":[${planted.targets.X.map(states).join(',')}],"Y":[${planted.targets.Y.map(states).join(',')}]}}`);
closeSync(fd);
console.log(`input file: ${(statSync(file).size / 1e6).toFixed(0)} MB`);

async function run(steps: number): Promise<void> {
  let out = '';
  let err = '';
  const t = performance.now();
  const code = await runCli(['stats', 'ser', '--input', file, '--steps', String(steps), '--seed', '1'], { stdout: (s) => (out += s), stderr: (s) => (err += s) });
  const secs = (performance.now() - t) / 1000;
  if (code !== 0) throw new Error(`stats ser exited ${code}: ${err.slice(-2000)}`);
  const r = JSON.parse(out) as { regressors: { learningRate: number; steps: number; bestStep: number; testR2: number; layerWeights: number[] }[]; selected: { learningRate: number }; cohensD: { selected: number; pooled: number } };
  const read = /read .* in ([0-9.]+) s/.exec(err)?.[1];
  console.log(`\n${steps.toLocaleString('en')} steps per learning rate: ${secs.toFixed(0)} s in all (file read ${read ?? '?'} s; ${((secs * 1000) / (steps * r.regressors.length)).toFixed(2)} ms per step)`);
  console.log('| learning rate | test R² | share of ridge | checkpoint kept | weight on the planted state (largest?) |');
  console.log('| --- | --- | --- | --- | --- |');
  for (const g of r.regressors) {
    const w = g.layerWeights;
    const top = w.indexOf(Math.max(...w)) === 2;
    console.log(`| ${g.learningRate}${g.learningRate === r.selected.learningRate ? ' (selected)' : ''} | ${g.testR2.toFixed(3)} | ${((100 * g.testR2) / ridge.testR2).toFixed(0)}% | step ${g.bestStep} | ${w[2]!.toFixed(2)} (${top ? 'yes' : 'no'}) |`);
  }
  const rel = (d: number) => `${d.toFixed(3)} (${(100 * (d / planted.trueD - 1)).toFixed(0)}% from the truth)`;
  console.log(`Cohen's d: selected ${rel(r.cohensD.selected)}, pooled over regressors ${rel(r.cohensD.pooled)}; true ${planted.trueD.toFixed(3)}`);
}

try {
  await run(shortSteps);
  if (!args.includes('--skip-full')) await run(fullSteps);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
