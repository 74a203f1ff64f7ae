/**
 * Mixed-effects Poisson regression for WER (METHODS.md § WER and CER; Liu et al. 2022):
 * errors_i ~ Poisson(mu_i), log mu_i = log(words_i) + x_i·β + θ b_s(i), b_s ~ N(0, 1), so the
 * speaker variance is σ² = θ². Maximum likelihood with the Laplace approximation, as lme4's
 * `glmer(..., family = poisson, nAGQ = 1)`, or adaptive Gauss–Hermite quadrature.
 *
 * What lme4 does, and what is reproduced here (lme4 1.1-31, src/external.cpp, R/lmer.R):
 * - Laplace deviance (glmResp::Laplace) = log|L|² + ‖b̂‖² − 2 Σ log p(y_i | b̂), with b̂ the
 *   conditional mode given (θ, β) and L Lθ the Cholesky factor of Λ'Z'WZΛ + I. One scalar
 *   random intercept makes that matrix diagonal: 1 + θ² Σ_{i∈s} mu_i per speaker, and each
 *   speaker's mode is a one-dimensional Newton problem.
 * - AGQ deviance (glmerAGQ): per speaker, quadrature around the mode with scale 1/L_s.
 *   lme4 writes it with deviance residuals, which shifts it by a constant; here it stays on
 *   the −2 log-likelihood scale of the Laplace deviance (same estimates, same LR tests).
 * - Estimates minimise the deviance over (θ ≥ 0, β): profile over θ (grid, then Brent),
 *   Newton for β at each θ with the analytic gradient; the boundary θ = 0 (a "singular fit")
 *   is kept exactly when the optimum lies there.
 * - Standard errors (vcov.merMod with use.hessian): V = 2 · [H⁻¹]_ββ, H the finite-difference
 *   Hessian over (θ, β) with lme4's deriv12 step 1e-4; the β block of the full inverse
 *   carries the uncertainty of θ. For the Laplace fit H is taken of lme4's own deviance
 *   function, whose PIRLS stops early (glmm-pirls.ts): the converged deviance's Hessian gives
 *   SEs up to 10% away from lme4's. One Newton step on that function also moves the
 *   estimates to its optimum, where glmer's Nelder–Mead ends. When H is not positive
 *   definite, lme4 falls back to the conditional (RX-based) covariance, and so does this.
 * Checked against lme4 in test/unit/stats/glmm.test.ts (goldens) and bench/glmm-vs-lme4.ts
 * (random data sets).
 * Rows with zero reference words are left out (log offset undefined). Rows are aggregated
 * into (speaker, fixed-effect pattern) cells first: exact, because mu_i = words_i · exp(η).
 * mixedPoissonCellMinimum gives the maximum-likelihood deviance alone (no standard errors,
 * so no lme4 PIRLS path), by Newton's method on (θ, β) jointly with the profile search as
 * its fallback: the likelihood-ratio statistics of the bootstrap (wer-lr-bootstrap.ts),
 * checked against lme4 with tight convergence control in test/golden/wer_lr.R.
 */
import { lme4DevianceFunction, type PirlsData } from './glmm-pirls';
import { chi2Sf, logGamma, normalSf } from './special';

export interface MixedPoissonOptions {
  /** 1 = Laplace (default, lme4's nAGQ = 1); > 1 = adaptive Gauss–Hermite with that many nodes. */
  nAGQ?: number;
}

/** One fitted model. */
export interface MixedPoissonFit {
  coefficients: number[];
  standardErrors: number[];
  /** Covariance of the fixed effects. */
  vcov: number[][];
  /** 'hessian': lme4's default for GLMMs; 'conditional': its fallback when the Hessian is not positive definite. */
  vcovMethod: 'hessian' | 'conditional';
  theta: number;
  speakerVariance: number;
  /** −2 log-likelihood (Laplace or AGQ approximation). */
  deviance: number;
  logLikelihood: number;
  /** True when the optimum lies on θ = 0 (no speaker variance left; lme4 calls it singular). */
  singular: boolean;
  converged: boolean;
  nAGQ: number;
}

/**
 * Aggregated data: cells sorted by speaker; X is cells × p, row-major; cells of speaker s
 * are start[s] .. start[s+1] − 1. `constant` is Σ_i (y_i log w_i − log y_i!), the part of
 * the log-likelihood no parameter touches; the rest serves lme4's PIRLS path.
 */
type Design = PirlsData;

/** The state of one deviance evaluation: modes b, and per speaker M_s = Σ mu and R_s = Σ (y − mu). */
interface Evaluation {
  deviance: number;
  b: Float64Array;
  mu: Float64Array;
  M: Float64Array;
  R: Float64Array;
}

/**
 * Build the cell design from utterance rows. `columns` are the fixed-effect columns per
 * row (intercept included by the caller); rows with zero words must already be removed.
 */
