"""Golden values for the verdicts that hold (issue 21; METHODS.md § Verdicts that hold),
computed independently with numpy/scipy/itertools.

Run from the repository root:
    python3 test/golden/verdicts_golden.py
It writes test/golden/verdicts_golden.json and the fixtures in test/fixtures/stats/ it
names (speat_uneq.json, speat_large.json, speat_planted_negative.json, fdi_verifier.csv,
fdi_chance.csv, ser_r2.json). Each JSON entry is {"command": <the Python expression
evaluated>, "value": <result>}, so the exact computation sits beside every golden value.
"""
import csv
import itertools
import json
import os

import numpy as np
import scipy
from scipy import stats
from golden_record import recorder

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIX = os.path.join(ROOT, "test", "fixtures", "stats")
os.makedirs(FIX, exist_ok=True)
out = {"_versions": {"numpy": np.__version__, "scipy": scipy.__version__}}


g = recorder(out, globals())


# ---- SpEAT: two-sided permutation p ------------------------------------------------
def speat_np(X, Y, A, B):
    def unit(M):
        M = np.asarray(M, float)
        return M / np.linalg.norm(M, axis=1, keepdims=True)
    s = lambda W: (unit(W) @ unit(A).T).mean(1) - (unit(W) @ unit(B).T).mean(1)
    sx, sy = s(X), s(Y)
    d = (sx.mean() - sy.mean()) / np.concatenate([sx, sy]).std(ddof=1)
    return sx, sy, d


def exact_two_sided(sx, sy):
    """Every split by itertools: share with |mean Xi - mean Yi| >= |observed| (tolerance as the one-sided test)."""
    allv = np.concatenate([sx, sy]); n = len(allv); k = len(sx)
    tol = 1e-12 * np.abs(allv).sum()
    obs = abs(sx.mean() - sy.mean())
    cnt = tot = 0
    for c in itertools.combinations(range(n), k):
        mask = np.zeros(n, bool); mask[list(c)] = True
        tot += 1
        # The tolerance is on sums; on means it is tol * (1/k + 1/(n-k)).
        if abs(allv[mask].mean() - allv[~mask].mean()) >= obs - tol * (1 / k + 1 / (n - k)):
            cnt += 1
    return cnt / tot, tot


def sampled_two_sided(sx, sy, N, seed):
    """Monte Carlo reference: N random splits (numpy's generator), p = (1 + hits) / (1 + N)."""
    r = np.random.default_rng(seed)
    allv = np.concatenate([sx, sy]); n = len(allv); k = len(sx)
    obs = abs(sx.mean() - sy.mean())
    hits = 0
    for start in range(0, N, 20000):
        m = min(20000, N - start)
        perm = np.argsort(r.random((m, n)), axis=1)
        a = allv[perm[:, :k]].mean(1); b = allv[perm[:, k:]].mean(1)
        hits += int((np.abs(a - b) >= obs - 1e-12).sum())
    return (1 + hits) / (1 + N)


rs = np.random.default_rng(2112)
for name in ["speat_small", "speat_mid"]:
    doc = json.load(open(os.path.join(FIX, f"{name}.json")))
    env = {"speat_np": speat_np, "exact_two_sided": exact_two_sided, "doc": doc}
    g(f"{name}.exact_two_sided", "list(exact_two_sided(*speat_np(doc['X'], doc['Y'], doc['A'], doc['B'])[:2]))", env)

# Unequal sizes (5 against 7): the two-sided rule on means, not on sums.
rs = np.random.default_rng(2113)
dim = 10
w = rs.normal(0, 1, dim)
doc = {
    "X": np.round(rs.normal(0, 1, (5, dim)) - 0.9 * w, 5).tolist(),
    "Y": np.round(rs.normal(0, 1, (7, dim)), 5).tolist(),
    "A": np.round(rs.normal(0, 1, (6, dim)) + 0.6 * w, 5).tolist(),
    "B": np.round(rs.normal(0, 1, (6, dim)) - 0.6 * w, 5).tolist(),
}
json.dump(doc, open(os.path.join(FIX, "speat_uneq.json"), "w"))
env = {"speat_np": speat_np, "exact_two_sided": exact_two_sided, "doc": doc}
g("speat_uneq.d", "float(speat_np(doc['X'], doc['Y'], doc['A'], doc['B'])[2])", env)
g("speat_uneq.exact_two_sided", "list(exact_two_sided(*speat_np(doc['X'], doc['Y'], doc['A'], doc['B'])[:2]))", env)

