"""Golden values for the findings' effect CIs and MDEs (issue 34.1), computed independently
with numpy/scipy from the stats fixtures.

Run from the repository root:
    python3 test/golden/effect_ci.py
It writes test/golden/effect_ci.json. Each entry is {"command": <the Python expression
evaluated>, "value": <result>}. Monte Carlo references (numpy's own generator, many more
resamples than the tests draw); the tests compare within a stated tolerance.

- SpEAT d's 95% CI: percentile bootstrap (numpy's default linear quantiles, 2.5 and 97.5)
  of d = (mean s(X) - mean s(Y)) / std(s(X u Y), ddof 1), resampling as METHODS.md § The
  unit of inference says: speakers with all their clips (each kind - only in X, only in Y,
  in both groups - drawn as often as the design has it) when a speaker has several clips,
  else matched pairs (X[i], Y[i]) as the SpEAT bootstrap does for matched stimuli.
- SER MDE: the smallest shift of X's mean that Welch's two-sided t-test (scipy's t quantile,
  Welch-Satterthwaite df) rejects at alpha in 80% of simulated audits; audits drawn with
  replacement from each group's values centred on its mean, residuals scaled by
  sqrt(n/(n-1)); bisection on the shift with the same draws for every shift. Also the
  normal-theory reference: the shift at which the noncentral t (scipy.stats.nct) gives 80%
  power at the observed Welch SE and df.
"""
import json
import os

import numpy as np
import scipy
from scipy import optimize, stats
from golden_record import recorder, assoc

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIX = os.path.join(ROOT, "test", "fixtures", "stats")
out = {"_versions": {"numpy": np.__version__, "scipy": scipy.__version__}}


g = recorder(out, globals())


def load(name):
    return json.load(open(os.path.join(FIX, f"{name}.json")))


def d_of(x, y):
    return (x.mean() - y.mean()) / np.concatenate([x, y]).std(ddof=1)


def speaker_bootstrap_ci(doc, R, seed):
    """Percentile 95% CI of d, speakers drawn with all their clips, each kind as often as the design has it."""
    sx, sy = assoc(doc)
    spk = {}
    for v, s in zip(sx, doc["speakersX"]):
        spk.setdefault(s, ([], []))[0].append(v)
    for v, s in zip(sy, doc["speakersY"]):
        spk.setdefault(s, ([], []))[1].append(v)
    kinds = {"x": [], "y": [], "b": []}
    for x, y in spk.values():
        kinds["b" if x and y else "x" if x else "y"].append((np.array(x), np.array(y)))
    r = np.random.default_rng(seed)
    ds = []
    for _ in range(R):
        X, Y = [], []
        for kind in "xyb":
            for i in r.integers(0, len(kinds[kind]), len(kinds[kind])):
                x, y = kinds[kind][i]
                X.append(x); Y.append(y)
        X = np.concatenate(X); Y = np.concatenate(Y)
        sd = np.concatenate([X, Y]).std(ddof=1)
        if sd > 0:
            ds.append((X.mean() - Y.mean()) / sd)
    return np.percentile(ds, [2.5, 97.5])


def paired_bootstrap_ci(doc, R, seed):
    """Percentile 95% CI of d, n matched pairs (X[i], Y[i]) drawn with replacement."""
    sx, sy = assoc(doc)
    r = np.random.default_rng(seed)
    idx = r.integers(0, len(sx), (R, len(sx)))
    X, Y = sx[idx], sy[idx]
    sd = np.concatenate([X, Y], axis=1).std(axis=1, ddof=1)
    ok = sd > 0
    return np.percentile((X.mean(1) - Y.mean(1))[ok] / sd[ok], [2.5, 97.5])


