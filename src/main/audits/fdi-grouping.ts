/**
 * One FDI grouping of the results (src/shared/results.ts FdiGrouping) from scored items:
 * the analysis at the reported threshold, the sweep, the bootstrap CI. The FDI audit and
 * the report's sample fixture both build groupings here, so the fixture has the shape the
 * pipeline produces (Wasserstein distances keyed by pair "a|b", not by group).
 */
import type { FdiGrouping } from '../../shared/results';
import { analyseFdi, bootstrapFdiCi, fdiAtThreshold, groupRates, observedThresholds, type FdiItems, type Orientation } from '../stats';

/**
 * `thresholds` null: the sweep spans the observed scores (1st to 99th percentile); the
 * grouping's `sweepRange` says which. The verifier's quality and the permutation null
 * (`nullPermutations` shuffles, default 1,000) are computed at `tau`.
 */
export function fdiGrouping(
  items: FdiItems,
  groupBy: string[],
  tau: number,
  thresholds: number[] | null,
  options: { alpha: number; orientation: Orientation; bootstrap: number; nullPermutations?: number },
  seed: number,
): FdiGrouping {
  const a = analyseFdi(items, [tau], { alpha: options.alpha, orientation: options.orientation, seed, nullPermutations: options.nullPermutations ?? 1000 });
  const observed = thresholds === null ? observedThresholds(items.scores) : null;
  const grid = observed?.thresholds ?? thresholds!;
  const sweep = grid.flatMap((t) => {
    try {
      const r = groupRates(items, t);
      const vals = Object.values(r);
      const spread = (f: (x: (typeof vals)[number]) => number) => Math.max(...vals.map(f)) - Math.min(...vals.map(f));
      return [{ threshold: t, ...fdiAtThreshold(items, t, options.alpha, options.orientation), disparities: { fpr: spread((x) => x.fpr), fnr: spread((x) => x.fnr), accuracy: spread((x) => x.accuracy) } }];
    } catch {
      return [];
    }
  });
  const ci = options.bootstrap > 0 ? bootstrapFdiCi(items, tau, options.bootstrap, options.alpha, options.orientation, seed) : null;
  return {
    groupBy,
    threshold: tau,
    groups: Object.fromEntries(Object.entries(a.groups).map(([g, r]) => [g, { n: r.n, fpr: Number.isNaN(r.fpr) ? null : r.fpr, fnr: Number.isNaN(r.fnr) ? null : r.fnr, accuracy: r.accuracy }])),
    disparities: a.disparities,
    worstGroupAccuracy: a.worstGroupAccuracy,
    wasserstein: a.wasserstein,
    fdi: a.fdi,
    valueDisagreement: a.valueDisagreement,
    rankDisagreement: a.rankDisagreement,
    fdiCi95: ci,
    sweep,
    alphaSensitivity: a.alphaSensitivity,
    verifier: { auc: a.verifier.auc, aucCi: a.verifier.aucCi, eer: a.verifier.eer, informative: a.verifier.informative, genuine: a.verifier.genuine, impostor: a.verifier.impostor },
    null: a.null,
    // The scores travel with the grouping so that the report can attach them (report-data fdi-trials-*.csv).
    trials: items.groups.map((g, i) => ({ group: g, label: items.labels[i] === 1 ? 1 : 0, score: items.scores[i]! })),
    sweepRange: observed
      ? { from: observed.from, to: observed.to, step: observed.step, rule: 'observed-range' }
      : { from: grid[0]!, to: grid[grid.length - 1]!, step: grid.length > 1 ? grid[1]! - grid[0]! : 0, rule: 'given' },
  };
}
