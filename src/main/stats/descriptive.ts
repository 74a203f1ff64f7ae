/** Descriptive statistics on plain or typed numeric arrays. */
export type NumArray = ArrayLike<number>;

export function sum(x: NumArray): number {
  // Neumaier compensated summation: group totals over 100k utterances stay exact to the last bit.
  let s = 0;
  let c = 0;
  for (let i = 0; i < x.length; i += 1) {
    const v = x[i]!;
    const t = s + v;
    c += Math.abs(s) >= Math.abs(v) ? s - t + v : v - t + s;
    s = t;
  }
  return s + c;
}

export function mean(x: NumArray): number {
  if (x.length === 0) return NaN;
  return sum(x) / x.length;
}

/** Sample variance with `ddof` (1 by default), two-pass for accuracy. */
export function variance(x: NumArray, ddof = 1): number {
  const n = x.length;
  if (n - ddof <= 0) return NaN;
  const m = mean(x);
  let ss = 0;
  let comp = 0;
  for (let i = 0; i < n; i += 1) {
    const d = x[i]! - m;
    ss += d * d;
    comp += d;
  }
  return (ss - (comp * comp) / n) / (n - ddof);
}

export function std(x: NumArray, ddof = 1): number {
  return Math.sqrt(variance(x, ddof));
}

/** Quantile with linear interpolation between order statistics (numpy's default, Hyndman–Fan type 7). */
export function quantile(x: NumArray, q: number): number {
  const sorted = Float64Array.from(x).sort();
  return quantileSorted(sorted, q);
}

export function quantileSorted(sorted: NumArray, q: number): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  const h = (n - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.min(n - 1, lo + 1);
  const frac = h - lo;
  const a = sorted[lo]!;
  const b = sorted[hi]!;
  return frac === 0 ? a : a + frac * (b - a);
}

/** Percentile interval [q/2, 1 - q/2] of bootstrap replicates (non-finite values dropped). */
export function percentileInterval(replicates: NumArray, level = 0.95): [number, number] {
  const finite = Array.from(replicates).filter((v) => Number.isFinite(v));
  const sorted = Float64Array.from(finite).sort();
  const a = (1 - level) / 2;
  return [quantileSorted(sorted, a), quantileSorted(sorted, 1 - a)];
}

/** Ranks 1..n ascending; ties share their average rank (scipy.stats.rankdata 'average'). */
export function averageRanks(x: NumArray): Float64Array {
  const n = x.length;
  const order = Array.from({ length: n }, (_, i) => i).sort((i, j) => x[i]! - x[j]!);
  const ranks = new Float64Array(n);
  let i = 0;
  while (i < n) {
    let j = i;
    while (j + 1 < n && x[order[j + 1]!]! === x[order[i]!]!) j += 1;
    const r = (i + j) / 2 + 1;
    for (let k = i; k <= j; k += 1) ranks[order[k]!] = r;
    i = j + 1;
  }
  return ranks;
}