def welch_mde(x, y, alpha, R, seed):
    """[MDE of the difference, the same as Cohen's d] by simulation (see the module's text)."""
    x = np.asarray(x, float); y = np.asarray(y, float)
    nx, ny = len(x), len(y)
    px, py = x - x.mean(), y - y.mean()
    rx, ry = px * np.sqrt(nx / (nx - 1)), py * np.sqrt(ny / (ny - 1))
    within = np.sqrt(((px ** 2).sum() + (py ** 2).sum()) / (nx + ny - 2))
    r = np.random.default_rng(seed)
    X = rx[r.integers(0, nx, (R, nx))]
    Y = ry[r.integers(0, ny, (R, ny))]
    vx, vy = X.var(axis=1, ddof=1) / nx, Y.var(axis=1, ddof=1) / ny
    se = np.sqrt(vx + vy)
    ok = se > 1e-12 * within
    df = np.where(ok, (vx + vy) ** 2 / np.where(ok, vx ** 2 / (nx - 1) + vy ** 2 / (ny - 1), 1), 1)
    bar = np.where(ok, stats.t.isf(alpha / 2, df) * se, np.inf)
    diff = X.mean(1) - Y.mean(1)
    power = lambda delta: (np.abs(diff + delta) >= bar).mean()
    lo, hi = 0.0, within
    while power(hi) < 0.8:
        hi *= 2
    for _ in range(60):
        mid = (lo + hi) / 2
        if power(mid) >= 0.8:
            hi = mid
        else:
            lo = mid
    return [hi, hi / within]


def welch_mde_normal(x, y, alpha):
    """The shift with 80% power for Welch's test under normality: noncentral t at the observed SE and df."""
    x = np.asarray(x, float); y = np.asarray(y, float)
    vx, vy = x.var(ddof=1) / len(x), y.var(ddof=1) / len(y)
    se = np.sqrt(vx + vy)
    df = (vx + vy) ** 2 / (vx ** 2 / (len(x) - 1) + vy ** 2 / (len(y) - 1))
    tc = stats.t.isf(alpha / 2, df)
    # The lower tail vanishes as the shift grows (scipy returns NaN for it far out).
    pw = lambda delta: stats.nct.sf(tc, df, delta / se) + np.nan_to_num(stats.nct.cdf(-tc, df, delta / se))
    return optimize.brentq(lambda delta: pw(delta) - 0.8, 1e-9, 10 * se)


env = {"doc": load("speat_spk_between"), "speaker_bootstrap_ci": speaker_bootstrap_ci}
g("speat_spk_between.ci_compared", "speaker_bootstrap_ci(doc, 100000, 21)", env)
env = {"doc": load("speat_spk_within"), "speaker_bootstrap_ci": speaker_bootstrap_ci}
g("speat_spk_within.ci_compared", "speaker_bootstrap_ci(doc, 100000, 22)", env)
env = {"doc": load("speat_mid"), "paired_bootstrap_ci": paired_bootstrap_ci}
g("speat_mid.ci_paired", "paired_bootstrap_ci(doc, 200000, 23)", env)

# SER: speaker means of predicted valence (rating points), 6 and 5 speakers, and 30 per group.
rs = np.random.default_rng(3401)
small = {"x": np.round(rs.normal(5.2, 0.6, 6), 4).tolist(), "y": np.round(rs.normal(4.9, 0.9, 5), 4).tolist()}
large = {"x": np.round(rs.normal(0.0, 1.0, 30), 4).tolist(), "y": np.round(rs.normal(0.3, 1.3, 30), 4).tolist()}
out["ser_small.values"] = {"command": "np.round(rs.normal(5.2, 0.6, 6), 4), np.round(rs.normal(4.9, 0.9, 5), 4) with rs = np.random.default_rng(3401)", "value": small}
out["ser_large.values"] = {"command": "np.round(rs.normal(0.0, 1.0, 30), 4), np.round(rs.normal(0.3, 1.3, 30), 4), drawn after ser_small from the same rs", "value": large}
env = {"v": small, "welch_mde": welch_mde}
g("ser_small.mde_alpha_0.0125", "welch_mde(v['x'], v['y'], 0.05 / 4, 200000, 31)", env)
env = {"v": large, "welch_mde": welch_mde, "welch_mde_normal": welch_mde_normal}
g("ser_large.mde_alpha_0.05", "welch_mde(v['x'], v['y'], 0.05, 200000, 32)", env)
g("ser_large.mde_normal_alpha_0.05", "welch_mde_normal(v['x'], v['y'], 0.05)", env)

json.dump(out, open(os.path.join(ROOT, "test", "golden", "effect_ci.json"), "w"), indent=1)
