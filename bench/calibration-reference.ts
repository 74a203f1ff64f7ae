/**
 * Why the reference group is part of the plan (issue 32.3; METHODS.md § The unit of
 * inference, Reference group), as a figure of `npm run bench:calibration -- --only
 * wer-reference`: on null audits (no group differs) the family-wise false-positive rate,
 * the share of audits in which any comparison is called "unlikely to be chance" after
 * Holm's adjustment, when the reference is
 *
 * - fixed before the run (the plan's group; here always g0, as a plan would name it),
 * - the lowest-WER group of the data (what the app did when the plan named none), or
 * - absent: every pair compared, Holm over all pairs (what the app does now then).
 *
 * Each audit goes through compareWerGroups, the app's own tests; the caller simulates the
 * audits (bench/calibration.ts: 4 groups × 12 speakers, log-normal speaker rates).
 */
import { compareWerGroups, Rng, type WerCounts } from '../src/main/stats';

export interface ReferenceCalibration {
  audits: number;
  /** Audits with at least one comparison below alpha after Holm, per way of choosing the reference. */
  fixed: number;
  best: number;
  everyPair: number;
}

/** The group with the lowest pooled WER: the reference the app once picked from the results. */
function lowestWerGroup(d: WerCounts): string {
  const totals = new Map<string, [number, number]>();
  d.groups.forEach((g, i) => {
    const t = totals.get(g) ?? [0, 0];
    t[0] += d.errors[i]!;
    t[1] += d.words[i]!;
    totals.set(g, t);
  });
  return [...totals.entries()].sort((a, b) => a[1][0] / a[1][1] - b[1][0] / b[1][1])[0]![0];
}

export function referenceCalibration(options: { audits: number; permutations: number; alpha?: number; seed?: number; simulate: (rng: Rng) => WerCounts; fixedReference: string }): ReferenceCalibration {
  const alpha = options.alpha ?? 0.05;
  const out: ReferenceCalibration = { audits: 0, fixed: 0, best: 0, everyPair: 0 };
  const anyBelow = (d: WerCounts, reference: string | null, sim: number) =>
    compareWerGroups(d, reference, { by: 'speaker', permutations: options.permutations, seed: sim }).comparisons.some((c) => c.primary !== null && c.primary.pHolm < alpha);
  for (let sim = 0; sim < options.audits; sim += 1) {
    const d = options.simulate(Rng.stream(options.seed ?? 20_261_205, sim));
    out.audits += 1;
    if (anyBelow(d, options.fixedReference, sim)) out.fixed += 1;
    if (anyBelow(d, lowestWerGroup(d), sim)) out.best += 1;
    if (anyBelow(d, null, sim)) out.everyPair += 1;
  }
  return out;
}

/** The figure as a table, `cell` formatting k of n with its interval. */
export function referenceCalibrationTable(r: ReferenceCalibration, scenario: string, cell: (k: number, n: number) => string): string[] {
  return [
    `Reference group (issue 32.3): ${r.audits} null audits of ${scenario}; family-wise false positives (any comparison with Holm-adjusted primary p < 5%).\n`,
    '| reference | comparisons | family-wise false positives |',
    '| --- | --- | --- |',
    `| fixed before the run (the plan's) | each other group with it | ${cell(r.fixed, r.audits)} |`,
    `| the lowest-WER group of the data (no longer possible) | each other group with it | ${cell(r.best, r.audits)} |`,
    `| none named: every pair, Holm over all pairs | every pair | ${cell(r.everyPair, r.audits)} |`,
  ];
}