function buildDesign(errors: ArrayLike<number>, words: ArrayLike<number>, speakerIndex: Int32Array, q: number, columns: readonly ArrayLike<number>[]): Design {
  const n = errors.length;
  const p = columns.length;
  let constant = 0;
  let residualConstant = 0;
  const key = new Map<string, number>();
  const cellSpeaker: number[] = [];
  const cellRow: number[] = [];
  const Yl: number[] = [];
  const El: number[] = [];
  const SW: number[] = [];
  const SN: number[] = [];
  for (let i = 0; i < n; i += 1) {
    const y = errors[i]!;
    const w = words[i]!;
    constant += (y > 0 ? y * Math.log(w) : 0) - logGamma(y + 1);
    residualConstant += y > 0 ? y * Math.log(y / w) : 0;
    let k = `${speakerIndex[i]}`;
    for (let a = 0; a < p; a += 1) k += `,${columns[a]![i]}`;
    let c = key.get(k);
    if (c === undefined) {
      c = Yl.length;
      key.set(k, c);
      cellSpeaker.push(speakerIndex[i]!);
      cellRow.push(i);
      Yl.push(0);
      El.push(0);
      SW.push(0);
      SN.push(0);
    }
    Yl[c] += y;
    El[c] += w;
    // The Poisson family's start (mustart = y + 0.1) as lme4's first working response.
    SW[c] += y + 0.1;
    SN[c] += (y + 0.1) * (Math.log(y + 0.1) - Math.log(w)) - 0.1;
  }
  const order = Yl.map((_, c) => c).sort((a, b) => cellSpeaker[a]! - cellSpeaker[b]! || a - b);
  const cells = order.length;
  const X = new Float64Array(cells * p);
  const Y = new Float64Array(cells);
  const E = new Float64Array(cells);
  const startWeight = new Float64Array(cells);
  const startNumerator = new Float64Array(cells);
  const start = new Int32Array(q + 1);
  order.forEach((c, j) => {
    for (let a = 0; a < p; a += 1) X[j * p + a] = columns[a]![cellRow[c]!]!;
    Y[j] = Yl[c]!;
    E[j] = El[c]!;
    startWeight[j] = SW[c]!;
    startNumerator[j] = SN[c]!;
    start[cellSpeaker[c]! + 1] += 1;
  });
  for (let s = 0; s < q; s += 1) start[s + 1] += start[s]!;
  return { p, q, cells, X, Y, E, start, constant, residualConstant, startWeight, startNumerator };
}

function linear(d: Design, beta: ArrayLike<number>, out: Float64Array): void {
  for (let c = 0; c < d.cells; c += 1) {
    let e = 0;
    for (let a = 0; a < d.p; a += 1) e += d.X[c * d.p + a]! * beta[a]!;
    out[c] = e;
  }
}

/** −2 Σ_c [Y_c η_c − μ_c] + b² over one speaker's cells (the penalised conditional deviance, constants left out). */
function speakerDeviance(d: Design, s: number, a: Float64Array, theta: number, b: number): number {
  let v = b * b;
  for (let c = d.start[s]!; c < d.start[s + 1]!; c += 1) {
    const eta = a[c]! + theta * b;
    v -= 2 * (d.Y[c]! * eta - d.E[c]! * Math.exp(eta));
  }
  return v;
}

/**
 * Conditional modes: per speaker, Newton on the strictly convex penalised deviance with step
 * halving, started from the previous mode. Fills ev.b, ev.mu, ev.M, ev.R.
 */
function solveModes(d: Design, a: Float64Array, theta: number, ev: Evaluation): void {
  for (let s = 0; s < d.q; s += 1) {
    const c0 = d.start[s]!;
    const c1 = d.start[s + 1]!;
    let b = ev.b[s]!;
    let h = speakerDeviance(d, s, a, theta, b);
    for (let iter = 0; iter < 100; iter += 1) {
      let R = 0;
      let M = 0;
      for (let c = c0; c < c1; c += 1) {
        const mu = d.E[c]! * Math.exp(a[c]! + theta * b);
        R += d.Y[c]! - mu;
        M += mu;
      }
      const step = (b - theta * R) / (1 + theta * theta * M);
      if (!(Math.abs(step) > 1e-13 * (1 + Math.abs(b)))) break;
      let t = 1;
      let bn = b - step;
      let hn = speakerDeviance(d, s, a, theta, bn);
      while (!(hn <= h) && t > 1e-10) {
        t /= 2;
        bn = b - t * step;
        hn = speakerDeviance(d, s, a, theta, bn);
      }
      if (!(hn <= h)) break;
      const done = h - hn <= 1e-15 * (1 + Math.abs(h)) && Math.abs(t * step) < 1e-9;
      b = bn;
      h = hn;
      if (done) break;
    }
    ev.b[s] = b;
    let R = 0;
    let M = 0;
    for (let c = c0; c < c1; c += 1) {
      const mu = d.E[c]! * Math.exp(a[c]! + theta * b);
      ev.mu[c] = mu;
      R += d.Y[c]! - mu;
      M += mu;
    }
    ev.M[s] = M;
    ev.R[s] = R;
  }
}

/** Probabilists' Gauss–Hermite rule (weights of the standard normal, summing to 1); Numerical Recipes `gauher` rescaled. */
export function gaussHermite(n: number): { z: number[]; w: number[] } {
  const x = new Array<number>(n).fill(0);
  const wp = new Array<number>(n).fill(0);
  const m = Math.floor((n + 1) / 2);
  const PIM4 = 0.7511255444649425; // π^(−1/4)
  let z = 0;
  for (let i = 0; i < m; i += 1) {
    if (i === 0) z = Math.sqrt(2 * n + 1) - 1.85575 * (2 * n + 1) ** -0.16667;
    else if (i === 1) z -= (1.14 * n ** 0.426) / z;
    else if (i === 2) z = 1.86 * z - 0.86 * x[0]!;
    else if (i === 3) z = 1.91 * z - 0.91 * x[1]!;
    else z = 2 * z - x[i - 2]!;
    let pp = 0;
    for (let its = 0; its < 100; its += 1) {
      let p1 = PIM4;
      let p2 = 0;
      for (let j = 0; j < n; j += 1) {
        const p3 = p2;
        p2 = p1;
        p1 = z * Math.sqrt(2 / (j + 1)) * p2 - Math.sqrt(j / (j + 1)) * p3;
      }
      pp = Math.sqrt(2 * n) * p2;
      const z1 = z;
      z = z1 - p1 / pp;
      if (Math.abs(z - z1) <= 1e-15) break;
    }
    x[i] = z;
    x[n - 1 - i] = -z;
    wp[i] = 2 / (pp * pp);
    wp[n - 1 - i] = wp[i]!;
  }
  // Physicists' rule ∫ e^{−x²} f(x) → normal: z = √2 x, w = w_phys / √π.
  return { z: x.map((v) => v * Math.SQRT2).reverse(), w: wp.map((v) => v / Math.sqrt(Math.PI)).reverse() };
}

