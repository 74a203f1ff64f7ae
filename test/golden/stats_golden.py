"""Golden values for test/unit/stats, computed independently with numpy/scipy.

Run from the repository root:
    python3 test/golden/stats_golden.py
It writes test/golden/stats_golden.json (and the fixtures in test/fixtures/stats/).
Each JSON entry is {"command": <the Python expression evaluated>, "value": <result>}, so the
exact computation sits beside every golden value.
"""
import itertools
import json
import math
import os

import numpy as np
import scipy
from scipy import special, stats
from golden_record import recorder

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIX = os.path.join(ROOT, "test", "fixtures", "stats")
os.makedirs(FIX, exist_ok=True)
out = {"_versions": {"numpy": np.__version__, "scipy": scipy.__version__}}


g = recorder(out, globals())


# ---- special functions and distribution tails --------------------------------
for x in [0.1, 0.5, 1.0, 2.5, 10.0, 171.3, 1e-5]:
    g(f"gammaln({x})", f"float(special.gammaln({x}))")
for a, x in [(0.5, 0.2), (1.0, 1.0), (3.0, 2.0), (10.0, 15.0), (100.0, 90.0), (0.5, 30.0)]:
    g(f"gammainc({a},{x})", f"float(special.gammainc({a}, {x}))")
    g(f"gammaincc({a},{x})", f"float(special.gammaincc({a}, {x}))")
for a, b, x in [(0.5, 0.5, 0.3), (2.0, 3.0, 0.4), (10.0, 0.5, 0.9), (50.0, 60.0, 0.45), (1.5, 20.0, 0.01)]:
    g(f"betainc({a},{b},{x})", f"float(special.betainc({a}, {b}, {x}))")
for t, df in [(2.1, 5), (-1.3, 12.5), (0.0, 3), (8.0, 30), (40.0, 2)]:
    g(f"t.sf({t},{df})", f"float(stats.t.sf({t}, {df}))")
for f, d1, d2 in [(3.2, 2, 30), (0.5, 5, 10), (12.0, 1, 100)]:
    g(f"f.sf({f},{d1},{d2})", f"float(stats.f.sf({f}, {d1}, {d2}))")
for x, k in [(3.84, 1), (10.0, 4), (0.2, 2), (60.0, 3)]:
    g(f"chi2.sf({x},{k})", f"float(stats.chi2.sf({x}, {k}))")
for z in [1.96, -0.5, 5.0]:
    g(f"norm.sf({z})", f"float(stats.norm.sf({z}))")

# ---- tests ---------------------------------------------------------------------
x1 = [5.1, 4.9, 6.2, 5.8, 6.0, 5.5, 5.3]
y1 = [4.1, 4.5, 5.0, 3.9, 4.4, 4.8]
env = {"x1": np.array(x1), "y1": np.array(y1)}
out["_data_tests"] = {"x1": x1, "y1": y1}
g("cohen_d", "float((x1.mean()-y1.mean())/np.sqrt(((len(x1)-1)*x1.var(ddof=1)+(len(y1)-1)*y1.var(ddof=1))/(len(x1)+len(y1)-2)))", env)
g("welch", "list(map(float, stats.ttest_ind(x1, y1, equal_var=False)))", env)
g("welch_df", "float(stats.ttest_ind(x1, y1, equal_var=False).df)", env)
px = [2.3, 3.1, 2.8, 4.0, 3.3, 2.9]
py = [2.0, 3.3, 2.1, 3.2, 3.0, 2.2]
out["_data_paired"] = {"x": px, "y": py}
g("paired", "list(map(float, stats.ttest_rel(np.array(%r), np.array(%r))))" % (px, py))
ox = [20, 25, 31, 38, 44, 52, 60, 67]
oy = [6.1, 5.8, 5.9, 5.2, 5.5, 4.9, 4.6, 4.8]
out["_data_ols"] = {"x": ox, "y": oy}
g("linregress", "(lambda r: [r.slope, r.intercept, r.stderr, r.intercept_stderr, r.pvalue, r.rvalue**2])(stats.linregress(%r, %r))" % (ox, oy))

# two-way ANOVA, unbalanced, Type II by explicit least squares
rng = np.random.default_rng(7)
fa = ["w2v", "w2v", "w2v", "hub", "hub", "wsp", "wsp", "wsp", "wsp"] * 3
fb = ["t1"] * 9 + ["t2"] * 9 + ["t3"] * 9
yv = np.round(rng.normal(0, 1, 27) + np.array([0.5 if a == "wsp" else 0 for a in fa]) + np.array([0.3 if b == "t2" else 0 for b in fb]), 4)
out["_data_anova"] = {"y": yv.tolist(), "a": fa, "b": fb}


