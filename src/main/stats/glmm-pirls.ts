/**
 * lme4's penalised iteratively reweighted least squares (PIRLS) as glmer actually runs it,
 * for the one place where its numerical path changes a reported number: the standard
 * errors. lme4 takes them from a finite-difference Hessian (step 1e-4) of its deviance
 * function, and that function stops PIRLS once the penalised deviance changes by less
 * than 1e-7 relative (tolPwrss) and evaluates log|L|² with the weights of the previous
 * iterate. The resulting deviance differs from the exactly converged Laplace deviance by
 * about 1e-4, smoothly in the parameters; divided by the squared step that moves Hessian
 * entries by a few per cent, and lme4's standard errors with them (up to 10% on small,
 * unbalanced data). Reproducing the iteration reproduces lme4's standard errors.
 *
 * The path (lme4 1.1-31: R/modular.R mkGlmerDevfun/updateGlmerDevfun/mkdevfun,
 * src/external.cpp pwrssUpdate/internal_glmerWrkIter, src/predModule.cpp solve/solveU):
 * 1. From the family's start (Poisson: mu = y + 0.1), one joint PIRLS over (u, β) at θ = 1.
 * 2. Stage 1 (nAGQ = 0): every evaluation restarts PIRLS over (u, β) from step 1's linear
 *    predictor; bobyqa minimises over θ. (Here: the same function minimised precisely.)
 * 3. Stage 2 (nAGQ = 1): every evaluation restarts from stage 1's final linear predictor
 *    lp0 with β moved into the offset, and iterates over u only: the first working response
 *    is lp0 − Xβ + (y − mu)/mu with mu at lp0, later ones are the usual Newton steps.
 * Each PIRLS step solves the penalised least squares problem with weights mu, halves the
 * step while the penalised deviance grows, and stops when that deviance changes by less
 * than tol relative. The Laplace value is log|L|² (from the last decomposition, i.e. the
 * previous iterate's weights) + ‖u‖² − 2 log p(y | u).
 */

export interface PirlsData {
  p: number;
  q: number;
  cells: number;
  X: Float64Array;
  Y: Float64Array;
  E: Float64Array;
  start: Int32Array;
  /** Σ_i (y_i log w_i − log y_i!). */
  constant: number;
  /** Σ_i y_i log y_i − Σ_i y_i log w_i (for the deviance residuals). */
  residualConstant: number;
  /** Per cell, the family's starting point summed over the cell's rows: Σ (y+0.1) and Σ (y+0.1)·(working response). */
  startWeight: Float64Array;
  startNumerator: Float64Array;
}

const TOL_PWRSS = 1e-7;
const MAXIT = 100;
const MAX_HALVINGS = 20;

/** State after one PIRLS run: the cell linear predictors (without log words) and the Laplace value. */
interface PirlsResult {
  laplace: number;
  eta: Float64Array;
}

function speakerSums(d: PirlsData, s: number, values: Float64Array): number {
  let v = 0;
  for (let c = d.start[s]!; c < d.start[s + 1]!; c += 1) v += values[c]!;
  return v;
}

/** Penalised deviance pdev = Σ deviance residuals + ‖u‖², and the −2 log-likelihood part of the Laplace value. */
function deviances(d: PirlsData, eta: Float64Array, u: Float64Array): { pdev: number; aic: number; mu: Float64Array } {
  const mu = new Float64Array(d.cells);
  let yEta = 0;
  let muSum = 0;
  let ySum = 0;
  for (let c = 0; c < d.cells; c += 1) {
    mu[c] = d.E[c]! * Math.exp(eta[c]!);
    yEta += d.Y[c]! * eta[c]!;
    muSum += mu[c]!;
    ySum += d.Y[c]!;
  }
  let sqrL = 0;
  for (let s = 0; s < d.q; s += 1) sqrL += u[s]! * u[s]!;
  const resDev = 2 * (d.residualConstant - yEta - ySum + muSum);
  const aic = -2 * (yEta - muSum) - 2 * d.constant;
  return { pdev: resDev + sqrL, aic, mu };
}