class Model {
  readonly ev: Evaluation;
  private readonly a: Float64Array;
  private readonly gh: { z: number[]; w: number[] } | null;
  constructor(readonly d: Design, readonly nAGQ: number) {
    this.ev = { deviance: NaN, b: new Float64Array(d.q), mu: new Float64Array(d.cells), M: new Float64Array(d.q), R: new Float64Array(d.q) };
    this.a = new Float64Array(d.cells);
    this.gh = nAGQ > 1 ? gaussHermite(nAGQ) : null;
  }

  /** Deviance at (θ, β); leaves the modes in this.ev (warm start for the next call). */
  deviance(theta: number, beta: ArrayLike<number>): number {
    const { d, ev, a } = this;
    linear(d, beta, a);
    solveModes(d, a, theta, ev);
    let dev = -2 * d.constant;
    for (let s = 0; s < d.q; s += 1) {
      const h0 = speakerDeviance(d, s, a, theta, ev.b[s]!);
      const L2 = 1 + theta * theta * ev.M[s]!;
      dev += h0 + Math.log(L2);
      if (this.gh) {
        const sd = 1 / Math.sqrt(L2);
        let mult = 0;
        const { z, w } = this.gh;
        for (let k = 0; k < z.length; k += 1) {
          if (z[k] === 0) mult += w[k]!;
          else mult += w[k]! * Math.exp((z[k]! * z[k]!) / 2 - 0.5 * (speakerDeviance(d, s, a, theta, ev.b[s]! + z[k]! * sd) - h0));
        }
        dev -= 2 * Math.log(mult);
      }
    }
    ev.deviance = dev;
    return dev;
  }

  /** Laplace gradient over β at the last evaluation (envelope theorem plus the log-determinant's dependence on the modes). */
  gradientBeta(theta: number): Float64Array {
    const { d, ev } = this;
    const g = new Float64Array(d.p);
    const m = new Float64Array(d.p);
    for (let s = 0; s < d.q; s += 1) {
      m.fill(0);
      for (let c = d.start[s]!; c < d.start[s + 1]!; c += 1) {
        const mu = ev.mu[c]!;
        const r = d.Y[c]! - mu;
        for (let j = 0; j < d.p; j += 1) {
          const x = d.X[c * d.p + j]!;
          g[j] -= 2 * r * x;
          m[j] += mu * x;
        }
      }
      const L2 = 1 + theta * theta * ev.M[s]!;
      const f = (theta * theta) / (L2 * L2);
      for (let j = 0; j < d.p; j += 1) g[j] += f * m[j]!;
    }
    return g;
  }

  /** Laplace derivative over θ at the last evaluation. */
  gradientTheta(theta: number): number {
    const { d, ev } = this;
    let g = 0;
    for (let s = 0; s < d.q; s += 1) {
      const b = ev.b[s]!;
      const M = ev.M[s]!;
      const R = ev.R[s]!;
      g -= 2 * R * b;
      const L2 = 1 + theta * theta * M;
      const db = (R - theta * M * b) / L2;
      const dM = M * (b + theta * db);
      g += (2 * theta * M + theta * theta * dM) / L2;
    }
    return g;
  }

  /** 2 × the conditional information of β (the Schur complement of the penalised system): RX'RX in lme4. */
  conditionalInformation(theta: number): number[][] {
    const { d, ev } = this;
    const p = d.p;
    const S = Array.from({ length: p }, () => new Array<number>(p).fill(0));
    const m = new Float64Array(p);
    for (let s = 0; s < d.q; s += 1) {
      m.fill(0);
      for (let c = d.start[s]!; c < d.start[s + 1]!; c += 1) {
        const mu = ev.mu[c]!;
        for (let i = 0; i < p; i += 1) {
          const xi = d.X[c * p + i]!;
          if (xi === 0) continue;
          m[i] += mu * xi;
          for (let j = 0; j < p; j += 1) S[i]![j] += mu * xi * d.X[c * p + j]!;
        }
      }
      const f = (theta * theta) / (1 + theta * theta * ev.M[s]!);
      for (let i = 0; i < p; i += 1) for (let j = 0; j < p; j += 1) S[i]![j] -= f * m[i]! * m[j]!;
    }
    return S;
  }
}

/** Solve A x = b for symmetric A by Gaussian elimination with partial pivoting; null when singular. */
function solve(A: number[][], b: ArrayLike<number>): number[] | null {
  const n = A.length;
  const M = A.map((row, i) => [...row, b[i]!]);
  for (let c = 0; c < n; c += 1) {
    let piv = c;
    for (let r = c + 1; r < n; r += 1) if (Math.abs(M[r]![c]!) > Math.abs(M[piv]![c]!)) piv = r;
    [M[c], M[piv]] = [M[piv]!, M[c]!];
    const d = M[c]![c]!;
    if (!(Math.abs(d) > 0) || !Number.isFinite(d)) return null;
    for (let r = c + 1; r < n; r += 1) {
      const f = M[r]![c]! / d;
      if (f === 0) continue;
      for (let j = c; j <= n; j += 1) M[r]![j] -= f * M[c]![j]!;
    }
  }
  const x = new Array<number>(n).fill(0);
  for (let r = n - 1; r >= 0; r -= 1) {
    let s = M[r]![n]!;
    for (let j = r + 1; j < n; j += 1) s -= M[r]![j]! * x[j]!;
    x[r] = s / M[r]![r]!;
  }
  return x;
}

