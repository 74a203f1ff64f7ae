/**
 * The findings' effect CIs and MDEs (issue 34.1) against numpy/scipy: SpEAT d's percentile
 * bootstrap CI, from the same resamples as its SE (speakers with all their clips, or matched
 * pairs), and the SER comparison's MDE (Welch's test on speaker means, simulated as SpEAT's
 * MDE). Golden values: `python3 test/golden/effect_ci.py` (Monte Carlo references with
 * numpy's generator and 100,000-200,000 draws; the command sits beside each value).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BootstrapPlan, speatAssociations, speatEffectSize, welchMde, type SpeatInput } from '../../../src/main/stats';
import { fixture } from './golden';

const goldens = JSON.parse(readFileSync(fileURLToPath(new URL('../../golden/effect_ci.json', import.meta.url)), 'utf8')) as Record<string, { command: string; value: unknown }>;
const gv = <T = number>(name: string): T => {
  const e = goldens[name];
  if (!e) throw new Error(`no golden value "${name}"`);
  return e.value as T;
};
const doc = (name: string) => JSON.parse(readFileSync(fixture(`${name}.json`), 'utf8')) as SpeatInput & { speakersX?: string[]; speakersY?: string[] };

describe("SpEAT d's 95% CI", () => {
  // 20,000 resamples: the 2.5th and 97.5th percentiles carry a Monte Carlo error of about 0.01 in d here.
  it.each(['speat_spk_between', 'speat_spk_within'])('%s: speakers resampled with all their clips, as compared; numpy within 0.04', (name) => {
    const d = doc(name);
    const s = speatAssociations(d);
    const plan = new BootstrapPlan(s.X, s.Y, { resamples: 20_000, seed: 3, design: { kind: 'speakers', speakersX: d.speakersX!, speakersY: d.speakersY! } });
    const p = plan.comparedPoint(500, true);
    const [lo, hi] = gv<[number, number]>(`${name}.ci_compared`);
    expect(Math.abs(p.ci95![0] - lo)).toBeLessThan(0.04);
    expect(Math.abs(p.ci95![1] - hi)).toBeLessThan(0.04);
    // The same resamples as the SE: asking for the CI leaves the SE as it was.
    expect(p.standardError).toBe(plan.comparedPoint(500).standardError);
    expect(plan.comparedPoint(500).ci95).toBeUndefined();
  });

  it('matched pairs resampled (clips, no speakers); numpy within 0.04, and the observed d inside', () => {
    const s = speatAssociations(doc('speat_mid'));
    const plan = new BootstrapPlan(s.X, s.Y, { resamples: 20_000, seed: 4, design: { kind: 'paired' } });
    const p = plan.point(8, 0, true);
    const [lo, hi] = gv<[number, number]>('speat_mid.ci_paired');
    expect(Math.abs(p.ci95![0] - lo)).toBeLessThan(0.04);
    expect(Math.abs(p.ci95![1] - hi)).toBeLessThan(0.04);
    expect(p.standardError).toBe(plan.point(8, 0).standardError);
    const d = speatEffectSize(s.X, s.Y);
    expect(p.ci95![0]).toBeLessThan(d);
    expect(p.ci95![1]).toBeGreaterThan(d);
  });
});

describe("SER group comparison's MDE (Welch on speaker means)", () => {
  it('6 and 5 speakers at alpha 0.05 / 4: numpy simulation of the same procedure within 3%', () => {
    const v = gv<{ x: number[]; y: number[] }>('ser_small.values');
    const m = welchMde(v.x, v.y, { alpha: 0.05 / 4, simulations: 20_000, seed: 5 });
    const [diff, d] = gv<[number, number]>('ser_small.mde_alpha_0.0125');
    expect(Math.abs(m.difference! / diff - 1)).toBeLessThan(0.03);
    expect(Math.abs(m.d! / d - 1)).toBeLessThan(0.03);
    expect(m).toMatchObject({ alpha: 0.05 / 4, power: 0.8, simulations: 20_000 });
  });

  it('30 per group at 0.05: numpy simulation within 3%, normal theory (scipy noncentral t) within 4%', () => {
    const v = gv<{ x: number[]; y: number[] }>('ser_large.values');
    const m = welchMde(v.x, v.y, { alpha: 0.05, simulations: 20_000, seed: 6 });
    const [diff] = gv<[number, number]>('ser_large.mde_alpha_0.05');
    expect(Math.abs(m.difference! / diff - 1)).toBeLessThan(0.03);
    expect(Math.abs(m.difference! / gv('ser_large.mde_normal_alpha_0.05') - 1)).toBeLessThan(0.04);
  });

  it('nothing detectable when the groups are too small: two speakers a side at a strict alpha', () => {
    const m = welchMde([4.1, 5.3], [4.8, 5.0], { alpha: 0.05 / 6, simulations: 2000, seed: 7 });
    // Each group draws one speaker twice in half the audits, so a quarter have no spread at all and cannot reject: power stays below 80%.
    expect(m.difference).toBeNull();
    expect(m.d).toBeNull();
    expect(welchMde([4.1], [4.8, 5.0], { alpha: 0.05 }).difference).toBeNull();
  });
});
