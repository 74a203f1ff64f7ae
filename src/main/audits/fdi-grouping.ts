/**
 * One FDI grouping of the results (src/shared/results.ts FdiGrouping) from scored items:
 * the analysis at the reported threshold, the sweep, the bootstrap CI. The FDI audit and
 * the report's sample fixture both build groupings here, so the fixture has the shape the
 * pipeline produces (Wasserstein distances keyed by pair "a|b", not by group).
 */
import type { FdiGrouping } from '../../shared/results';
import { analyseFdi, bootstrapFdiCi, fdiAtThreshold, groupRates, type FdiItems, type Orientation } from '../stats';

export function fdiGrouping(items: FdiItems, groupBy: string[], tau: number, thresholds: number[], options: { alpha: number; orientation: Orientation; bootstrap: number }, seed: number): FdiGrouping {
  const a = analyseFdi(items, [tau], { alpha: options.alpha, orientation: options.orientation, seed });
  const sweep = thresholds.flatMap((t) => {
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
  };
}