# Large (30 per group, C(60, 30) splits): Monte Carlo reference with 400,000 splits.
rs = np.random.default_rng(2112)
dim = 16
u = rs.normal(0, 1, dim)
doc = {
    "X": np.round(rs.normal(0, 1, (30, dim)) + 0.12 * u, 5).tolist(),
    "Y": np.round(rs.normal(0, 1, (30, dim)), 5).tolist(),
    "A": np.round(rs.normal(0, 1, (12, dim)) + 0.5 * u, 5).tolist(),
    "B": np.round(rs.normal(0, 1, (12, dim)) - 0.5 * u, 5).tolist(),
}
json.dump(doc, open(os.path.join(FIX, "speat_large.json"), "w"))
env = {"speat_np": speat_np, "sampled_two_sided": sampled_two_sided, "doc": doc}
g("speat_large.d", "float(speat_np(doc['X'], doc['Y'], doc['A'], doc['B'])[2])", env)
g("speat_large.sampled_two_sided", "sampled_two_sided(*speat_np(doc['X'], doc['Y'], doc['A'], doc['B'])[:2], 400000, 7)", env)
assert 0.02 < out["speat_large.sampled_two_sided"]["value"] < 0.6, "choose data whose p is informative"

# Planted: Y's recordings closer to pleasant speech, d < -0.8 with 24 per group.
rs = np.random.default_rng(2114)
doc = {
    "X": np.round(rs.normal(0, 1, (24, dim)) - 0.35 * u, 5).tolist(),
    "Y": np.round(rs.normal(0, 1, (24, dim)) + 0.35 * u, 5).tolist(),
    "A": np.round(rs.normal(0, 1, (12, dim)) + 0.8 * u, 5).tolist(),
    "B": np.round(rs.normal(0, 1, (12, dim)) - 0.8 * u, 5).tolist(),
}
json.dump(doc, open(os.path.join(FIX, "speat_planted_negative.json"), "w"))
env = {"speat_np": speat_np, "doc": doc}
g("speat_planted_negative.d", "float(speat_np(doc['X'], doc['Y'], doc['A'], doc['B'])[2])", env)
assert out["speat_planted_negative.d"]["value"] < -0.8


# ---- FDI: verifier quality and the permutation null --------------------------------
def auc_mw(scores, labels):
    scores = np.asarray(scores); labels = np.asarray(labels)
    pos, neg = scores[labels == 1], scores[labels == 0]
    return float(stats.mannwhitneyu(pos, neg).statistic / (len(pos) * len(neg)))


def delong_ci(scores, labels):
    """DeLong (1988) by its definition: the pairwise kernel psi(x, y) = 1[x > y] + 1/2 1[x = y]."""
    scores = np.asarray(scores); labels = np.asarray(labels)
    pos, neg = scores[labels == 1], scores[labels == 0]
    psi = (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])
    auc = psi.mean(); v10 = psi.mean(1); v01 = psi.mean(0)
    se = np.sqrt(v10.var(ddof=1) / len(pos) + v01.var(ddof=1) / len(neg))
    z = stats.norm.ppf(0.975)
    return [max(0.0, auc - z * se), min(1.0, auc + z * se)]


def eer(scores, labels):
    """At each distinct score t (accept score >= t): the t where |FNR - FPR| is smallest, first in ascending order; EER = their mean."""
    scores = np.asarray(scores); labels = np.asarray(labels)
    best = None
    for t in np.unique(scores):
        fnr = np.mean(scores[labels == 1] < t); fpr = np.mean(scores[labels == 0] >= t)
        if best is None or abs(fnr - fpr) < best[0]:
            best = (abs(fnr - fpr), (fnr + fpr) / 2, float(t))
    return [best[1], best[2]]


def fdi_np(groups, labels, scores, tau, alpha=0.5):
    """FDI in harm orientation (METHODS.md § FDI), written from the definition."""
    gs = sorted(set(groups)); groups = np.asarray(groups); labels = np.asarray(labels); scores = np.asarray(scores)
    M = []
    for gname in gs:
        m = groups == gname; pos = scores[m & (labels == 1)]; neg = scores[m & (labels == 0)]
        fpr = np.mean(neg >= tau); fnr = np.mean(pos < tau)
        acc = (np.sum(pos >= tau) + np.sum(neg < tau)) / m.sum()
        M.append([fpr, fnr, 1 - acc])
    M = np.array(M).T
    norm = [(r - r.min()) / (r.max() - r.min()) if r.max() > r.min() else np.zeros_like(r) for r in M]
    ranks = [stats.rankdata(r) for r in M]
    terms = [alpha * np.mean(np.abs(norm[i] - norm[j])) + (1 - alpha) * np.mean(np.abs(ranks[i] - ranks[j])) for i, j in [(0, 1), (0, 2), (1, 2)]]
    return float(np.mean(terms))