def anova2(y, a, b):
    la, lb = sorted(set(a), key=a.index), sorted(set(b), key=b.index)
    n = len(y)
    I = np.ones((n, 1))
    A = np.array([[1.0 if v == l else 0.0 for l in la[1:]] for v in a])
    B = np.array([[1.0 if v == l else 0.0 for l in lb[1:]] for v in b])
    AB = np.array([np.outer(A[i], B[i]).ravel() for i in range(n)])

    def fit(X):
        beta, *_ = np.linalg.lstsq(X, y, rcond=None)
        r = y - X @ beta
        return float(r @ r), int(np.linalg.matrix_rank(X))
    full, ab, oa, ob = fit(np.hstack([I, A, B, AB])), fit(np.hstack([I, A, B])), fit(np.hstack([I, A])), fit(np.hstack([I, B]))
    dfr = n - full[1]
    ms = full[0] / dfr
    rows = []
    for ss, df in [(ob[0] - ab[0], ab[1] - ob[1]), (oa[0] - ab[0], ab[1] - oa[1]), (ab[0] - full[0], full[1] - ab[1])]:
        F = ss / df / ms
        rows.append([ss, df, F, float(stats.f.sf(F, df, dfr))])
    rows.append([full[0], dfr])
    return rows


g("anova2_typeII", "anova2(yv, fa, fb)", {"yv": yv, "fa": fa, "fb": fb, "anova2": anova2})
# balanced check with the textbook formula via scipy.stats.f_oneway-free sums of squares
pv = [0.01, 0.04, 0.03, 0.2, 0.005, 0.5]
out["_data_p"] = pv


def holm(p):
    p = np.asarray(p); m = len(p); o = np.argsort(p); adj = np.empty(m)
    adj[o] = np.minimum(1, np.maximum.accumulate((m - np.arange(m)) * p[o]))
    return adj


g("bonferroni", "np.minimum(1, np.array(%r) * 6)" % pv)
g("holm", "holm(%r)" % pv, {"holm": holm})
g("bh", "stats.false_discovery_control(%r, method='bh')" % pv)

# ---- SpEAT ------------------------------------------------------------------------
def speat_np(X, Y, A, B):
    def unit(M):
        M = np.asarray(M, float)
        return M / np.linalg.norm(M, axis=1, keepdims=True)
    s = lambda W: (unit(W) @ unit(A).T).mean(1) - (unit(W) @ unit(B).T).mean(1)
    sx, sy = s(X), s(Y)
    d = (sx.mean() - sy.mean()) / np.concatenate([sx, sy]).std(ddof=1)
    return sx, sy, d


def exact_p(sx, sy):
    allv = np.concatenate([sx, sy]); n = len(allv); k = len(sx)
    obs = sx.sum(); cnt = tot = 0
    for c in itertools.combinations(range(n), k):
        tot += 1
        if allv[list(c)].sum() >= obs - 1e-12 * np.abs(allv).sum():
            cnt += 1
    return cnt / tot, tot


rs = np.random.default_rng(2024)
for name, nx, dim in [("speat_small", 4, 6), ("speat_mid", 8, 16)]:
    X = np.round(rs.normal(0.3, 1, (nx, dim)), 5); Y = np.round(rs.normal(0, 1, (nx, dim)), 5)
    A = np.round(rs.normal(0.3, 1, (nx + 1, dim)), 5); B = np.round(rs.normal(0, 1, (nx + 2, dim)), 5)
    doc = {"X": X.tolist(), "Y": Y.tolist(), "A": A.tolist(), "B": B.tolist()}
    with open(os.path.join(FIX, f"{name}.json"), "w") as fh:
        json.dump(doc, fh)
    env = {"speat_np": speat_np, "exact_p": exact_p, "doc": doc}
    g(f"{name}.sx", "speat_np(doc['X'], doc['Y'], doc['A'], doc['B'])[0]", env)
    g(f"{name}.sy", "speat_np(doc['X'], doc['Y'], doc['A'], doc['B'])[1]", env)
    g(f"{name}.d", "float(speat_np(doc['X'], doc['Y'], doc['A'], doc['B'])[2])", env)
    g(f"{name}.exact_p", "list(exact_p(*speat_np(doc['X'], doc['Y'], doc['A'], doc['B'])[:2]))", env)

