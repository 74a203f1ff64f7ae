/**
 * Poisson GLM with log link and offset, fitted by IRLS (McCullagh & Nelder 1989, §2.5;
 * the algorithm of R's glm.fit: start mu = y + 0.1, stop when
 * |dev − dev_old| / (|dev| + 0.1) < 1e-10). Used for WER: errors_i ~ Poisson(mu_i),
 * log mu_i = log(words_i) + b0 + b_g (METHODS.md).
 */
import { chi2Sf } from './special';

export interface GlmFit {
  coefficients: number[];
  standardErrors: number[];
  deviance: number;
  iterations: number;
  converged: boolean;
}

/** Columns are predictors (include an intercept column yourself); offset may be omitted. */
export function poissonGlm(y: ArrayLike<number>, columns: readonly ArrayLike<number>[], offset?: ArrayLike<number>): GlmFit {
  const n = y.length;
  const p = columns.length;
  const off = offset ?? new Float64Array(n);
  const mu = Float64Array.from(y, (v) => v + 0.1);
  const eta = Float64Array.from(mu, Math.log);
  let beta = new Array<number>(p).fill(0);
  let dev = poissonDeviance(y, mu);
  let converged = false;
  let iter = 0;
  let xtwxInv: number[][] = [];
  const xtwx = Array.from({ length: p }, () => new Float64Array(p));
  const xtwz = new Float64Array(p);
  // X'WX and X'Wz at the current mu (W = mu for the canonical log link).
  const accumulate = (): void => {
    for (let a = 0; a < p; a += 1) {
      xtwx[a]!.fill(0);
      xtwz[a] = 0;
    }
    for (let i = 0; i < n; i += 1) {
      const w = mu[i]!;
      const z = eta[i]! - off[i]! + (y[i]! - mu[i]!) / mu[i]!;
      for (let a = 0; a < p; a += 1) {
        const xa = columns[a]![i]!;
        if (xa === 0) continue;
        const wxa = w * xa;
        xtwz[a] += wxa * z;
        const ra = xtwx[a]!;
        for (let b = a; b < p; b += 1) ra[b] += wxa * columns[b]![i]!;
      }
    }
    for (let a = 0; a < p; a += 1) for (let b = 0; b < a; b += 1) xtwx[a]![b] = xtwx[b]![a]!;
  };
  for (iter = 1; iter <= 100; iter += 1) {
    accumulate();
    xtwxInv = invertSpd(xtwx);
    beta = xtwxInv.map((row) => row.reduce((s, v, b) => s + v * xtwz[b]!, 0));
    for (let i = 0; i < n; i += 1) {
      let e = off[i]!;
      for (let a = 0; a < p; a += 1) e += columns[a]![i]! * beta[a]!;
      eta[i] = e;
      mu[i] = Math.exp(e);
    }
    const newDev = poissonDeviance(y, mu);
    if (Math.abs(newDev - dev) / (Math.abs(newDev) + 0.1) < 1e-10) {
      dev = newDev;
      converged = true;
      break;
    }
    dev = newDev;
  }
  // Standard errors from the information at the final estimate, not the previous iterate.
  accumulate();
  xtwxInv = invertSpd(xtwx);
  return {
    coefficients: beta,
    standardErrors: xtwxInv.map((row, a) => Math.sqrt(row[a]!)),
    deviance: dev,
    iterations: iter,
    converged,
  };
}

export function poissonDeviance(y: ArrayLike<number>, mu: ArrayLike<number>): number {
  let d = 0;
  for (let i = 0; i < y.length; i += 1) {
    const yi = y[i]!;
    const m = mu[i]!;
    d += (yi > 0 ? yi * Math.log(yi / m) : 0) - (yi - m);
  }
  return 2 * d;
}