def fdi_null_p(groups, labels, scores, tau, N, seed):
    """Shuffle group labels among genuine trials and, separately, among impostor trials; p = (1 + #{FDI >= observed}) / (1 + N)."""
    r = np.random.default_rng(seed)
    groups = np.asarray(groups); labels = np.asarray(labels)
    obs = fdi_np(groups, labels, scores, tau)
    hits = 0
    for _ in range(N):
        shuffled = groups.copy()
        for lab in (0, 1):
            idx = np.where(labels == lab)[0]
            shuffled[idx] = r.permutation(groups[idx])
        if fdi_np(shuffled, labels, scores, tau) >= obs - 1e-12:
            hits += 1
    return (1 + hits) / (1 + N)


def write_scores(name, rows):
    with open(os.path.join(FIX, name), "w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n"); w.writerow(["group", "label", "score"]); w.writerows(rows)


# A verifier that works, three groups of 80 trials, group c served a little worse.
rs = np.random.default_rng(2115)
rows = []
for gname, shift in [("a", 0.0), ("b", 0.0), ("c", -0.05)]:
    for _ in range(40):
        rows.append([gname, 1, round(float(rs.normal(0.62 + shift, 0.1)), 6)])
        rows.append([gname, 0, round(float(rs.normal(0.45, 0.1)), 6)])
write_scores("fdi_verifier.csv", rows)
G = [r[0] for r in rows]; L = [r[1] for r in rows]; S = [r[2] for r in rows]
env = {"auc_mw": auc_mw, "delong_ci": delong_ci, "eer": eer, "fdi_np": fdi_np, "fdi_null_p": fdi_null_p, "G": G, "L": L, "S": S}
g("fdi_verifier.auc", "auc_mw(S, L)", env)
g("fdi_verifier.auc_ci", "delong_ci(S, L)", env)
g("fdi_verifier.eer", "eer(S, L)", env)
g("fdi_verifier.fdi(0.55)", "fdi_np(G, L, S, 0.55)", env)
g("fdi_verifier.sweep_range", "np.percentile(S, [1, 99])", env)
g("fdi_verifier.null_p(0.55)", "fdi_null_p(G, L, S, 0.55, 20000, 3)", env)

# A verifier at chance: genuine and impostor scores from one distribution, all above 0.85.
rs = np.random.default_rng(2116)
rows = []
for gname in ["a", "b", "c"]:
    for _ in range(60):
        rows.append([gname, 1, round(float(rs.uniform(0.85, 1.0)), 6)])
        rows.append([gname, 0, round(float(rs.uniform(0.85, 1.0)), 6)])
write_scores("fdi_chance.csv", rows)
G = [r[0] for r in rows]; L = [r[1] for r in rows]; S = [r[2] for r in rows]
env.update({"G": G, "L": L, "S": S})
g("fdi_chance.auc", "auc_mw(S, L)", env)
g("fdi_chance.auc_ci", "delong_ci(S, L)", env)
assert out["fdi_chance.auc_ci"]["value"][0] < 0.5 < out["fdi_chance.auc_ci"]["value"][1]

# ---- SER: bootstrap lower bound of the test R^2 ------------------------------------
rs = np.random.default_rng(2117)
y = rs.normal(0, 1, 40); yhat = 0.7 * y + rs.normal(0, 0.5, 40)
json.dump({"y": y.tolist(), "yhat": yhat.tolist()}, open(os.path.join(FIX, "ser_r2.json"), "w"))


def r2_lower(y, yhat, R, seed):
    """5th percentile of R^2 = 1 - SSE/SST over item resamples (numpy's linear percentile)."""
    r = np.random.default_rng(seed); y = np.asarray(y); yhat = np.asarray(yhat)
    idx = r.integers(0, len(y), (R, len(y)))
    yy = y[idx]; hh = yhat[idx]
    sst = ((yy - yy.mean(1, keepdims=True)) ** 2).sum(1); sse = ((yy - hh) ** 2).sum(1)
    return float(np.percentile(1 - sse / sst, 5))


env = {"r2_lower": r2_lower, "doc": json.load(open(os.path.join(FIX, "ser_r2.json")))}
g("ser_r2.r2", "float(1 - ((np.array(doc['y']) - np.array(doc['yhat'])) ** 2).sum() / ((np.array(doc['y']) - np.mean(doc['y'])) ** 2).sum())", env)
g("ser_r2.lower", "r2_lower(doc['y'], doc['yhat'], 200000, 5)", env)

with open(os.path.join(ROOT, "test", "golden", "verdicts_golden.json"), "w") as fh:
    json.dump(out, fh, indent=1)
    fh.write("\n")
