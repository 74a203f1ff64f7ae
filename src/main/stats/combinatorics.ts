/** Binomial coefficients for the permutation tests (exact enumeration when the splits are few). */

/** C(n, k) as a double, stopping early once it exceeds `cap` (returns Infinity). */
export function binomialCapped(n: number, k: number, cap = Infinity): number {
  k = Math.min(k, n - k);
  if (k < 0) return 0;
  let c = 1;
  for (let i = 1; i <= k; i += 1) {
    c = (c * (n - k + i)) / i;
    c = Math.round(c);
    if (c > cap) return Infinity;
  }
  return c;
}