/** Inverse of a symmetric positive-definite matrix by Cholesky; null when not positive definite. */
function invertPd(A: number[][]): number[][] | null {
  const n = A.length;
  const L = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  for (let i = 0; i < n; i += 1) {
    for (let j = 0; j <= i; j += 1) {
      let s = (A[i]![j]! + A[j]![i]!) / 2;
      for (let k = 0; k < j; k += 1) s -= L[i]![k]! * L[j]![k]!;
      if (i === j) {
        if (!(s > 0)) return null;
        L[i]![i] = Math.sqrt(s);
      } else L[i]![j] = s / L[j]![j]!;
    }
  }
  const inv = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  for (let col = 0; col < n; col += 1) {
    const y = new Array<number>(n).fill(0);
    for (let i = 0; i < n; i += 1) {
      let s = i === col ? 1 : 0;
      for (let k = 0; k < i; k += 1) s -= L[i]![k]! * y[k]!;
      y[i] = s / L[i]![i]!;
    }
    for (let i = n - 1; i >= 0; i -= 1) {
      let s = y[i]!;
      for (let k = i + 1; k < n; k += 1) s -= L[k]![i]! * inv[k]![col]!;
      inv[i]![col] = s / L[i]![i]!;
    }
  }
  return inv;
}

/** Brent's minimiser on [lo, hi] (Numerical Recipes §10.3). */
function brent(f: (x: number) => number, lo: number, hi: number, tol: number): { x: number; fx: number } {
  const CGOLD = 0.381966011250105;
  let a = lo;
  let b = hi;
  let x = a + CGOLD * (b - a);
  let w = x;
  let v = x;
  let fx = f(x);
  let fw = fx;
  let fv = fx;
  let d = 0;
  let e = 0;
  for (let iter = 0; iter < 200; iter += 1) {
    const xm = 0.5 * (a + b);
    const tol1 = tol * Math.abs(x) + 1e-12;
    const tol2 = 2 * tol1;
    if (Math.abs(x - xm) <= tol2 - 0.5 * (b - a)) break;
    let useGolden = true;
    if (Math.abs(e) > tol1) {
      const r = (x - w) * (fx - fv);
      let q = (x - v) * (fx - fw);
      let p = (x - v) * q - (x - w) * r;
      q = 2 * (q - r);
      if (q > 0) p = -p;
      q = Math.abs(q);
      const etemp = e;
      e = d;
      if (!(Math.abs(p) >= Math.abs(0.5 * q * etemp) || p <= q * (a - x) || p >= q * (b - x))) {
        d = p / q;
        const u = x + d;
        if (u - a < tol2 || b - u < tol2) d = xm - x >= 0 ? tol1 : -tol1;
        useGolden = false;
      }
    }
    if (useGolden) {
      e = x >= xm ? a - x : b - x;
      d = CGOLD * e;
    }
    const u = Math.abs(d) >= tol1 ? x + d : x + (d >= 0 ? tol1 : -tol1);
    const fu = f(u);
    if (fu <= fx) {
      if (u >= x) a = x;
      else b = x;
      v = w;
      fv = fw;
      w = x;
      fw = fx;
      x = u;
      fx = fu;
    } else {
      if (u < x) a = u;
      else b = u;
      if (fu <= fw || w === x) {
        v = w;
        fv = fw;
        w = u;
        fw = fu;
      } else if (fu <= fv || v === x || v === w) {
        v = u;
        fv = fu;
      }
    }
  }
  return { x, fx };
}

/** Gradient of the deviance over β at fixed θ: analytic for Laplace, central differences for AGQ. */
function betaGradient(model: Model, theta: number, beta: number[]): Float64Array {
  if (model.nAGQ <= 1) return model.gradientBeta(theta);
  // AGQ: central differences of the deviance (the analytic gradient is the Laplace one).
  const g = new Float64Array(beta.length);
  const saved = Float64Array.from(model.ev.b);
  for (let j = 0; j < beta.length; j += 1) {
    const h = 1e-6 * (1 + Math.abs(beta[j]!));
    const up = beta.slice();
    up[j] += h;
    const dn = beta.slice();
    dn[j] -= h;
    g[j] = (model.deviance(theta, up) - model.deviance(theta, dn)) / (2 * h);
    model.ev.b.set(saved);
  }
  model.deviance(theta, beta);
  return g;
}

/**
 * β minimising the deviance at fixed θ: Newton steps with the conditional information as
 * the (Gauss–Newton) Hessian and backtracking on the deviance itself.
 */
function profileBeta(model: Model, theta: number, start: number[]): { beta: number[]; deviance: number; converged: boolean } {
  let beta = start.slice();
  let dev = model.deviance(theta, beta);
  for (let iter = 0; iter < 200; iter += 1) {
    const g = betaGradient(model, theta, beta);
    const H = model.conditionalInformation(theta).map((row) => row.map((v) => 2 * v));
    const step = solve(H, g);
    if (!step) return { beta, deviance: dev, converged: false };
    const decrement = step.reduce((s, v, j) => s + v * g[j]!, 0);
    if (decrement < 1e-11 * (1 + Math.abs(dev)) && step.every((v) => Math.abs(v) < 1e-8)) return { beta, deviance: dev, converged: true };
    let t = 1;
    const saved = Float64Array.from(model.ev.b);
    for (;;) {
      const cand = beta.map((v, j) => v - t * step[j]!);
      const dc = model.deviance(theta, cand);
      if (dc <= dev + 1e-12 * Math.abs(dev)) {
        const small = dev - dc < 1e-13 * (1 + Math.abs(dev)) && step.every((v) => Math.abs(t * v) < 1e-9);
        beta = cand;
        dev = dc;
        if (small) return { beta, deviance: dev, converged: true };
        break;
      }
      model.ev.b.set(saved);
      t /= 2;
      if (t < 1e-12) {
        model.deviance(theta, beta);
        return { beta, deviance: dev, converged: decrement < 1e-6 };
      }
    }
  }
  return { beta, deviance: dev, converged: false };
}

const THETA_GRID = [0, 0.03, 0.07, 0.12, 0.2, 0.3, 0.45, 0.65, 0.9, 1.25, 1.7, 2.3, 3.2, 4.5];

/**
 * Minimise a function of θ ≥ 0: a grid to find the basin, Brent inside it; the boundary
 * θ = 0 when nothing inside beats it (lme4's singular fits land exactly there too).
 */