/**
 * One PIRLS run. `weights` and `numerator` describe the first working response (per cell
 * Σ w and Σ w·z); `joint` solves for β too (stage 1), otherwise β is fixed (stage 2).
 */
function pirls(d: PirlsData, theta: number, beta: readonly number[] | null, firstWeights: Float64Array, firstNumerator: Float64Array): PirlsResult {
  const { p, q, cells } = d;
  const joint = beta === null;
  const fixedBeta = beta ?? [];
  let W: Float64Array = firstWeights;
  let B: Float64Array = firstNumerator;
  let oldpdev = Number.MAX_VALUE;
  let u: Float64Array = new Float64Array(q);
  let b: Float64Array = new Float64Array(p);
  let eta: Float64Array = new Float64Array(cells);
  let ldL2 = 0;
  let pdev = 0;
  let aic = 0;
  const etaOf = (uu: Float64Array, bb: Float64Array): Float64Array => {
    const out = new Float64Array(cells);
    for (let s = 0; s < q; s += 1) {
      for (let c = d.start[s]!; c < d.start[s + 1]!; c += 1) {
        let e = theta * uu[s]!;
        for (let a = 0; a < p; a += 1) e += d.X[c * p + a]! * (joint ? bb[a]! : fixedBeta[a]!);
        out[c] = e;
      }
    }
    return out;
  };
  for (let iter = 0; iter < MAXIT; iter += 1) {
    const oldU = u;
    const oldB = b;
    // The decomposition: L_s² = 1 + θ² Σ_c W_c.
    const L2 = new Float64Array(q);
    ldL2 = 0;
    for (let s = 0; s < q; s += 1) {
      L2[s] = 1 + theta * theta * speakerSums(d, s, W);
      ldL2 += Math.log(L2[s]!);
    }
    const newU = new Float64Array(q);
    const newB = new Float64Array(p);
    if (joint) {
      // Schur complement of the penalised normal equations for β, then u given β.
      const A = Array.from({ length: p }, () => new Array<number>(p).fill(0));
      const r = new Array<number>(p).fill(0);
      const m = new Float64Array(p);
      for (let s = 0; s < q; s += 1) {
        m.fill(0);
        let bs = 0;
        for (let c = d.start[s]!; c < d.start[s + 1]!; c += 1) {
          bs += B[c]!;
          for (let i = 0; i < p; i += 1) {
            const xi = d.X[c * p + i]!;
            m[i] += W[c]! * xi;
            r[i] += B[c]! * xi;
            for (let j = 0; j < p; j += 1) A[i]![j] += W[c]! * xi * d.X[c * p + j]!;
          }
        }
        const f = (theta * theta) / L2[s]!;
        for (let i = 0; i < p; i += 1) {
          r[i] -= f * m[i]! * bs;
          for (let j = 0; j < p; j += 1) A[i]![j] -= f * m[i]! * m[j]!;
        }
      }
      const sol = solveSmall(A, r);
      newB.set(sol);
      for (let s = 0; s < q; s += 1) {
        let bs = 0;
        let mb = 0;
        for (let c = d.start[s]!; c < d.start[s + 1]!; c += 1) {
          bs += B[c]!;
          let xb = 0;
          for (let a = 0; a < p; a += 1) xb += d.X[c * p + a]! * sol[a]!;
          mb += W[c]! * xb;
        }
        newU[s] = (theta * (bs - mb)) / L2[s]!;
      }
    } else {
      for (let s = 0; s < q; s += 1) newU[s] = (theta * speakerSums(d, s, B)) / L2[s]!;
    }
    u = newU;
    b = newB;
    eta = etaOf(u, b);
    let dv = deviances(d, eta, u);
    pdev = dv.pdev;
    aic = dv.aic;
    if (Math.abs((oldpdev - pdev) / pdev) < TOL_PWRSS) break;
    if (Number.isNaN(pdev) || pdev > oldpdev) {
      for (let k = 0; k < MAX_HALVINGS && (Number.isNaN(pdev) || pdev > oldpdev); k += 1) {
        for (let s = 0; s < q; s += 1) u[s] = (oldU[s]! + u[s]!) / 2;
        if (joint) for (let a = 0; a < p; a += 1) b[a] = (oldB[a]! + b[a]!) / 2;
        eta = etaOf(u, b);
        dv = deviances(d, eta, u);
        pdev = dv.pdev;
        aic = dv.aic;
      }
    }
    oldpdev = pdev;
    // The next working response: weights mu, z − offset = η (the offset holds log words and, in stage 2, Xβ).
    const mu = dv.mu;
    const nextB = new Float64Array(cells);
    for (let c = 0; c < cells; c += 1) {
      let g = eta[c]!;
      if (!joint) for (let a = 0; a < p; a += 1) g -= d.X[c * p + a]! * fixedBeta[a]!;
      nextB[c] = mu[c]! * g + d.Y[c]! - mu[c]!;
    }
    W = mu;
    B = nextB;
  }
  // lme4 throws after MAXIT iterations without convergence; here the last value stands (it only feeds the Hessian).
  let sqrL = 0;
  for (let s = 0; s < q; s += 1) sqrL += u[s]! * u[s]!;
  return { laplace: ldL2 + sqrL + aic, eta };
}

