/**
 * Time left from each stage's measured pace (WorkTracker, StagePace), on a simulated clock:
 * stages of known true durations whose rate-book estimates are wrong, by different amounts
 * per stage. From 20 % of the shown bar on, the time left shown (through the runner's
 * steadying) must be within 0.7–1.5 of the time really left. No real clock is read.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WorkTracker, type WorkAround, type WorkStage } from '../../../src/main/audits/progress';
import { etaOf, steadyEta } from '../../../src/main/jobs/runner';
import { loadRates } from '../../../src/main/jobs/rates';
import { inlineContext, type ProgressDetail } from '../../../src/main/jobs/task';

interface SimStage {
  key: string;
  rateKey: string;
  /** Seconds the rate book says. */
  estimated: number;
  /** Seconds it really takes. */
  truth: number;
  /** Seconds before its first counted unit (loading a model, designing the tests). */
  startup?: number;
  /** Counted units; 1: no count until the end (the WER analysis). */
  units?: number;
  /** Whether the rate was measured on this computer (otherwise the build machine's). */
  measuredHere?: boolean;
  /** Seconds of its counting time the first half of its units take (default: half): units that change speed. */
  firstHalf?: number;
}

interface Reading {
  t: number;
  detail: ProgressDetail;
  shown: number;
}

/** Runs the stages on a simulated clock, reporting every 0.1 s like the worker's throttle; returns every report and when the job ended. */
function simulate(sims: SimStage[], around: WorkAround = { before: 0, after: 0 }, startAt = 0): { readings: Reading[]; end: number; tracker: WorkTracker } {
  let now = startAt;
  const reports: { t: number; detail: ProgressDetail }[] = [];
  const stages: WorkStage[] = sims.map((s) => ({ key: s.key, label: s.key, unit: 'unit', cost: s.estimated, rateKey: s.rateKey }));
  // One second per unit of cost, so a stage's cost is its estimate; a missing entry is a default rate.
  const rates = Object.fromEntries(sims.filter((s) => s.measuredHere !== false).map((s) => [s.rateKey, { secondsPerUnit: 1, samples: 1 }]));
  const defaults = sims.filter((s) => s.measuredHere === false);
  for (const s of defaults) stages.find((x) => x.key === s.key)!.rateKey = `${s.rateKey}-default`;
  const tracker = new WorkTracker(inlineContext((_s, _d, _t, x) => reports.push({ t: now, detail: x! })), stages, rates, null, around, () => now * 1000);
  for (const s of sims) {
    const ctx = tracker.context(() => s.key);
    const units = s.units ?? 100;
    const startup = s.startup ?? 0;
    const t0 = now;
    ctx.progress(s.key, 0, units);
    if (units > 1) {
      for (let k = 1; t0 + k * 0.1 < t0 + s.truth; k += 1) {
        now = t0 + k * 0.1;
        const x = now - t0 - startup;
        const counting = s.truth - startup;
        const half = s.firstHalf ?? counting / 2;
        const f = x < 0 ? 0 : x < half ? (0.5 * x) / half : 0.5 + (0.5 * (x - half)) / (counting - half);
        ctx.progress(s.key, Math.floor(f * units), units);
      }
    }
    now = t0 + s.truth;
    ctx.progress(s.key, units, units);
  }
  tracker.finish();
  let shown: { at: number; eta: number } | undefined;
  const readings = reports.map((r) => {
    const eta = steadyEta(shown, r.detail.pacedSecondsLeft!, r.t - startAt);
    shown = { at: r.t - startAt, eta };
    return { ...r, shown: eta };
  });
  return { readings, end: now, tracker };
}

/** Shown / actual time left at the first report at or past each mark of the shown bar, as bench/eta.ts reads them. */
function ratiosFrom(readings: Reading[], end: number, marks = [0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]): { mark: number; ratio: number }[] {
  const out: { mark: number; ratio: number }[] = [];
  for (const mark of marks) {
    const r = readings.find((x) => x.detail.pacedOverall! >= mark && end - x.t > 0);
    if (r) out.push({ mark, ratio: r.shown / (end - r.t) });
  }
  return out;
}

function expectHonest(readings: Reading[], end: number): void {
  const ratios = ratiosFrom(readings, end);
  expect(ratios.length).toBeGreaterThanOrEqual(6);
  // All readings in the message when one is off.
  expect(ratios.filter(({ ratio }) => !(ratio >= 0.7 && ratio <= 1.5)), JSON.stringify(ratios)).toEqual([]);
}

