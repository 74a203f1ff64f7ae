/**
 * One FDI grouping of the results (src/shared/results.ts FdiGrouping) from scored items:
 * the analysis at the reported threshold, the sweep, the bootstrap CI. The FDI audit and
 * the report's sample fixture both build groupings here, so the fixture has the shape the
 * pipeline produces (Wasserstein distances keyed by pair "a|b", not by group).
 */
import type { FdiGrouping, FdiVerification } from '../../shared/results';
import { analyseFdi, bootstrapFdi, fdiAtThreshold, groupRates, observedThresholds, verificationMeasures, type FdiItems, type Orientation } from '../stats';

/**
 * The trials' speaker ids replaced by pseudonyms S01, S02, … numbered in the sorted order of
 * the real ids, so the results and the report data carry no speaker ids, and the speaker
 * bootstrap and shuffle (which visit speakers in sorted order) give the same numbers on
 * either: `stats fdi` on the report's trials reproduces them.
 */
export function pseudonymiseSpeakers(items: FdiItems): FdiItems {
  if (!items.speakers) return items;
  const ids = [...new Set([...items.speakers.enrol, ...items.speakers.test])].sort();
  const width = Math.max(2, String(ids.length).length);
  const alias = new Map(ids.map((id, k) => [id, `S${String(k + 1).padStart(width, '0')}`]));
  return { ...items, speakers: { enrol: items.speakers.enrol.map((s) => alias.get(s)!), test: items.speakers.test.map((s) => alias.get(s)!) } };
}

/**
 * `thresholds` null: the sweep spans the observed scores (1st to 99th percentile); the
 * grouping's `sweepRange` says which. The verifier's quality and the permutation null
 * (`nullPermutations` shuffles, default 1,000) are computed at `tau`.
 */
export function fdiGrouping(
  trialItems: FdiItems,
  groupBy: string[],
  tau: number,
  thresholds: number[] | null,
  options: { alpha: number; orientation: Orientation; bootstrap: number; nullPermutations?: number },
  seed: number,
): FdiGrouping {
  const items = pseudonymiseSpeakers(trialItems);
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
  const ci = options.bootstrap > 0 ? bootstrapFdi(items, tau, options.bootstrap, options.alpha, options.orientation, seed) : null;
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
    fdiCi95: ci ? ci.ci95 : null,
    fdiCi: ci ? ci.info : null,
    sweep,
    alphaSensitivity: a.alphaSensitivity,
    verifier: { auc: a.verifier.auc, aucCi: a.verifier.aucCi, eer: a.verifier.eer, informative: a.verifier.informative, genuine: a.verifier.genuine, impostor: a.verifier.impostor },
    null: a.null,
    // The scores travel with the grouping so that the report can attach them (report-data fdi-trials-*.csv).
    trials: items.groups.map((g, i) => ({ group: g, label: items.labels[i] === 1 ? 1 : 0, score: items.scores[i]!, ...(items.speakers ? { speakers: [items.speakers.enrol[i]!, items.speakers.test[i]!] as [string, string] } : {}) })),
    verification: verificationResult(items, tau, options.bootstrap, seed),
    sweepRange: observed
      ? { from: observed.from, to: observed.to, step: observed.step, rule: 'observed-range' }
      : { from: grid[0]!, to: grid[grid.length - 1]!, step: grid.length > 1 ? grid[1]! - grid[0]! : 0, rule: 'given' },
  };
}

/**
 * Per-group EER (CI over speakers when the trials name them, with the FDI's resamples and
 * seed), GARBE and FDR at τ, and the DET curves: what `stats fdi` prints as `verification`.
 */
export function verificationResult(items: FdiItems, tau: number, bootstrap: number, seed: number): FdiVerification {
  const v = verificationMeasures(items, tau, { bootstrap, seed });
  return { eer: v.eer, eerCi: v.eerCi, garbe: v.garbe, fdr: v.fdr, det: v.det };
}