function minimiseOverTheta(at: (theta: number) => number): number {
  const grid = [...THETA_GRID];
  const values = grid.map(at);
  let k = values.reduce((bi, v, i) => (v < values[bi]! ? i : bi), 0);
  while (k === grid.length - 1 && grid[k]! < 50) {
    grid.push(grid[k]! * 1.5);
    values.push(at(grid[k + 1]!));
    k = values.reduce((bi, v, i) => (v < values[bi]! ? i : bi), 0);
  }
  let theta: number;
  if (k === 0) {
    const r = brent(at, 0, grid[1]!, 1e-10);
    theta = r.fx < values[0]! - 1e-10 ? r.x : 0;
  } else {
    const r = brent(at, grid[k - 1]!, grid[k + 1]!, 1e-10);
    theta = r.fx <= values[k]! ? r.x : grid[k]!;
  }
  return theta < 1e-6 ? 0 : theta;
}

/** The maximum-likelihood point of a design: θ, β, the deviance there, the modes, and whether every profile step converged. */
interface ProfileMinimum {
  theta: number;
  beta: number[];
  deviance: number;
  b: Float64Array;
  converged: boolean;
}

/**
 * Minimise the deviance over (θ ≥ 0, β): for each θ, β at its optimum (profileBeta),
 * warm-started from the nearest θ evaluated so far; θ by minimiseOverTheta. `start` is
 * the first β tried.
 */
function profileMinimum(model: Model, start: number[]): ProfileMinimum {
  let converged = true;
  const profile = new Map<number, { beta: number[]; deviance: number; b: Float64Array }>();
  let lastBeta = start;
  const at = (theta: number): number => {
    const hit = profile.get(theta);
    if (hit) return hit.deviance;
    // Warm start from the nearest θ evaluated so far.
    let nearest: { beta: number[]; b: Float64Array } | null = null;
    let dist = Infinity;
    for (const [t, v] of profile) {
      if (Math.abs(t - theta) < dist) {
        dist = Math.abs(t - theta);
        nearest = v;
      }
    }
    if (nearest) {
      lastBeta = nearest.beta;
      model.ev.b.set(nearest.b);
    }
    const r = profileBeta(model, theta, lastBeta);
    if (!r.converged) converged = false;
    profile.set(theta, { beta: r.beta, deviance: r.deviance, b: Float64Array.from(model.ev.b) });
    lastBeta = r.beta;
    return r.deviance;
  };
  const theta = minimiseOverTheta(at);
  at(theta);
  const best = profile.get(theta)!;
  return { theta, beta: best.beta, deviance: best.deviance, b: best.b, converged };
}

/**
 * The Laplace maximum by Newton's method on (θ, β) jointly, with the analytic gradient and
 * a Hessian from central differences of it, from a start with θ > 0: a few dozen deviance
 * evaluations where the profile search takes hundreds. The deviance is even in θ, so θ = 0
 * is always stationary; when the iterates head there (θ < 1e-4) the boundary fit (θ = 0, β
 * profiled) is the candidate instead. Null when Newton does not settle (the caller then
 * runs the profile search).
 */
function newtonMinimum(model: Model, theta0: number, beta0: readonly number[]): ProfileMinimum | null {
  const p = beta0.length;
  const n = p + 1;
  const evaluate = (x: number[]): { f: number; g: number[] } => {
    const f = model.deviance(x[0]!, x.slice(1));
    return { f, g: [model.gradientTheta(x[0]!), ...model.gradientBeta(x[0]!)] };
  };
  let x = [theta0, ...beta0];
  let cur = evaluate(x);
  if (!Number.isFinite(cur.f)) return null;
  const boundary = (): ProfileMinimum | null => {
    const r = profileBeta(model, 0, x.slice(1));
    return r.converged ? { theta: 0, beta: r.beta, deviance: r.deviance, b: Float64Array.from(model.ev.b), converged: true } : null;
  };
  for (let iter = 0; iter < 60; iter += 1) {
    const saved = Float64Array.from(model.ev.b);
    const H = Array.from({ length: n }, () => new Array<number>(n).fill(0));
    for (let j = 0; j < n; j += 1) {
      const h = 1e-5 * (1 + Math.abs(x[j]!));
      const up = x.slice();
      const dn = x.slice();
      up[j] += h;
      dn[j] -= h;
      const gu = evaluate(up).g;
      const gd = evaluate(dn).g;
      for (let i = 0; i < n; i += 1) H[i]![j] = (gu[i]! - gd[i]!) / (2 * h);
    }
    model.ev.b.set(saved);
    for (let i = 0; i < n; i += 1) for (let j = 0; j < i; j += 1) H[i]![j] = H[j]![i] = (H[i]![j]! + H[j]![i]!) / 2;
    // Levenberg: add to the diagonal until the step is a descent direction of a positive-definite model.
    let step: number[] | null = null;
    for (let lambda = 0; lambda < 1e8; lambda = lambda === 0 ? 1e-6 * (1 + Math.abs(H[0]![0]!)) : lambda * 10) {
      const Hl = H.map((row, i) => row.map((v, j) => (i === j ? v + lambda : v)));
      if (!invertPd(Hl)) continue;
      step = solve(Hl, cur.g);
      if (step) break;
    }
    if (!step) return null;
    const decrement = step.reduce((a, v, j) => a + v * cur.g[j]!, 0);
    if (decrement < 1e-12 * (1 + Math.abs(cur.f)) && step.every((v, j) => Math.abs(v) < 1e-8 * (1 + Math.abs(x[j]!)))) break;
    let t = 1;
    // θ stays positive: the boundary is handled apart.
    if (x[0]! - step[0]! < 0) t = Math.min(t, (0.5 * x[0]!) / step[0]!);
    let accepted = false;
    for (let k = 0; k < 40; k += 1) {
      const cand = x.map((v, j) => v - t * step[j]!);
      const next = evaluate(cand);
      if (Number.isFinite(next.f) && next.f <= cur.f + 1e-12 * Math.abs(cur.f)) {
        const tiny = cur.f - next.f < 1e-13 * (1 + Math.abs(cur.f)) && step.every((v, j) => Math.abs(t * v) < 1e-9 * (1 + Math.abs(x[j]!)));
        x = cand;
        cur = next;
        accepted = true;
        if (tiny) iter = 60;
        break;
      }
      model.ev.b.set(saved);
      t /= 2;
    }
    if (!accepted) break;
    if (x[0]! < 1e-4) {
      const b = boundary();
      if (b && b.deviance <= cur.f) return b;
    }
  }
  // A stationary point inside: keep it unless the boundary is lower (the deviance can have both).
  const interior: ProfileMinimum = { theta: x[0]!, beta: x.slice(1), deviance: cur.f, b: Float64Array.from(model.ev.b), converged: true };
  const gnorm = Math.max(...cur.g.map(Math.abs));
  if (!(gnorm < 1e-4 * (1 + Math.abs(cur.f)))) return null;
  const b = boundary();
  if (b && b.deviance < interior.deviance) return b;
  model.ev.b.set(interior.b);
  model.deviance(interior.theta, interior.beta);
  return interior;
}

