/**
 * Whether a verifier's scores are worth auditing for fairness (METHODS.md § Verdicts that
 * hold, Verifier quality): how well they separate genuine (label 1) from impostor (label 0)
 * trials, as the Mann–Whitney AUC with DeLong's 95% CI and the equal error rate. FPR/FNR
 * disparities of a verifier at chance describe noise, so the FDI section gives no verdict
 * unless the CI's lower end is above 0.5.
 */
import { averageRanks } from './descriptive';
import { StatsInputError } from './speat';
import { normalQuantile } from './special';

export interface VerifierQuality {
  /** P(genuine score > impostor score) + ½ P(tie): the Mann–Whitney U of the genuine trials over n₁·n₀. */
  auc: number;
  /** DeLong's 95% CI (normal, on the AUC scale), clipped to [0, 1]. */
  aucCi: [number, number];
  /** DeLong's standard error of the AUC. */
  aucSe: number;
  /** Where FPR and FNR over all trials are closest (decision score ≥ threshold): their mean there. */
  eer: number;
  eerThreshold: number;
  informative: boolean;
  genuine: number;
  impostor: number;
}

/**
 * The threshold (one of the scores) where FNR = #{genuine < t}/n₁ and FPR = #{impostor ≥ t}/n₀
 * are closest, the first such in ascending order, and the equal error rate there (the mean
 * of the two rates).
 */
export function equalErrorRate(scores: ArrayLike<number>, labels: ArrayLike<number>): { eer: number; threshold: number } {
  const n = scores.length;
  if (n === 0) throw new StatsInputError('no trials');
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => scores[a]! - scores[b]!);
  let pos = 0;
  for (let i = 0; i < n; i += 1) if (labels[i] === 1) pos += 1;
  const neg = n - pos;
  let fn = 0;
  let tn = 0;
  let best = { gap: Infinity, t: scores[order[0]!]!, fnr: 0, fpr: 1 };
  // Threshold at each distinct score: the trials below it are rejected.
  for (let k = 0; k < n; k += 1) {
    const t = scores[order[k]!]!;
    if (k === 0 || t !== scores[order[k - 1]!]!) {
      const fnr = fn / Math.max(1, pos);
      const fpr = (neg - tn) / Math.max(1, neg);
      const gap = Math.abs(fnr - fpr);
      if (gap < best.gap) best = { gap, t, fnr, fpr };
    }
    if (labels[order[k]!] === 1) fn += 1;
    else tn += 1;
  }
  return { eer: (best.fnr + best.fpr) / 2, threshold: best.t };
}

/**
 * AUC with DeLong, DeLong & Clarke-Pearson (1988)'s variance, computed from midranks (Sun &
 * Xu 2014): for genuine trial i, V10_i = (rank among all − rank among genuine) / n₀; for
 * impostor j, V01_j = 1 − (rank among all − rank among impostors) / n₁; Var = s²(V10)/n₁ +
 * s²(V01)/n₀ (sample variances, ddof 1).
 */
export function verifierQuality(scores: ArrayLike<number>, labels: ArrayLike<number>, level = 0.95): VerifierQuality {
  const pos: number[] = [];
  const neg: number[] = [];
  for (let i = 0; i < scores.length; i += 1) (labels[i] === 1 ? pos : neg).push(scores[i]!);
  const n1 = pos.length;
  const n0 = neg.length;
  if (n1 === 0) throw new StatsInputError('no genuine (label 1) trials, so the verifier cannot be judged', 'label');
  if (n0 === 0) throw new StatsInputError('no impostor (label 0) trials, so the verifier cannot be judged', 'label');
  const all = averageRanks([...pos, ...neg]);
  const rp = averageRanks(pos);
  const rn = averageRanks(neg);
  const v10 = new Float64Array(n1);
  const v01 = new Float64Array(n0);
  let auc = 0;
  for (let i = 0; i < n1; i += 1) {
    v10[i] = (all[i]! - rp[i]!) / n0;
    auc += v10[i]!;
  }
  auc /= n1;
  for (let j = 0; j < n0; j += 1) v01[j] = 1 - (all[n1 + j]! - rn[j]!) / n1;
  const sampleVar = (v: Float64Array, m: number) => (v.length > 1 ? v.reduce((s, x) => s + (x - m) ** 2, 0) / (v.length - 1) : 0);
  const se = Math.sqrt(sampleVar(v10, auc) / n1 + sampleVar(v01, auc) / n0);
  const z = normalQuantile(1 - (1 - level) / 2);
  const aucCi: [number, number] = [Math.max(0, auc - z * se), Math.min(1, auc + z * se)];
  const e = equalErrorRate(scores, labels);
  return { auc, aucCi, aucSe: se, eer: e.eer, eerThreshold: e.threshold, informative: aucCi[0] > 0.5, genuine: n1, impostor: n0 };
}