describe('time left from each stage’s measured pace', () => {
  it('a computer three times slower than the rates: honest from 20 % on, start-ups and all', () => {
    const { readings, end } = simulate([
      { key: 'embed/0', rateKey: 'embed:a', estimated: 10, truth: 30, startup: 2 },
      { key: 'speat', rateKey: 'speat:kresample', estimated: 10, truth: 30, startup: 1 },
      { key: 'ser', rateKey: 'ser:kstep', estimated: 10, truth: 30 },
    ]);
    expectHonest(readings, end);
  });

  it('stages wrong by different amounts (one model twice faster than its rate, the other three times slower): honest from 20 % on, each model’s datasets scaled by its own first one, where one pace for the whole job is not', () => {
    // Each model first reads a small dataset, then the large ones, in run.ts's order; the sections follow.
    const sims: SimStage[] = [
      { key: 'embed/0', rateKey: 'embed:a', estimated: 2, truth: 1 },
      { key: 'embed/1', rateKey: 'embed:b', estimated: 1, truth: 3, startup: 0.5 },
      { key: 'embed/2', rateKey: 'embed:a', estimated: 10, truth: 5 },
      { key: 'embed/3', rateKey: 'embed:b', estimated: 6, truth: 18 },
      { key: 'embed/4', rateKey: 'embed:a', estimated: 8, truth: 4 },
      { key: 'embed/5', rateKey: 'embed:b', estimated: 5, truth: 15 },
      // Rates not seen yet in this run: as slow as the run overall.
      { key: 'speat', rateKey: 'speat:kresample', estimated: 2, truth: 3, startup: 0.2 },
      { key: 'ser', rateKey: 'ser:kstep', estimated: 2, truth: 3 },
    ];
    const { readings, end } = simulate(sims);
    expectHonest(readings, end);
    // The runner's former correction (one pace for the job, from the rate-book fraction) on the same reports.
    const first = readings.find((r) => r.detail.overall! > 0)!;
    const firstDone = (first.detail.estimatedSecondsLeft! * first.detail.overall!) / (1 - first.detail.overall!);
    const global = readings.map((r) => ({
      ...r,
      shown: etaOf({ done: 0, total: 1, detail: { overall: r.detail.overall!, estimatedSecondsLeft: r.detail.estimatedSecondsLeft! } }, r.t, 0, { at: first.t, estimatedDone: firstDone, overall: first.detail.overall! })!,
      detail: { ...r.detail, pacedOverall: r.detail.overall! },
    }));
    expect(ratiosFrom(global, end).some(({ ratio }) => ratio < 0.7 || ratio > 1.5)).toBe(true);
  });

  it('a stage not started yet is scaled by how this run’s stages of the same rate went, else those whose rates came from the same place', () => {
    // The build machine's rates (not measured here) are ten times too slow for both default-rated stages; those measured here are right.
    const { readings, end } = simulate([
      { key: 'speat', rateKey: 'speat:kresample', estimated: 20, truth: 2, measuredHere: false },
      { key: 'embed/0', rateKey: 'embed:a', estimated: 10, truth: 10 },
      { key: 'ser', rateKey: 'ser:kstep', estimated: 10, truth: 10 },
      { key: 'fdi', rateKey: 'fdi:grouping', estimated: 30, truth: 3, units: 3, measuredHere: false },
    ]);
    expectHonest(readings, end);
    // In SER, FDI is expected at its estimate scaled like SpEAT (a tenth), not like the stages measured here.
    const inSer = readings.find((r) => r.t >= 17 - 1e-9)!;
    expect(inSer.detail.pacedSecondsLeft!).toBeCloseTo(5 + 3, 0);
  });

  it('the stage’s pace counts from its first measured units: a long start-up does not make the rest look slow', () => {
    // 20 s loading a model, then 100 recordings in 20 s; the rate book expected 40 s in all, right on average.
    const { readings, end } = simulate([{ key: 'embed/0', rateKey: 'embed:a', estimated: 40, truth: 40, startup: 20 }]);
    // A quarter of the recordings read (25 s in): 15 s left, where counting the start-up would say 45.
    const r = readings.find((x) => x.t >= 25 - 1e-9)!;
    expect(r.detail.pacedSecondsLeft!).toBeGreaterThan(0.7 * (end - r.t));
    expect(r.detail.pacedSecondsLeft!).toBeLessThan(1.5 * (end - r.t));
  });

  it('a stage whose units change speed (one model’s predictors, then a slower model’s) goes on at its latest pace', () => {
    // Half the training steps in 2 s, the other half in 12 s; the rate book said 8 s in all.
    const { readings, end } = simulate([{ key: 'ser', rateKey: 'ser:kstep', estimated: 8, truth: 14, firstHalf: 2 }]);
    // From 3 s into the slow half on, the time left is honest; the average pace since the start would say about half of it.
    for (const r of readings.filter((x) => x.t >= 5 && x.t < 13)) {
      expect(r.detail.pacedSecondsLeft! / (end - r.t)).toBeGreaterThan(0.7);
      expect(r.detail.pacedSecondsLeft! / (end - r.t)).toBeLessThan(1.5);
    }
  });

  it('a stage with no count that outlasts its estimate never says “0 s left” while it runs', () => {
    const { readings } = simulate([
      { key: 'embed/0', rateKey: 'embed:a', estimated: 5, truth: 5 },
      { key: 'wer', rateKey: 'wer:kresample', estimated: 2, truth: 8, units: 1 },
    ]);
    // Only the stage's start and end are reported; in between the tracker is asked as the runner would be.
    const during = readings.filter((r) => r.t > 5 && r.t < 13);
    for (const r of during) expect(r.detail.pacedSecondsLeft!).toBeGreaterThan(0);
  });

  it('the fraction is seconds spent over seconds spent and left, never moving back, and 1 at the end', () => {
    const { readings } = simulate([
      { key: 'embed/0', rateKey: 'embed:a', estimated: 10, truth: 5 },
      { key: 'speat', rateKey: 'speat:kresample', estimated: 5, truth: 20 },
    ]);
    let last = 0;
    for (const r of readings) {
      expect(r.detail.pacedOverall!).toBeGreaterThanOrEqual(last);
      last = r.detail.pacedOverall!;
    }
    expect(last).toBe(1);
    // While nothing is re-estimated upwards the two agree exactly: at 3 s, 3 s spent.
    const r = readings.find((x) => x.t >= 3 - 1e-9)!;
    expect(r.detail.pacedOverall!).toBeCloseTo(r.t / (r.t + r.detail.pacedSecondsLeft!), 10);
  });

  it('work done before the tracker (the demo’s import) counts with the seconds it took, and its pace with its estimate', () => {
    // The import was estimated at 40 s and took 4; the audit's rates are as wrong (the build machine's).
    const { readings, end } = simulate([{ key: 'embed/0', rateKey: 'embed:a', estimated: 30, truth: 3, units: 1, measuredHere: false }], { before: 40, after: 0, beforeTook: 4 }, 4);
    const first = readings[0]!;
    // At the audit's start: 4 s spent, 30 × 0.1 left, not 40 s spent and 30 left.
    expect(first.detail.pacedSecondsLeft!).toBeCloseTo(3, 6);
    expect(first.detail.pacedOverall!).toBeCloseTo(4 / 7, 6);
    expect(end).toBe(7);
  });

  it('a rate measured here is not scaled by how the import went; a build-machine rate is', () => {
    // The import took 1.7 times its estimate (bench:eta's second demo, 4 December); the model after it reads as its rate measured here says.
    const here = simulate([{ key: 'embed/0', rateKey: 'embed:a', estimated: 10, truth: 10, units: 1 }], { before: 10, after: 0, beforeTook: 17 }, 17);
    expect(here.readings[0]!.detail.pacedSecondsLeft!).toBeCloseTo(10, 6);
    const build = simulate([{ key: 'embed/0', rateKey: 'embed:a', estimated: 10, truth: 10, units: 1, measuredHere: false }], { before: 10, after: 0, beforeTook: 17 }, 17);
    expect(build.readings[0]!.detail.pacedSecondsLeft!).toBeCloseTo(17, 6);
  });

  it('with rates measured here, another kind of work’s deviation carries over by how many seconds it rests on', () => {
    // A one-second stage 1.4 times slower than measured: the next model (another rate) is expected almost at its own rate.
    const short = simulate([
      { key: 'embed/0', rateKey: 'embed:a', estimated: 1, truth: 1.4, units: 1 },
      { key: 'embed/1', rateKey: 'embed:b', estimated: 10, truth: 10, units: 1 },
    ]);
    expect(short.readings.find((r) => r.t >= 1.4 - 1e-9)!.detail.pacedSecondsLeft!).toBeCloseTo(10 * Math.exp((1 / 6) * Math.log(1.4)), 6);
    // Thirty seconds three times slower (thirty estimated, ninety taken): most of it carries.
    const long = simulate([
      { key: 'embed/0', rateKey: 'embed:a', estimated: 30, truth: 90, units: 1 },
      { key: 'embed/1', rateKey: 'embed:b', estimated: 10, truth: 30, units: 1 },
    ]);
    expect(long.readings.find((r) => r.t >= 90 - 1e-9)!.detail.pacedSecondsLeft!).toBeCloseTo(10 * Math.exp((30 / 35) * Math.log(3)), 6);
    // The build machine's rates (not measured here) take the whole deviation.
    const build = simulate([
      { key: 'embed/0', rateKey: 'embed:a', estimated: 1, truth: 1.4, units: 1, measuredHere: false },
      { key: 'embed/1', rateKey: 'embed:b', estimated: 10, truth: 10, units: 1, measuredHere: false },
    ]);
    expect(build.readings.find((r) => r.t >= 1.4 - 1e-9)!.detail.pacedSecondsLeft!).toBeCloseTo(14, 6);
  });

  it('the rate-book figures stay beside the paced ones, as before', () => {
    const { readings } = simulate([{ key: 'embed/0', rateKey: 'embed:a', estimated: 10, truth: 20 }]);
    const half = readings.find((r) => r.t >= 10 - 1e-9)!;
    expect(half.detail.overall).toBeCloseTo(0.5, 6);
    expect(half.detail.estimatedSecondsLeft).toBeCloseTo(5, 6);
    expect(half.detail.pacedSecondsLeft!).toBeCloseTo(10, 1);
  });

  it('a quick stage is recorded as it went (30 ms), not as a quarter of a second nor left at the build machine’s rate; timer noise is not recorded', () => {
    const dir = mkdtempSync(join(tmpdir(), 'equivox-quick-stage-'));
    let now = 0;
    const tracker = new WorkTracker(inlineContext(), [{ key: 'fdi', label: 'FDI', unit: 'attribute set', cost: 4, rateKey: 'fdi:grouping' }], {}, dir, undefined, () => now);
    tracker.context(() => 'fdi').progress('FDI', 0, 3);
    now = 30;
    tracker.finish();
    expect(loadRates(dir)['fdi:grouping']).toEqual({ secondsPerUnit: 0.03 / 4, samples: 1 });
    // Five milliseconds say nothing about the stage: the book keeps what it had.
    const noise = new WorkTracker(inlineContext(), [{ key: 'fdi', label: 'FDI', unit: 'attribute set', cost: 4, rateKey: 'fdi:grouping' }], loadRates(dir), dir, undefined, () => now);
    noise.context(() => 'fdi').progress('FDI', 0, 3);
    now += 5;
    noise.finish();
    expect(loadRates(dir)['fdi:grouping']).toEqual({ secondsPerUnit: 0.03 / 4, samples: 1 });
  });
});