/** Fit one model: columns are the fixed-effect columns (intercept included). */
function fitModel(errors: ArrayLike<number>, words: ArrayLike<number>, speakerIndex: Int32Array, q: number, columns: readonly ArrayLike<number>[], nAGQ: number): MixedPoissonFit {
  const d = buildDesign(errors, words, speakerIndex, q, columns);
  const model = new Model(d, nAGQ);
  // A sensible start for β: intercept at the pooled log rate.
  const start = new Array<number>(d.p).fill(0);
  {
    let Ysum = 0;
    let Esum = 0;
    for (let c = 0; c < d.cells; c += 1) {
      Ysum += d.Y[c]!;
      Esum += d.E[c]!;
    }
    const interceptCol = columns.findIndex((col) => Array.prototype.every.call(col, (v: number) => v === 1));
    if (interceptCol >= 0) start[interceptCol] = Math.log(Math.max(Ysum, 0.5) / Esum);
  }
  const best = profileMinimum(model, start);
  const converged = best.converged;
  let theta = best.theta;
  let beta = best.beta;
  model.ev.b.set(best.b);
  let dev = model.deviance(theta, beta);
  // Standard errors as vcov.merMod(use.hessian = TRUE): lme4's deriv12 over (θ, β). For the
  // Laplace fit it is taken of lme4's own deviance function (glmm-pirls.ts says why), and
  // one Newton step on that function moves the estimates to its optimum, which is where
  // glmer's Nelder–Mead ends (a few tenths of a per cent of an SE from the exact Laplace
  // optimum). AGQ is insensitive to where PIRLS stops, so its exact deviance serves.
  let H: number[][];
  if (nAGQ === 1) {
    const f = lme4DevianceFunction(d, minimiseOverTheta);
    const fn = (x: number[]): number => f(x[0]!, x.slice(1));
    let x = [theta, ...beta];
    let fx = fn(x);
    let dr = deriv12(fn, x, fx);
    const step = solve(dr.hessian, dr.gradient);
    if (step) {
      const cand = x.map((v, j) => v - step[j]!);
      // On the boundary θ stays 0, as in lme4's bounded optimisation.
      if (theta === 0 || cand[0]! < 0) cand[0] = 0;
      const fc = fn(cand);
      if (fc < fx) {
        x = cand;
        fx = fc;
        dr = deriv12(fn, x, fx);
      }
    }
    theta = x[0]!;
    beta = x.slice(1);
    dev = fx;
    H = dr.hessian;
  } else {
    H = deriv12((x) => {
      model.ev.b.set(best.b);
      return model.deviance(x[0]!, x.slice(1));
    }, [theta, ...beta], dev).hessian;
  }
  model.ev.b.set(best.b);
  model.deviance(theta, beta);
  let vcov: number[][] | null = null;
  let vcovMethod: MixedPoissonFit['vcovMethod'] = 'hessian';
  const Hinv = invertPd(H);
  if (Hinv) {
    vcov = Hinv.slice(1).map((row) => row.slice(1).map((v) => 2 * v));
    if (!invertPd(vcov)) vcov = null;
  }
  if (!vcov) {
    vcovMethod = 'conditional';
    vcov = invertPd(model.conditionalInformation(theta)) ?? beta.map(() => beta.map(() => NaN));
  }
  return {
    coefficients: beta,
    standardErrors: vcov.map((row, i) => Math.sqrt(row[i]!)),
    vcov,
    vcovMethod,
    theta,
    speakerVariance: theta * theta,
    deviance: dev,
    logLikelihood: -dev / 2,
    singular: theta === 0,
    converged,
    nAGQ,
  };
}

/**
 * Count data already summed into cells for likelihood-ratio statistics: per cell a count,
 * an exposure (reference words, > 0) and a speaker index in 0..q−1, cells sorted by
 * speaker. A speaker's utterances that share their fixed effects can be summed into one
 * cell without changing the likelihood's dependence on (θ, β): within a cell
 * mu_i = words_i · exp(η), so the rows' likelihood is the cell total's times a
 * multinomial term no parameter touches.
 */
export interface MixedPoissonCells {
  counts: ArrayLike<number>;
  exposure: ArrayLike<number>;
  speaker: ArrayLike<number>;
  q: number;
}

/** A maximum-likelihood fit without standard errors: what a likelihood-ratio statistic needs. */
export interface MixedPoissonMinimum {
  /** −2 log-likelihood of the cell counts (Laplace, or AGQ with nAGQ > 1), constants included. */
  deviance: number;
  theta: number;
  beta: number[];
  converged: boolean;
}