# Ties: integer-valued associations, exact enumeration by itertools.
g("ties_exact_p", "list(exact_p(np.array([1.,1.,2.]), np.array([1.,2.,0.])))", {"exact_p": exact_p})

# Bootstrap SE (different RNG; tests compare within Monte Carlo error), R = 40000.
def boot_se(sx, sy, k, R, paired=False, seed=1):
    r = np.random.default_rng(seed)
    if paired:
        idx = r.integers(0, len(sx), (R, k)); a, b = sx[idx], sy[idx]
    else:
        a = sx[r.integers(0, len(sx), (R, k))]; b = sy[r.integers(0, len(sy), (R, k))]
    d = (a.mean(1) - b.mean(1)) / np.concatenate([a, b], 1).std(1, ddof=1)
    return float(d[np.isfinite(d)].std(ddof=1))


mid = json.load(open(os.path.join(FIX, "speat_mid.json")))
env = {"speat_np": speat_np, "boot_se": boot_se, "doc": mid}
g("speat_mid.boot_se_k5", "boot_se(*speat_np(doc['X'], doc['Y'], doc['A'], doc['B'])[:2], 5, 40000)", env)
g("speat_mid.boot_se_k8_paired", "boot_se(*speat_np(doc['X'], doc['Y'], doc['A'], doc['B'])[:2], 8, 40000, paired=True)", env)

# ---- WER -------------------------------------------------------------------------
# jiwer's documented example (README / docs "Usage"): reference ["i can spell", "i hope"],
# hypothesis ["i kan cpell", "i hop"] -> S=3 D=0 I=0 H=2, WER 0.6, MER 0.6, WIL 0.84.
out["jiwer_example"] = {"command": "jiwer docs: process_words(['i can spell','i hope'], ['i kan cpell','i hop'])",
                        "value": {"substitutions": 3, "deletions": 0, "insertions": 0, "hits": 2, "wer": 0.6, "mer": 0.6, "wil": 0.84}}


def lev(a, b):
    D = np.zeros((len(a) + 1, len(b) + 1), int); D[:, 0] = range(len(a) + 1); D[0, :] = range(len(b) + 1)
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            D[i, j] = min(D[i - 1, j] + 1, D[i, j - 1] + 1, D[i - 1, j - 1] + (a[i - 1] != b[j - 1]))
    return int(D[-1, -1])


pairs = [("the cat sat on the mat", "the cat sit on mat"), ("hello world", "hello big world"),
         ("a b c d e", "e d c b a"), ("", "extra words here"), ("one two three", ""), ("kitten", "sitting")]
out["_data_lev"] = pairs
g("lev_words", "[lev(r.split(), h.split()) for r, h in pairs]", {"lev": lev, "pairs": pairs})
g("lev_chars", "[lev(list(r), list(h)) for r, h in pairs]", {"lev": lev, "pairs": pairs})

# Poisson closed forms (categorical model: MLE rate per group).
E = {"a": 40, "b": 65, "c": 12}; W = {"a": 400, "b": 500, "c": 300}
out["_data_poisson"] = {"errors": E, "words": W}


def pois(E, W, ref):
    r = {k: E[k] / W[k] for k in E}
    res = {}
    for gname in E:
        if gname == ref: continue
        rm = (E[gname] + E[ref]) / (W[gname] + W[ref])
        drop = 2 * (E[gname] * math.log(r[gname] / rm) + E[ref] * math.log(r[ref] / rm))
        res[gname] = [math.log(r[gname] / r[ref]), math.sqrt(1 / E[gname] + 1 / E[ref]), r[gname] / r[ref], drop, float(stats.chi2.sf(drop, 1))]
    ra = sum(E.values()) / sum(W.values())
    overall = 2 * sum(E[k] * math.log(r[k] / ra) for k in E)
    res["overall"] = [overall, float(stats.chi2.sf(overall, len(E) - 1))]
    return res


g("poisson_closed", "pois(E, W, 'a')", {"pois": pois, "E": E, "W": W})

g("percentile", "[float(np.percentile([3,1,4,1,5,9,2,6], q)) for q in (2.5, 50, 97.5)]")

