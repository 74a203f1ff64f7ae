/** Classical tests used by the report's confound checks and SER propagation section. */
import { mean, variance, type NumArray } from './descriptive';
import { fSf, tTwoSided } from './special';

/** Cohen's d with the pooled SD (ddof 1): (mean(x) - mean(y)) / s_pooled. */
export function cohenD(x: NumArray, y: NumArray): number {
  const nx = x.length;
  const ny = y.length;
  if (nx < 1 || ny < 1 || nx + ny < 3) return NaN;
  const vx = nx > 1 ? variance(x, 1) : 0;
  const vy = ny > 1 ? variance(y, 1) : 0;
  const pooled = Math.sqrt(((nx - 1) * vx + (ny - 1) * vy) / (nx + ny - 2));
  return (mean(x) - mean(y)) / pooled;
}

export interface TTestResult {
  t: number;
  df: number;
  /** Two-sided p-value. */
  pValue: number;
  meanDifference: number;
}

/** Welch's unequal-variance t-test (scipy.stats.ttest_ind(equal_var=False)). */
export function welchTTest(x: NumArray, y: NumArray): TTestResult {
  const nx = x.length;
  const ny = y.length;
  const vx = variance(x, 1) / nx;
  const vy = variance(y, 1) / ny;
  const diff = mean(x) - mean(y);
  const t = diff / Math.sqrt(vx + vy);
  const df = (vx + vy) ** 2 / ((vx * vx) / (nx - 1) + (vy * vy) / (ny - 1));
  return { t, df, pValue: tTwoSided(t, df), meanDifference: diff };
}

/** Paired t-test on x[i] - y[i] (scipy.stats.ttest_rel). */
export function pairedTTest(x: NumArray, y: NumArray): TTestResult {
  if (x.length !== y.length) throw new RangeError('pairedTTest: x and y must have the same length');
  const n = x.length;
  const d = new Float64Array(n);
  for (let i = 0; i < n; i += 1) d[i] = x[i]! - y[i]!;
  const md = mean(d);
  const t = md / Math.sqrt(variance(d, 1) / n);
  const df = n - 1;
  return { t, df, pValue: tTwoSided(t, df), meanDifference: md };
}

export interface OlsResult {
  slope: number;
  intercept: number;
  slopeStandardError: number;
  interceptStandardError: number;
  t: number;
  df: number;
  /** Two-sided p of H0: slope = 0 (scipy.stats.linregress). */
  pValue: number;
  rSquared: number;
  n: number;
}

/** Simple OLS y = a + b x with the slope t-test. */
export function olsRegression(x: NumArray, y: NumArray): OlsResult {
  const n = x.length;
  if (n !== y.length) throw new RangeError('olsRegression: x and y must have the same length');
  const mx = mean(x);
  const my = mean(y);
  let sxx = 0;
  let sxy = 0;
  let syy = 0;
  for (let i = 0; i < n; i += 1) {
    const dx = x[i]! - mx;
    const dy = y[i]! - my;
    sxx += dx * dx;
    sxy += dx * dy;
    syy += dy * dy;
  }
  const slope = sxy / sxx;
  const intercept = my - slope * mx;
  const rss = Math.max(0, syy - slope * sxy);
  const df = n - 2;
  const s2 = rss / df;
  const se = Math.sqrt(s2 / sxx);
  const seIntercept = Math.sqrt(s2 * (1 / n + (mx * mx) / sxx));
  const t = slope / se;
  return {
    slope,
    intercept,
    slopeStandardError: se,
    interceptStandardError: seIntercept,
    t,
    df,
    pValue: tTwoSided(t, df),
    rSquared: syy > 0 ? (sxy * sxy) / (sxx * syy) : NaN,
    n,
  };
}

export interface AnovaRow {
  source: string;
  sumSq: number;
  df: number;
  f: number;
  pValue: number;
}

/**
 * Two-way ANOVA with interaction, y ~ A + B + A:B (the paper: SpEAT d by model family ×
 * test). Unbalanced designs and empty cells are handled through least squares with
 * rank-revealing Gram–Schmidt; sums of squares are Type II (statsmodels anova_lm typ=2),
 * which coincides with Type I and III in balanced designs. Returns rows for A, B, A:B and
 * Residual.
 */
export function twoWayAnova(
  y: NumArray,
  factorA: readonly string[],
  factorB: readonly string[],
  names: { a?: string; b?: string } = {},
): AnovaRow[] {
  const n = y.length;
  if (factorA.length !== n || factorB.length !== n) throw new RangeError('twoWayAnova: factors must match y in length');
  const levelsA = [...new Set(factorA)];
  const levelsB = [...new Set(factorB)];
  const dummies = (f: readonly string[], levels: string[]): Float64Array[] =>
    levels.slice(1).map((lv) => Float64Array.from(f, (v) => (v === lv ? 1 : 0)));
  const intercept = [new Float64Array(n).fill(1)];
  const da = dummies(factorA, levelsA);
  const db = dummies(factorB, levelsB);
  const dab: Float64Array[] = [];
  for (const a of da) for (const b of db) dab.push(Float64Array.from(a, (v, i) => v * b[i]!));
  const fit = (cols: Float64Array[]) => rssAndRank(y, cols);
  const full = fit([...intercept, ...da, ...db, ...dab]);
  const ab = fit([...intercept, ...da, ...db]);
  const onlyA = fit([...intercept, ...da]);
  const onlyB = fit([...intercept, ...db]);
  const dfRes = n - full.rank;
  const msRes = full.rss / dfRes;
  const row = (source: string, ss: number, df: number): AnovaRow => {
    const f = ss / df / msRes;
    return { source, sumSq: ss, df, f, pValue: fSf(f, df, dfRes) };
  };
  return [
    row(names.a ?? 'A', onlyB.rss - ab.rss, ab.rank - onlyB.rank),
    row(names.b ?? 'B', onlyA.rss - ab.rss, ab.rank - onlyA.rank),
    row(`${names.a ?? 'A'}:${names.b ?? 'B'}`, ab.rss - full.rss, full.rank - ab.rank),
    { source: 'Residual', sumSq: full.rss, df: dfRes, f: NaN, pValue: NaN },
  ];
}

/** Residual sum of squares of y projected on span(cols), and the rank of cols (modified Gram–Schmidt). */
function rssAndRank(y: NumArray, cols: Float64Array[]): { rss: number; rank: number } {
  const basis: Float64Array[] = [];
  for (const c of cols) {
    const v = Float64Array.from(c);
    const norm0 = Math.sqrt(dot(v, v));
    // Two passes of orthogonalisation keep the basis orthogonal to machine precision.
    for (let pass = 0; pass < 2; pass += 1) {
      for (const q of basis) {
        const p = dot(v, q);
        for (let i = 0; i < v.length; i += 1) v[i] -= p * q[i]!;
      }
    }
    const norm = Math.sqrt(dot(v, v));
    if (norm > 1e-10 * Math.max(1, norm0)) {
      for (let i = 0; i < v.length; i += 1) v[i] /= norm;
      basis.push(v);
    }
  }
  const r = Float64Array.from(y);
  for (const q of basis) {
    const p = dot(r, q);
    for (let i = 0; i < r.length; i += 1) r[i] -= p * q[i]!;
  }
  return { rss: dot(r, r), rank: basis.length };
}

function dot(a: NumArray, b: NumArray): number {
  let s = 0;
  for (let i = 0; i < a.length; i += 1) s += a[i]! * b[i]!;
  return s;
}