/**
 * The maximum of the (Laplace or AGQ) likelihood over (θ ≥ 0, β) for cell data, by the same
 * profile search as mixedPoissonFit but without its standard errors (so without lme4's
 * PIRLS path, which only moves the Hessian): cheap enough to repeat for every bootstrap
 * replicate. `start` is the first β tried (default: 0 except each column that is constant 1,
 * or for indicator columns each column's pooled log rate).
 */
export function mixedPoissonCellMinimum(cells: MixedPoissonCells, columns: readonly ArrayLike<number>[], options: MixedPoissonOptions & { start?: readonly number[]; theta?: number } = {}): MixedPoissonMinimum {
  const n = cells.counts.length;
  const p = columns.length;
  const q = cells.q;
  const X = new Float64Array(n * p);
  const Y = new Float64Array(n);
  const E = new Float64Array(n);
  const start = new Int32Array(q + 1);
  let constant = 0;
  for (let c = 0; c < n; c += 1) {
    const s = cells.speaker[c]!;
    if (c > 0 && s < cells.speaker[c - 1]!) throw new RangeError('cells must be sorted by speaker');
    const y = cells.counts[c]!;
    const e = cells.exposure[c]!;
    if (!(e > 0)) throw new RangeError(`cell ${c + 1} has no exposure`);
    Y[c] = y;
    E[c] = e;
    constant += (y > 0 ? y * Math.log(e) : 0) - logGamma(y + 1);
    for (let a = 0; a < p; a += 1) X[c * p + a] = columns[a]![c]!;
    start[s + 1] += 1;
  }
  for (let s = 0; s < q; s += 1) start[s + 1] += start[s]!;
  // Only the Laplace/AGQ path is used here; the PIRLS fields serve lme4DevianceFunction, never called.
  const d: Design = { p, q, cells: n, X, Y, E, start, constant, residualConstant: 0, startWeight: new Float64Array(n), startNumerator: new Float64Array(n) };
  let beta0 = options.start ? [...options.start] : null;
  if (!beta0) {
    beta0 = new Array<number>(p).fill(0);
    for (let a = 0; a < p; a += 1) {
      let ya = 0;
      let ea = 0;
      let ones = true;
      let indicator = true;
      for (let c = 0; c < n; c += 1) {
        const x = X[c * p + a]!;
        if (x !== 1) ones = false;
        if (x !== 0 && x !== 1) indicator = false;
        if (x === 1) {
          ya += Y[c]!;
          ea += E[c]!;
        }
      }
      if ((ones || indicator) && ea > 0) beta0[a] = Math.log(Math.max(ya, 0.5) / ea);
    }
    // An intercept plus indicators: the indicators start at 0 against the intercept's pooled rate.
    const intercept = beta0.findIndex((_, a) => {
      for (let c = 0; c < n; c += 1) if (X[c * p + a] !== 1) return false;
      return true;
    });
    if (intercept >= 0) for (let a = 0; a < p; a += 1) if (a !== intercept) beta0[a] = 0;
  }
  const model = new Model(d, Math.max(1, Math.floor(options.nAGQ ?? 1)));
  // Newton needs the analytic gradient, which is the Laplace one; AGQ takes the profile search.
  const best = (model.nAGQ === 1 ? newtonMinimum(model, options.theta ?? 0.5, beta0) : null) ?? profileMinimum(model, beta0);
  return { deviance: best.deviance, theta: best.theta, beta: best.beta, converged: best.converged };
}

/** lme4's deriv12 (central differences, step 1e-4, no bounds): gradient and Hessian of f at x. */
function deriv12(f: (x: number[]) => number, x: number[], fx: number, delta = 1e-4): { gradient: number[]; hessian: number[][] } {
  const n = x.length;
  const H = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  const g = new Array<number>(n).fill(0);
  const at = (mods: [number, number][]): number => {
    const y = x.slice();
    for (const [i, dv] of mods) y[i] += dv;
    return f(y);
  };
  for (let j = 0; j < n; j += 1) {
    const fadd = at([[j, delta]]);
    const fsub = at([[j, -delta]]);
    H[j]![j] = (fadd - 2 * fx + fsub) / (delta * delta);
    g[j] = (fadd - fsub) / (2 * delta);
    for (let i = 0; i < j; i += 1) {
      const v = (at([[i, delta], [j, delta]]) - at([[i, delta], [j, -delta]]) - at([[i, -delta], [j, delta]]) + at([[i, -delta], [j, -delta]])) / (4 * delta * delta);
      H[i]![j] = v;
      H[j]![i] = v;
    }
  }
  return { gradient: g, hessian: H };
}

export interface MixedPoissonComparison {
  group: string;
  /** b_g against the reference group (log rate ratio); NaN when a group has no errors (not estimable). */
  coefficient: number;
  standardError: number;
  z: number;
  /** Two-sided Wald p, 2 Φ(−|z|) (lme4's summary). */
  pValue: number;
  rateRatio: number;
  /** exp(b ± 1.96 SE). */
  ci95: [number, number];
}

export interface MixedPoissonAnalysis {
  referenceGroup: string;
  comparisons: MixedPoissonComparison[];
  speakerVariance: number;
  logLikelihood: number;
  /** Likelihood-ratio test of the group factor: deviance without it minus with it, k − 1 df. */
  overall: { chi2: number; df: number; pValue: number };
  singular: boolean;
  converged: boolean;
  vcovMethod: MixedPoissonFit['vcovMethod'];
  nAGQ: number;
  speakers: number;
  /** Rows left out because they have zero reference words. */
  excludedRows: number;
  /** Groups whose total errors are zero: their rate ratio is at the boundary and not estimable. */
  notEstimable: string[];
}

const Z975 = 1.959963984540054;

/**
 * errors ~ group + offset(log words) + (1 | speaker), groups as treatment contrasts against
 * the reference group, plus the model without the group factor for the overall LR test.
 */