function solveSmall(A: number[][], r: number[]): number[] {
  const n = r.length;
  const M = A.map((row, i) => [...row, r[i]!]);
  for (let c = 0; c < n; c += 1) {
    let piv = c;
    for (let k = c + 1; k < n; k += 1) if (Math.abs(M[k]![c]!) > Math.abs(M[piv]![c]!)) piv = k;
    [M[c], M[piv]] = [M[piv]!, M[c]!];
    for (let k = c + 1; k < n; k += 1) {
      const f = M[k]![c]! / M[c]![c]!;
      for (let j = c; j <= n; j += 1) M[k]![j] -= f * M[c]![j]!;
    }
  }
  const x = new Array<number>(n).fill(0);
  for (let k = n - 1; k >= 0; k -= 1) {
    let s = M[k]![n]!;
    for (let j = k + 1; j < n; j += 1) s -= M[k]![j]! * x[j]!;
    x[k] = s / M[k]![k]!;
  }
  return x;
}

/** First working response from a cell-constant linear predictor `lp` while the offset holds log words plus Xβ (β null: log words only). */
function restart(d: PirlsData, lp: Float64Array, beta: readonly number[] | null): { W: Float64Array; B: Float64Array } {
  const W = new Float64Array(d.cells);
  const B = new Float64Array(d.cells);
  for (let c = 0; c < d.cells; c += 1) {
    const mu = d.E[c]! * Math.exp(lp[c]!);
    let g = lp[c]!;
    if (beta) for (let a = 0; a < d.p; a += 1) g -= d.X[c * d.p + a]! * beta[a]!;
    W[c] = mu;
    B[c] = mu * g + d.Y[c]! - mu;
  }
  return { W, B };
}

/**
 * lme4's stage-2 deviance function for this data: stage 1 is rerun to find its end state,
 * then `deviance(theta, beta)` restarts PIRLS from it on every call, exactly as glmer's
 * devfun does. `minimiseStage1` finds θ for stage 1 (bobyqa in lme4).
 */
export function lme4DevianceFunction(d: PirlsData, minimiseStage1: (f: (theta: number) => number) => number): (theta: number, beta: readonly number[]) => number {
  const init = pirls(d, 1, null, d.startWeight, d.startNumerator);
  const stage1 = (theta: number): PirlsResult => {
    const { W, B } = restart(d, init.eta, null);
    return pirls(d, theta, null, W, B);
  };
  const theta1 = minimiseStage1((t) => stage1(t).laplace);
  const lp0 = stage1(theta1).eta;
  return (theta, beta) => {
    const { W, B } = restart(d, lp0, beta);
    return pirls(d, theta, beta, W, B).laplace;
  };
}