/** Inverse of a symmetric positive-definite matrix by Gauss–Jordan with partial pivoting. */
function invertSpd(m: Float64Array[]): number[][] {
  const p = m.length;
  const a = m.map((row, i) => [...row, ...Array.from({ length: p }, (_, j) => (i === j ? 1 : 0))]);
  for (let c = 0; c < p; c += 1) {
    let piv = c;
    for (let r = c + 1; r < p; r += 1) if (Math.abs(a[r]![c]!) > Math.abs(a[piv]![c]!)) piv = r;
    [a[c], a[piv]] = [a[piv]!, a[c]!];
    const d = a[c]![c]!;
    if (d === 0) throw new RangeError('singular information matrix (a group has no rows?)');
    for (let j = 0; j < 2 * p; j += 1) a[c]![j] /= d;
    for (let r = 0; r < p; r += 1) {
      if (r === c) continue;
      const f = a[r]![c]!;
      if (f === 0) continue;
      for (let j = 0; j < 2 * p; j += 1) a[r]![j] -= f * a[c]![j]!;
    }
  }
  return a.map((row) => row.slice(p));
}

export interface PoissonComparison {
  group: string;
  /** b_g; -Infinity when the group has no errors (the MLE is at the boundary). */
  coefficient: number;
  standardError: number;
  rateRatio: number;
  /** Deviance drop when g is merged into the reference group (LR statistic, 1 df). */
  devianceDrop: number;
  pValue: number;
}

export interface PoissonGroupAnalysis {
  referenceGroup: string;
  comparisons: PoissonComparison[];
  /** Intercept-only model vs the full model, k − 1 df. */
  overall: { devianceDrop: number; df: number; pValue: number };
  converged: boolean;
  /** Rows left out because they have zero reference words (log offset undefined). */
  excludedRows: number;
}

/**
 * Group comparison of error rates: full model with one dummy per non-reference group,
 * one reduced model per group (g merged into the reference) and the intercept-only model.
 */
export function poissonGroupComparison(
  errors: ArrayLike<number>,
  exposure: ArrayLike<number>,
  groups: readonly string[],
  referenceGroup: string,
): PoissonGroupAnalysis {
  const keep: number[] = [];
  for (let i = 0; i < errors.length; i += 1) if (exposure[i]! > 0) keep.push(i);
  const y = Float64Array.from(keep, (i) => errors[i]!);
  const off = Float64Array.from(keep, (i) => Math.log(exposure[i]!));
  const g = keep.map((i) => groups[i]!);
  const levels = [...new Set(g)].filter((l) => l !== referenceGroup).sort();
  if (!g.includes(referenceGroup)) throw new RangeError(`reference group "${referenceGroup}" has no rows with reference words`);
  const ones = new Float64Array(y.length).fill(1);
  const dummy = (lv: string) => Float64Array.from(g, (v) => (v === lv ? 1 : 0));
  const dummies = levels.map(dummy);
  const full = poissonGlm(y, [ones, ...dummies], off);
  const nullFit = poissonGlm(y, [ones], off);
  let converged = full.converged && nullFit.converged;
  const totals = new Map<string, number>();
  g.forEach((lv, i) => totals.set(lv, (totals.get(lv) ?? 0) + y[i]!));
  const comparisons = levels.map((lv, k) => {
    const reduced = poissonGlm(
      y,
      [ones, ...dummies.filter((_, j) => j !== k)],
      off,
    );
    converged &&= reduced.converged;
    const zero = (totals.get(lv) ?? 0) === 0 || (totals.get(referenceGroup) ?? 0) === 0;
    const coefficient = (totals.get(lv) ?? 0) === 0 ? -Infinity : (totals.get(referenceGroup) ?? 0) === 0 ? Infinity : full.coefficients[k + 1]!;
    const drop = Math.max(0, reduced.deviance - full.deviance);
    return {
      group: lv,
      coefficient,
      standardError: zero ? NaN : full.standardErrors[k + 1]!,
      rateRatio: Math.exp(coefficient),
      devianceDrop: drop,
      pValue: chi2Sf(drop, 1),
    };
  });
  const overallDrop = Math.max(0, nullFit.deviance - full.deviance);
  return {
    referenceGroup,
    comparisons,
    overall: { devianceDrop: overallDrop, df: levels.length, pValue: levels.length > 0 ? chi2Sf(overallDrop, levels.length) : NaN },
    converged,
    excludedRows: errors.length - keep.length,
  };
}