describe('the shown time left, steadied', () => {
  it('counts down between reports, follows a small change over about a second, and takes a large one at once', () => {
    expect(steadyEta(undefined, 30, 0)).toBe(30);
    // Two seconds later the estimate says 28, as counted down: it stands.
    expect(steadyEta({ at: 0, eta: 30 }, 28, 2)).toBeCloseTo(28, 10);
    // A tenth of a second later the estimate says 31 (counted: 29.9): a tenth of the way there.
    expect(steadyEta({ at: 0, eta: 30 }, 31, 0.1)).toBeCloseTo(29.9 + 1.1 * (1 - Math.exp(-0.1)), 10);
    // Half as much again: shown at once.
    expect(steadyEta({ at: 0, eta: 30 }, 45, 0.1)).toBe(45);
    expect(steadyEta({ at: 0, eta: 30 }, 10, 0.1)).toBe(10);
    // The end is the end.
    expect(steadyEta({ at: 0, eta: 30 }, 0, 0.1)).toBe(0);
  });

  it('the runner takes a paced figure as the task gives it', () => {
    expect(etaOf({ done: 1, total: 2, detail: { overall: 0.5, estimatedSecondsLeft: 50, pacedOverall: 0.4, pacedSecondsLeft: 12 } }, 25, 5)).toBe(12);
  });
});
