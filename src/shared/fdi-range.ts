/**
 * The range of the fairness disagreement index (METHODS.md § FDI), derived from its
 * definition: FDI = mean over metric pairs of α·D_ij + (1 − α)·R_ij.
 * - D_ij is a mean over groups of |a − b| with a, b min-max normalised into [0, 1]: at most 1.
 * - R_ij is a mean over groups of |r_i(g) − r_j(g)| for ranks 1..k (average ranks for ties):
 *   the sum of rank displacements is at most ⌊k²/2⌋ (reversed order, Spearman's footrule
 *   maximum; average ranks lie inside the permutations' convex hull, so ties never exceed
 *   it), so R_ij ≤ ⌊k²/2⌋ / k, which grows with the number of groups k.
 * Hence 0 ≤ FDI ≤ α + (1 − α)·⌊k²/2⌋/k: 1 with 2 groups, 1.17 with 3, 1.5 with 4 (α = 0.5).
 * With three metrics not every pair can be reversed at once, so the largest value reached is
 * lower (2/3 with 2 groups, 1 with 3, by exhaustive search); the bound is what is stated.
 */
import { fmt } from './charts/format';

/** The upper bound of FDI with k groups and weight α on value disagreement. */
export function fdiUpperBound(groups: number, alpha = 0.5): number {
  if (groups < 2) return 0;
  return alpha + ((1 - alpha) * Math.floor((groups * groups) / 2)) / groups;
}

/** "with 3 groups it is at most 1.17 (1.00 with 2 groups, 1.50 with 4)": for captions and the glossary. */
export function fdiCeilingWords(groups: number, alpha = 0.5): string {
  const others = [2, 3, 4].filter((k) => k !== groups).map((k) => `${fmt(fdiUpperBound(k, alpha))} with ${k} groups`);
  return `with ${groups} groups it is at most ${fmt(fdiUpperBound(groups, alpha))}; ${others.join(', ')}`;
}
