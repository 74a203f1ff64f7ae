/**
 * Wasserstein-1 distance between two empirical distributions: ∫ |F_u(t) − F_v(t)| dt over
 * the merged support (as scipy.stats.wasserstein_distance computes it, unweighted).
 */
export function wasserstein1(u: ArrayLike<number>, v: ArrayLike<number>): number {
  const a = Float64Array.from(u).sort();
  const b = Float64Array.from(v).sort();
  const na = a.length;
  const nb = b.length;
  if (na === 0 || nb === 0) return NaN;
  let i = 0;
  let j = 0;
  let prev = Math.min(a[0]!, b[0]!);
  let dist = 0;
  while (i < na || j < nb) {
    const next = j >= nb || (i < na && a[i]! <= b[j]!) ? a[i]! : b[j]!;
    dist += Math.abs(i / na - j / nb) * (next - prev);
    while (i < na && a[i] === next) i += 1;
    while (j < nb && b[j] === next) j += 1;
    prev = next;
  }
  return dist;
}