# ---- FDI --------------------------------------------------------------------------
fg = ["a"] * 6 + ["b"] * 6 + ["c"] * 6
fl = [1, 1, 1, 0, 0, 0] * 3
fs = [0.9, 0.7, 0.4, 0.6, 0.2, 0.1, 0.8, 0.55, 0.5, 0.45, 0.3, 0.52, 0.95, 0.35, 0.3, 0.2, 0.65, 0.1]
with open(os.path.join(FIX, "fdi_small.csv"), "w") as fh:
    fh.write("group,label,score\n" + "".join(f"{a},{b},{c}\n" for a, b, c in zip(fg, fl, fs)))


def fdi_py(tau, alpha=0.5, harm=True):
    groups = sorted(set(fg)); M = []
    for gname in groups:
        idx = [i for i in range(len(fg)) if fg[i] == gname]
        y = np.array([fl[i] for i in idx]); p = np.array([fs[i] for i in idx]) >= tau
        fpr = (p & (y == 0)).sum() / (y == 0).sum(); fnr = (~p & (y == 1)).sum() / (y == 1).sum(); acc = (p == (y == 1)).mean()
        M.append([fpr, fnr, 1 - acc if harm else acc])
    M = np.array(M).T
    N = np.array([(m - m.min()) / (m.max() - m.min()) if m.max() > m.min() else np.zeros_like(m) for m in M])
    Rk = np.array([stats.rankdata(m) for m in M])
    Ds = [np.abs(N[i] - N[j]).mean() for i, j in [(0, 1), (0, 2), (1, 2)]]
    Rs = [np.abs(Rk[i] - Rk[j]).mean() for i, j in [(0, 1), (0, 2), (1, 2)]]
    return [float(np.mean([alpha * d + (1 - alpha) * r for d, r in zip(Ds, Rs)])), float(np.mean(Ds)), float(np.mean(Rs)), M.T.tolist()]


env = {"fdi_py": fdi_py}
for tau in [0.5, 0.35, 0.0]:
    g(f"fdi_harm({tau})", f"fdi_py({tau})", env)
    g(f"fdi_paper({tau})", f"fdi_py({tau}, harm=False)", env)
g("fdi_harm(0.5,alpha=0.2)", "fdi_py(0.5, alpha=0.2)", env)
g("wasserstein_ab", "float(stats.wasserstein_distance(%r, %r))" % (fs[:6], fs[6:12]))
g("wasserstein_ac", "float(stats.wasserstein_distance(%r, %r))" % (fs[:6], fs[12:]))
g("wasserstein_ties", "float(stats.wasserstein_distance([0,0,1,1,1], [0,1,1,2]))")
g("rankdata_ties", "stats.rankdata([0.2, 0.1, 0.2, 0.5, 0.1, 0.2])")

# ---- SER agreement: one-sided binomial p of k sign agreements in n pairs against 1/2 ----
for k, n in [(66, 96), (3, 4), (0, 5), (5, 5), (10, 20), (1, 1)]:
    g(f"binom_greater({k},{n})", f"float(stats.binomtest({k}, {n}, 0.5, alternative='greater').pvalue)")

# ---- RNG: xoshiro128** seeded by splitmix32, re-implemented here from the reference C -----
M32 = 0xFFFFFFFF


def rng_first(seed, stream, count):
    x = ((seed & M32) ^ ((stream * 0x85EBCA6B) & M32))
    x = (x ^ (((seed >> 32) * 0xC2B2AE35) & M32)) & M32
    st = []
    for _ in range(4):
        x = (x + 0x9E3779B9) & M32
        z = x
        z = ((z ^ (z >> 16)) * 0x85EBCA6B) & M32
        z = ((z ^ (z >> 13)) * 0xC2B2AE35) & M32
        st.append((z ^ (z >> 16)) & M32)
    rotl = lambda v, k: ((v << k) | (v >> (32 - k))) & M32
    res = []
    for _ in range(count):
        s0, s1, s2, s3 = st
        res.append((rotl((s1 * 5) & M32, 7) * 9) & M32)
        t = (s1 << 9) & M32
        s2 ^= s0; s3 ^= s1; s1 ^= s2; s0 ^= s3; s2 ^= t; s3 = rotl(s3, 11)
        st = [s0, s1, s2, s3]
    return res


g("rng_seed42_stream0", "rng_first(42, 0, 6)", {"rng_first": rng_first})
g("rng_seed42_stream1", "rng_first(42, 1, 6)", {"rng_first": rng_first})
g("rng_seed2pow40_stream5", "rng_first(2**40 + 7, 5, 4)", {"rng_first": rng_first})

with open(os.path.join(ROOT, "test", "golden", "stats_golden.json"), "w") as fh:
    json.dump(out, fh, indent=1)
print("wrote", len(out), "entries")
