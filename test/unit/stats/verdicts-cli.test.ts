/**
 * Verdicts that hold (issue 21, METHODS.md § Verdicts that hold) through the `stats`
 * commands: the two-sided SpEAT p against itertools enumeration and a Monte Carlo
 * reference, a planted opposite-direction effect, the FDI verifier gate and permutation
 * null against scipy/numpy, and the SER downstream gate on noise and on a planted signal.
 * Goldens: test/golden/verdicts_golden.py (python3 test/golden/verdicts_golden.py).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { Options, type CliContext } from '../../../src/main/cli/args';
import { parseCommandLine } from '../../../src/main/cli/usage';
import { statsCommands } from '../../../src/main/cli/stats';
import { bootstrapR2Lower, Rng, rSquared } from '../../../src/main/stats';
import { plantedSer } from '../../support/ser-planted';
import { fixture } from './golden';

const goldens = JSON.parse(readFileSync(fileURLToPath(new URL('../../golden/verdicts_golden.json', import.meta.url)), 'utf8')) as Record<string, { command: string; value: unknown }>;
const gv = <T = number>(name: string): T => {
  const e = goldens[name];
  if (!e) throw new Error(`no golden value "${name}"`);
  return e.value as T;
};

const logs: string[] = [];
const ctx: CliContext = { log: (m) => logs.push(m), progress: () => {} };
async function cli(argv: string[]): Promise<Record<string, unknown>> {
  const args = parseCommandLine(argv);
  const cmd = statsCommands.find((c) => c.path.join(' ') === args.command);
  if (!cmd) throw new Error(`no command ${argv.join(' ')}`);
  return JSON.parse(JSON.stringify(await cmd.run(new Options(args), args.positionals, ctx))) as Record<string, unknown>;
}

const dir = mkdtempSync(join(tmpdir(), 'equivox-verdicts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('stats speat: two-sided p (verdicts use it)', () => {
  for (const name of ['speat_small', 'speat_mid', 'speat_uneq']) {
    it(`${name}: pTwoSided equals the itertools enumeration exactly`, async () => {
      const r = await cli(['stats', 'speat', '--input', fixture(`${name}.json`)]);
      const [p, total] = gv<number[]>(`${name}.exact_two_sided`);
      expect(r.exact).toBe(true);
      expect(r.permutations).toBe(total);
      expect(r.pTwoSided).toBe(p);
      // Never below the one-sided p of the side the effect lies on.
      expect(r.pTwoSided as number).toBeGreaterThanOrEqual(Math.min(r.pValue as number, 1 - (r.pValue as number)));
    });
  }

  it('speat_uneq: d as numpy, and the favoured group is Y when d < 0', async () => {
    const r = await cli(['stats', 'speat', '--input', fixture('speat_uneq.json')]);
    expect(r.effectSize).toBeCloseTo(gv('speat_uneq.d'), 12);
    expect(r.favoured).toBe('y');
  });

  it('speat_large (C(60, 30) splits): sampled pTwoSided within 0.01 of a 400,000-split Monte Carlo reference, for any seed', async () => {
    for (const seed of ['0', '9']) {
      const r = await cli(['stats', 'speat', '--input', fixture('speat_large.json'), '--permutations', '100000', '--seed', seed]);
      expect(r.exact).toBe(false);
      expect(r.permutations).toBe(100_000);
      expect(r.effectSize).toBeCloseTo(gv('speat_large.d'), 12);
      expect(Math.abs((r.pTwoSided as number) - gv('speat_large.sampled_two_sided'))).toBeLessThan(0.01);
    }
  });

  it('a planted d < −0.8 with 24 per group: pTwoSided small, favoured y, the one-sided p near 1; the MDE lies below |d|', async () => {
    const r = await cli(['stats', 'speat', '--input', fixture('speat_planted_negative.json'), '--permutations', '20000', '--mde', '--alpha', '0.05']);
    expect(r.effectSize).toBeCloseTo(gv('speat_planted_negative.d'), 12);
    expect(r.effectSize as number).toBeLessThan(-0.8);
    expect(r.pTwoSided as number).toBeLessThan(0.001);
    expect(r.pValue as number).toBeGreaterThan(0.99);
    expect(r.favoured).toBe('y');
    const mde = r.mde as { d: number; alpha: number; power: number; stimuli: number };
    expect(mde.alpha).toBe(0.05);
    expect(mde.power).toBe(0.8);
    expect(mde.stimuli).toBe(24);
    // With 24 stimuli per group about 0.8 (bench:calibration checks its power); never more than |d| here.
    expect(mde.d).toBeGreaterThan(0.5);
    expect(mde.d).toBeLessThan(Math.abs(r.effectSize as number));
  });

  it('too few stimuli to reach p < alpha: the MDE says nothing is detectable (d null)', async () => {
    // 4 per group: the smallest two-sided exact p is 2/70 > 0.01.
    const r = await cli(['stats', 'speat', '--input', fixture('speat_small.json'), '--mde', '--alpha', '0.01']);
    expect((r.mde as { d: number | null; smallestP: number }).d).toBeNull();
    expect((r.mde as { smallestP: number }).smallestP).toBeCloseTo(2 / 70, 15);
  });
});

describe('stats fdi: verifier gate, permutation null, observed sweep', () => {
  it('AUC equals scipy.stats.mannwhitneyu U/(n1·n0); the CI is DeLong’s; EER as brute force', async () => {
    const r = await cli(['stats', 'fdi', '--input', fixture('fdi_verifier.csv'), '--threshold', '0.55', '--null-permutations', '0']);
    const v = r.verifier as { auc: number; aucCi: [number, number]; eer: number; eerThreshold: number; informative: boolean; genuine: number; impostor: number };
    expect(v.auc).toBeCloseTo(gv('fdi_verifier.auc'), 13);
    const [lo, hi] = gv<number[]>('fdi_verifier.auc_ci');
    expect(v.aucCi[0]).toBeCloseTo(lo!, 12);
    expect(v.aucCi[1]).toBeCloseTo(hi!, 12);
    const [eer, eerT] = gv<number[]>('fdi_verifier.eer');
    expect(v.eer).toBeCloseTo(eer!, 14);
    expect(v.eerThreshold).toBe(eerT);
    expect(v.informative).toBe(true);
    expect([v.genuine, v.impostor]).toEqual([120, 120]);
    expect(r.fdi).toBeCloseTo(gv('fdi_verifier.fdi(0.55)'), 12);
    expect(r.null).toBeNull();
  });

  it('the null p equals an independent numpy shuffle (20,000 shuffles) within Monte Carlo error', async () => {
    const r = await cli(['stats', 'fdi', '--input', fixture('fdi_verifier.csv'), '--threshold', '0.55', '--null-permutations', '4000', '--seed', '5']);
    const nul = r.null as { pValue: number; permutations: number; mean: number; q95: number };
    const want = gv('fdi_verifier.null_p(0.55)');
    expect(nul.permutations).toBe(4000);
    const se = Math.sqrt((want * (1 - want)) / 4000 + (want * (1 - want)) / 20_000);
    expect(Math.abs(nul.pValue - want)).toBeLessThan(4 * se);
    expect(nul.q95).toBeGreaterThanOrEqual(nul.mean);
  });

  it('a verifier at chance (all scores above 0.85, genuine and impostor alike) is not informative', async () => {
    const r = await cli(['stats', 'fdi', '--input', fixture('fdi_chance.csv')]);
    const v = r.verifier as { auc: number; aucCi: [number, number]; informative: boolean };
    expect(v.auc).toBeCloseTo(gv('fdi_chance.auc'), 13);
    const [lo, hi] = gv<number[]>('fdi_chance.auc_ci');
    expect(v.aucCi[0]).toBeCloseTo(lo!, 12);
    expect(v.aucCi[1]).toBeCloseTo(hi!, 12);
    expect(v.informative).toBe(false);
  });

  it('without threshold options: the EER threshold and 21 thresholds from the 1st to the 99th percentile (numpy)', async () => {
    const r = await cli(['stats', 'fdi', '--input', fixture('fdi_verifier.csv'), '--null-permutations', '10']);
    const [p1, p99] = gv<number[]>('fdi_verifier.sweep_range');
    const sweep = r.sweep as { threshold: number }[];
    expect(sweep).toHaveLength(21);
    expect(sweep[0]!.threshold).toBeCloseTo(p1!, 12);
    expect(sweep[20]!.threshold).toBeCloseTo(p99!, 12);
    expect(r.threshold).toBe(gv<number[]>('fdi_verifier.eer')[1]);
    expect(r.thresholdRule).toBe('equal-error-rate');
    expect(r.sweepRule).toBe('observed-range');
  });
});

describe('stats ser: the downstream gate', () => {
  // Small planted data: valence linear in one of three states.
  const p = plantedSer({ items: 400, layers: 3, dim: 16, planted: 1, attainableR2: 0.8, rho: 0, shiftD: 1, targetsPerGroup: 30, seed: 21 });
  const states = (f: Float32Array) => Array.from({ length: 3 }, (_, l) => Array.from(f.subarray(l * 16, (l + 1) * 16)));
  const write = (name: string, ratings: ArrayLike<number>) => {
    const item = (i: number) => ({ features: states(p.features[i]!), valence: ratings[i] });
    const file = join(dir, name);
    writeFileSync(file, JSON.stringify({ train: Array.from(p.split.train, item), validation: Array.from(p.split.validation, item), test: Array.from(p.split.test, item), targets: { X: p.targets.X.map(states), Y: p.targets.Y.map(states) } }));
    return file;
  };
  type Out = { downstream: { informative: boolean; testR2: number; testR2Lower: number; resamples: number; reason: string | null }; regressors: { testR2: number }[]; selected: { learningRate: number }; caveats: string[] };

  it('planted linear signal: informative, with the selected regressor’s test R² and a positive lower bound', async () => {
    const r = (await cli(['stats', 'ser', '--input', write('planted.json', p.ratings), '--learning-rates', '1e-3,1e-4', '--steps', '1500', '--seed', '1'])) as unknown as Out;
    expect(r.downstream.informative).toBe(true);
    expect(r.downstream.reason).toBeNull();
    expect(r.downstream.resamples).toBe(2000);
    const selected = r.regressors[[1e-3, 1e-4].indexOf(r.selected.learningRate)]!;
    expect(r.downstream.testR2).toBeCloseTo(selected.testR2, 10);
    expect(r.downstream.testR2Lower).toBeGreaterThan(0);
    expect(r.downstream.testR2Lower).toBeLessThan(r.downstream.testR2);
    expect(r.caveats).toEqual([]);
  }, 120_000);

  it('pure-noise valence: not informative, with the reason; a tiny test split and a batch above the training split are caveats', async () => {
    const rng = new Rng(99);
    const noise = Float64Array.from(p.ratings, () => rng.nextFloat() * 4 + 1);
    const r = (await cli(['stats', 'ser', '--input', write('noise.json', noise), '--learning-rates', '1e-3,1e-4', '--steps', '1500', '--seed', '1'])) as unknown as Out;
    expect(r.downstream.informative).toBe(false);
    expect(r.downstream.testR2Lower).toBeLessThanOrEqual(0);
    expect(r.downstream.reason).toMatch(/could not be shown to have learned valence from this encoder; no propagation conclusion/);
    expect(r.caveats).toEqual([]);
    // Caveats: 6 test items and a batch of 32 over 20 training items.
    const small = join(dir, 'small.json');
    const item = (i: number) => ({ features: states(p.features[i]!), valence: noise[i] });
    writeFileSync(small, JSON.stringify({ train: Array.from(p.split.train.subarray(0, 20), item), validation: Array.from(p.split.validation.subarray(0, 6), item), test: Array.from(p.split.test.subarray(0, 6), item) }));
    logs.length = 0;
    const s = (await cli(['stats', 'ser', '--input', small, '--learning-rates', '1e-3', '--steps', '200'])) as unknown as Out;
    expect(s.caveats).toHaveLength(2);
    expect(s.caveats[0]).toMatch(/batch size \(32\) is larger than the training split \(20 recordings\)/);
    expect(s.caveats[1]).toMatch(/Only 6 recordings are held out for testing/);
    expect(logs.filter((l) => l.startsWith('warning: '))).toHaveLength(2);
  }, 120_000);

  it('the R² lower bound matches a numpy bootstrap (200,000 resamples) within Monte Carlo error', () => {
    const doc = JSON.parse(readFileSync(fixture('ser_r2.json'), 'utf8')) as { y: number[]; yhat: number[] };
    expect(rSquared(doc.y, doc.yhat)).toBeCloseTo(gv('ser_r2.r2'), 12);
    const lower = bootstrapR2Lower(doc.y, doc.yhat, 20_000, 3);
    expect(Math.abs(lower - gv('ser_r2.lower'))).toBeLessThan(0.02);
  });
});

describe('stats wer: the minimum detectable rate ratio', () => {
  const lme4 = JSON.parse(readFileSync(fileURLToPath(new URL('../../golden/glmm_wer.json', import.meta.url)), 'utf8')) as {
    datasets: { name: string; rows: { group: string[]; speaker: string[]; words: number[]; errors: number[] }; fits: { laplace: { referenceGroup: string } } }[];
  };
  // Transcripts with exactly `errors` word errors over `words` reference words (as cli.test.ts builds them).
  const csvFrom = (rows: { group: string[]; speaker: string[]; words: number[]; errors: number[] }): string => {
    const lines = ['id,group,speaker,reference,hypothesis'];
    rows.words.forEach((w, i) => {
      const e = rows.errors[i]!;
      const ref = Array.from({ length: w }, (_, k) => `w${k}`);
      const hyp = ref.map((t, k) => (k < e ? `x${k}` : t)).concat(Array.from({ length: Math.max(0, e - w) }, (_, k) => `y${k}`));
      lines.push([`u${i}`, rows.group[i], rows.speaker[i], ref.join(' '), hyp.join(' ')].join(','));
    });
    return `${lines.join('\n')}\n`;
  };
  type Mde = { rateRatio: number | null; power: number; monteCarloError: number; simulations: number; alpha: number; test: string; maxRateRatio: number; method: string };
  type Out = { comparisons: { group: string; mixed?: { standardError: number }; primary: { test: string } | null; mde?: Mde | null }[] };

  it('bootstrap-calibrated LR test primary (15 speakers a group): a ratio near the closed form exp((z₀.₉₈₇₅ + z₀.₈) SE), power 0.8 within Monte Carlo error, at alpha / comparisons', async () => {
    const ds = lme4.datasets.find((d) => d.name === 'three-groups')!;
    const file = join(dir, 'three-groups.csv');
    writeFileSync(file, csvFrom(ds.rows));
    const args = ['stats', 'wer', '--input', file, '--reference-group', ds.fits.laplace.referenceGroup, '--bootstrap', '20', '--permutations', '200', '--lr-bootstrap', '199', '--mde-simulations', '80'];
    const r = (await cli(args)) as unknown as Out;
    expect(r.comparisons).toHaveLength(2);
    for (const c of r.comparisons) {
      const m = c.mde!;
      expect(m.test).toBe(c.primary!.test);
      expect(m.test).toBe('mixed-poisson-lr-bootstrap');
      expect(m.method).toMatch(/parametric-bootstrap null distribution \(199 replicates\)/);
      expect(m.alpha).toBeCloseTo(0.05 / 2, 15);
      expect(m.simulations).toBe(80);
      expect(m.monteCarloError).toBeCloseTo(Math.sqrt((m.power * (1 - m.power)) / 80), 12);
      expect(m.power).toBeGreaterThanOrEqual(0.8);
      expect(m.power).toBeLessThan(0.8 + 3 * m.monteCarloError);
      // Independent yardstick: the normal-theory MDE from the fitted SE (1.96 → z at alpha 0.025 two-sided);
      // the LR test has about the Wald test's power at 15 speakers a group.
      const closed = Math.exp((2.241402727604947 + 0.8416212335729143) * c.mixed!.standardError);
      expect(Math.abs(Math.log(m.rateRatio!) / Math.log(closed) - 1)).toBeLessThan(0.25);
    }
  }, 120_000);

  it('three speakers per group: no verdict, and the power statement’s exact speaker test cannot reach p < 0.05 (smallest p 2/20), so nothing is detectable', async () => {
    const rows = { group: [] as string[], speaker: [] as string[], words: [] as number[], errors: [] as number[] };
    ['a', 'b'].forEach((g) => {
      for (let s = 0; s < 3; s += 1) for (let u = 0; u < 6; u += 1) {
        rows.group.push(g);
        rows.speaker.push(`${g}${s}`);
        rows.words.push(8 + ((s + u) % 5));
        rows.errors.push((s + 2 * u) % 4);
      }
    });
    const file = join(dir, 'three-speakers.csv');
    writeFileSync(file, csvFrom(rows));
    const r = (await cli(['stats', 'wer', '--input', file, '--reference-group', 'a', '--bootstrap', '20', '--permutations', '1000', '--mde-simulations', '60'])) as unknown as Out;
    expect(r.comparisons[0]!.primary).toBeNull();
    const m = r.comparisons[0]!.mde!;
    expect(m.test).toBe('speaker-permutation');
    expect(m.rateRatio).toBeNull();
    expect(m.power).toBe(0);
    expect(m.maxRateRatio).toBe(10);
  }, 60_000);
});