export function mixedPoissonGroupComparison(
  errors: ArrayLike<number>,
  words: ArrayLike<number>,
  groups: readonly string[],
  speakers: readonly string[],
  referenceGroup: string,
  options: MixedPoissonOptions = {},
): MixedPoissonAnalysis {
  const nAGQ = Math.max(1, Math.floor(options.nAGQ ?? 1));
  const keep: number[] = [];
  for (let i = 0; i < errors.length; i += 1) if (words[i]! > 0) keep.push(i);
  const y = Float64Array.from(keep, (i) => errors[i]!);
  const w = Float64Array.from(keep, (i) => words[i]!);
  const g = keep.map((i) => groups[i]!);
  if (!g.includes(referenceGroup)) throw new RangeError(`reference group "${referenceGroup}" has no rows with reference words`);
  const { idx: sIdx, count: q } = speakerIndex(keep.map((i) => speakers[i]!));
  const totals = new Map<string, number>();
  g.forEach((lv, i) => totals.set(lv, (totals.get(lv) ?? 0) + y[i]!));
  const levels = [...new Set(g)].filter((l) => l !== referenceGroup).sort();
  const notEstimable = [referenceGroup, ...levels].filter((lv) => (totals.get(lv) ?? 0) === 0);
  // A group without errors has its MLE at −∞; fit the others and report it as not estimable.
  const fitLevels = notEstimable.includes(referenceGroup) ? [] : levels.filter((lv) => !notEstimable.includes(lv));
  const rows = notEstimable.includes(referenceGroup) ? [] : g.map((lv, i) => (notEstimable.includes(lv) ? -1 : i)).filter((i) => i >= 0);
  const nanComparison = (lv: string): MixedPoissonComparison => ({ group: lv, coefficient: NaN, standardError: NaN, z: NaN, pValue: NaN, rateRatio: NaN, ci95: [NaN, NaN] });
  if (rows.length === 0 || y.reduce((s, v) => s + v, 0) === 0) {
    return {
      referenceGroup,
      comparisons: levels.map(nanComparison),
      speakerVariance: NaN,
      logLikelihood: NaN,
      overall: { chi2: NaN, df: levels.length, pValue: NaN },
      singular: false,
      converged: false,
      vcovMethod: 'hessian',
      nAGQ,
      speakers: q,
      excludedRows: errors.length - keep.length,
      notEstimable,
    };
  }
  const sub = <T extends ArrayLike<number>>(a: T): Float64Array => Float64Array.from(rows, (i) => a[i]!);
  const ys = sub(y);
  const ws = sub(w);
  // Speakers re-indexed over the rows kept, so every index has at least one cell.
  const remap = new Map<number, number>();
  const ss = Int32Array.from(rows, (i) => {
    let k = remap.get(sIdx[i]!);
    if (k === undefined) {
      k = remap.size;
      remap.set(sIdx[i]!, k);
    }
    return k;
  });
  const ones = new Float64Array(rows.length).fill(1);
  const dummies = fitLevels.map((lv) => Float64Array.from(rows, (i) => (g[i] === lv ? 1 : 0)));
  const full = fitModel(ys, ws, ss, remap.size, [ones, ...dummies], nAGQ);
  const reduced = fitLevels.length > 0 ? fitModel(ys, ws, ss, remap.size, [ones], nAGQ) : full;
  const chi2 = Math.max(0, reduced.deviance - full.deviance);
  const df = fitLevels.length;
  const comparisons = levels.map((lv) => {
    const k = fitLevels.indexOf(lv);
    if (k < 0) return nanComparison(lv);
    const b = full.coefficients[k + 1]!;
    const se = full.standardErrors[k + 1]!;
    const z = b / se;
    return { group: lv, coefficient: b, standardError: se, z, pValue: 2 * normalSf(Math.abs(z)), rateRatio: Math.exp(b), ci95: [Math.exp(b - Z975 * se), Math.exp(b + Z975 * se)] as [number, number] };
  });
  return {
    referenceGroup,
    comparisons,
    speakerVariance: full.speakerVariance,
    logLikelihood: full.logLikelihood,
    overall: { chi2, df, pValue: df > 0 ? chi2Sf(chi2, df) : NaN },
    singular: full.singular,
    converged: full.converged && reduced.converged,
    vcovMethod: full.vcovMethod,
    nAGQ,
    speakers: q,
    excludedRows: errors.length - keep.length,
    notEstimable,
  };
}

/** Each speaker's number, in order of first appearance. */
function speakerIndex(speakers: readonly string[]): { idx: Int32Array; count: number } {
  const ids = new Map<string, number>();
  const idx = Int32Array.from(speakers, (s) => {
    let k = ids.get(s);
    if (k === undefined) {
      k = ids.size;
      ids.set(s, k);
    }
    return k;
  });
  return { idx, count: ids.size };
}

/** The fit itself, for callers with their own design (tests check the gradient and AGQ). */
export function mixedPoissonFit(
  errors: ArrayLike<number>,
  words: ArrayLike<number>,
  speakers: readonly string[],
  columns: readonly ArrayLike<number>[],
  options: MixedPoissonOptions = {},
): MixedPoissonFit {
  const { idx, count } = speakerIndex(speakers);
  for (let i = 0; i < words.length; i += 1) if (!(words[i]! > 0)) throw new RangeError(`row ${i + 1} has no reference words; leave such rows out`);
  return fitModel(errors, words, idx, count, columns, Math.max(1, Math.floor(options.nAGQ ?? 1)));
}

/** Laplace deviance and its gradient at a point, for the gradient check in the tests. */
export function mixedPoissonDeviance(
  errors: ArrayLike<number>,
  words: ArrayLike<number>,
  speakers: readonly string[],
  columns: readonly ArrayLike<number>[],
  theta: number,
  beta: readonly number[],
): { deviance: number; gradient: number[] } {
  const { idx, count } = speakerIndex(speakers);
  const model = new Model(buildDesign(errors, words, idx, count, columns), 1);
  const dev = model.deviance(theta, beta);
  return { deviance: dev, gradient: [model.gradientTheta(theta), ...model.gradientBeta(theta)] };
}
