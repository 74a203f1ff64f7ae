/**
 * Whole-job progress: stages weighted by measured rates give the fraction done and the
 * seconds left; the runner corrects the rate-based estimate by how fast the job really
 * goes; measured rates are folded into the data folder's rate book.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WorkTracker, type WorkStage } from '../../../src/main/audits/progress';
import { etaOf } from '../../../src/main/jobs/runner';
import { loadRates, rateFor, recordRate } from '../../../src/main/jobs/rates';
import { inlineContext, type ProgressDetail } from '../../../src/main/jobs/task';

const stages: WorkStage[] = [
  { key: 'embed/0', label: 'Reading “clips.csv” with Acoustic baseline', unit: 'recording', cost: 24, rateKey: 'embed:test' },
  { key: 'speat', label: 'Association test (SpEAT): each comparison with each model', unit: 'comparison', cost: 10, rateKey: 'speat:test' },
];
const rates = { 'embed:test': { secondsPerUnit: 0.5, samples: 1 }, 'speat:test': { secondsPerUnit: 3, samples: 1 } };

describe('whole-job progress', () => {
  it('reports each stage in words, with the fraction of the job and the estimated seconds left', () => {
    const seen: [string, number, number, ProgressDetail | undefined][] = [];
    const tracker = new WorkTracker(inlineContext((s, d, t, x) => seen.push([s, d, t, x])), stages, rates, null, { before: 6, after: 0 });
    expect(tracker.seconds).toBe(24 * 0.5 + 10 * 3);
    const embed = tracker.context(() => 'embed/0');
    embed.progress('embedding', 12, 24);
    const section = tracker.context((s) => (s === 'SpEAT' ? 'speat' : undefined));
    section.progress('SpEAT', 1, 2);
    section.progress('SpEAT', 2, 2);
    const total = 6 + 12 + 30;
    expect(seen.map(([s, d, t, x]) => [s, d, t, x?.label, x?.unit])).toEqual([
      ['embedding', 12, 24, 'Reading “clips.csv” with Acoustic baseline', 'recording'],
      ['SpEAT', 1, 2, 'Association test (SpEAT): each comparison with each model', 'comparison'],
      ['SpEAT', 2, 2, 'Association test (SpEAT): each comparison with each model', 'comparison'],
    ]);
    expect(seen.map(([, , , x]) => x!.overall)).toEqual([(6 + 6) / total, (6 + 12 + 15) / total, 1]);
    expect(seen.map(([, , , x]) => x!.estimatedSecondsLeft)).toEqual([total - 12, total - 33, 0]);
  });

  it('a section’s own detail (one emotion predictor of several) keeps the job fraction right', () => {
    const seen: ProgressDetail[] = [];
    const tracker = new WorkTracker(inlineContext((_s, _d, _t, x) => seen.push(x!)), [{ key: 'ser', label: 'Training', unit: 'step', cost: 6, rateKey: 'x' }], { x: { secondsPerUnit: 1, samples: 1 } }, null);
    tracker.context(() => 'ser').progress('SER training', 100, 200, { label: 'Training the emotion predictor on M, learning rate 0.001 (2 of 3)', unit: 'step', stageFraction: 0.5 });
    expect(seen[0]).toMatchObject({ label: 'Training the emotion predictor on M, learning rate 0.001 (2 of 3)', unit: 'step', overall: 0.5, estimatedSecondsLeft: 3 });
  });

  it('the time left is the rate-based estimate corrected by how fast the job actually goes', () => {
    // Half the estimated work done (50 of 100 estimated seconds) in 25 real seconds: twice as fast.
    expect(etaOf({ done: 1, total: 2, detail: { overall: 0.5, estimatedSecondsLeft: 50 } }, 25, 5)).toBeCloseTo(25, 10);
    // Three times slower than estimated, a quarter in: the pace counts fully (a tenth measured is enough): 75 × 3.
    expect(etaOf({ done: 1, total: 2, detail: { overall: 0.25, estimatedSecondsLeft: 75 } }, 75, 5)).toBeCloseTo(225, 10);
    // One real second in: too little measured, the rates alone speak.
    expect(etaOf({ done: 1, total: 2, detail: { overall: 0.05, estimatedSecondsLeft: 95 } }, 1, 1)).toBe(95);
    // 10 estimated seconds done in 4 (2.5 times faster), 5 % in: half the way from the rates to the pace.
    expect(etaOf({ done: 1, total: 20, detail: { overall: 0.05, estimatedSecondsLeft: 190 } }, 4, 4)).toBeCloseTo(190 * (1 + (0.4 - 1) * 0.5), 10);
    // The pace counts from the first measured units: 10 s of start-up before them do not make the rest look slower.
    // 10 estimated seconds done by 12 s, 40 by 42 s: exactly the estimated pace, so the estimate (60) stands.
    expect(etaOf({ done: 4, total: 10, detail: { overall: 0.4, estimatedSecondsLeft: 60 } }, 42, 5, { at: 12, estimatedDone: 10, overall: 0.1 })).toBeCloseTo(60, 10);
    // Without that, the start-up would count as slowness (42 / 40).
    expect(etaOf({ done: 4, total: 10, detail: { overall: 0.4, estimatedSecondsLeft: 60 } }, 42, 5)).toBeCloseTo(63, 10);
    // At the very start only the measured rates speak.
    expect(etaOf({ done: 0, total: 2, detail: { overall: 0, estimatedSecondsLeft: 80 } }, 0.5, 0.5)).toBe(80);
    // Without a job estimate: the stage's own rate.
    expect(etaOf({ done: 10, total: 40 }, 20, 5)).toBe(15);
  });

  it('records measured rates in the data folder, weighting recent runs, and survives a damaged file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'equivox-rates-'));
    expect(rateFor(loadRates(dir), 'embed:acoustic-baseline')).toBeGreaterThan(0);
    recordRate(dir, 'embed:acoustic-baseline', 10, 100);
    expect(loadRates(dir)['embed:acoustic-baseline']).toEqual({ secondsPerUnit: 0.1, samples: 1 });
    recordRate(dir, 'embed:acoustic-baseline', 30, 100);
    expect(loadRates(dir)['embed:acoustic-baseline']!.secondsPerUnit).toBeCloseTo(0.6 * 0.3 + 0.4 * 0.1, 12);
    // Too little work to measure: ignored.
    recordRate(dir, 'speat:kresample', 0.05, 1);
    // A caller timing whole stages, start-up included, records shorter ones.
    recordRate(dir, 'fdi:grouping', 0.05, 2, 0.01);
    expect(loadRates(dir)['fdi:grouping']).toEqual({ secondsPerUnit: 0.025, samples: 1 });
    expect(loadRates(dir)['speat:kresample']).toBeUndefined();
    writeFileSync(join(dir, 'rates.json'), '{not json');
    expect(loadRates(dir)).toEqual({});
    expect(readFileSync(join(dir, 'rates.json'), 'utf8')).toBe('{not json');
  });
});
