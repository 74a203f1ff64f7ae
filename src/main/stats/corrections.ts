/**
 * Multiple-comparison adjustments; results match statsmodels.stats.multitest.multipletests
 * ('bonferroni', 'holm', 'fdr_bh'). NaN p-values pass through as NaN and are not counted.
 */
export type AdjustMethod = 'bonferroni' | 'holm' | 'bh';

export function adjustPValues(p: readonly number[], method: AdjustMethod): number[] {
  const idx = p.map((v, i) => [v, i] as const).filter(([v]) => !Number.isNaN(v));
  const m = idx.length;
  const out = p.map(() => NaN);
  if (m === 0) return out;
  if (method === 'bonferroni') {
    for (const [v, i] of idx) out[i] = Math.min(1, v * m);
    return out;
  }
  if (method === 'holm') {
    const sorted = [...idx].sort((a, b) => a[0] - b[0]);
    let running = 0;
    sorted.forEach(([v, i], k) => {
      running = Math.max(running, Math.min(1, (m - k) * v));
      out[i] = running;
    });
    return out;
  }
  const sorted = [...idx].sort((a, b) => b[0] - a[0]);
  let running = 1;
  sorted.forEach(([v, i], k) => {
    const rank = m - k;
    running = Math.min(running, (v * m) / rank);
    out[i] = Math.min(1, running);
  });
  return out;
}

export const bonferroni = (p: readonly number[]): number[] => adjustPValues(p, 'bonferroni');
export const holm = (p: readonly number[]): number[] => adjustPValues(p, 'holm');
export const benjaminiHochberg = (p: readonly number[]): number[] => adjustPValues(p, 'bh');
