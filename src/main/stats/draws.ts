/**
 * Draws from the distributions the WER simulations need, from the seeded generator: the
 * MDE's simulated audits (wer-power.ts) and the parametric bootstrap of the mixed model's
 * likelihood-ratio statistic (wer-lr-bootstrap.ts) draw the same way.
 */
import type { Rng } from './rng';

/** Standard normal by Box–Muller (one of the pair). */
export function normalDraw(rng: Rng): number {
  const u = 1 - rng.nextFloat();
  const v = rng.nextFloat();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** Poisson draw by inversion, in pieces of mean ≤ 30 (a sum of Poissons is Poisson), so exp(−λ) never underflows. */
export function poissonDraw(rng: Rng, lambda: number): number {
  let k = 0;
  let left = lambda;
  while (left > 0) {
    const l = Math.min(left, 30);
    left -= l;
    const u = rng.nextFloat();
    let j = 0;
    let p = Math.exp(-l);
    let cdf = p;
    while (u > cdf && j < 10_000) {
      j += 1;
      p *= l / j;
      cdf += p;
    }
    k += j;
  }
  return k;
}
