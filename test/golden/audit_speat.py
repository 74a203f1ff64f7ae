"""Golden values for test/unit/audits/speat-audit.test.ts (METHODS.md, SpEAT).

Regenerate:  python3 test/golden/audit_speat.py > test/golden/audit_speat.json

Fixture: a fake model with two layers of width 4 (dims [4, 4]). Each clip stores a
per-layer temporal mean, min and max. The audit runs with temporal 'mean' and layer
'last', so the vector of a clip is its layer-1 mean. Layer 0 and the min/max blobs are
filled with unrelated noise so that a pipeline using the wrong layer or statistic fails.
All vectors are rounded to float32 here (the cache stores float32), and every statistic
below is computed in float64 from those float32 values.

Target dataset: 10 clips, three grouping labels; each test splits the 10 clips 5 / 5:
  t-g1: label g1, X = clips 0-4, Y = clips 5-9   (built with an effect: X near A)
  t-g2: label g2, X = even clips, Y = odd clips
  t-g3: label g3, X = {0,1,5,6,9}, Y = the rest
Attribute dataset: 2 speakers x 4 rated clips, attributePerSpeaker k = 2, so per speaker
the 2 highest ratings form A and the 2 lowest form B (valences chosen without ties).

Statistics (METHODS.md):
  s(w) = mean_a cos(w, a) - mean_b cos(w, b)
  d    = (mean s(X) - mean s(Y)) / std(s(X u Y), ddof=1)
  p    = #{5-subsets S of the 10 targets: sum s(S) >= sum s(X) - 1e-12 * sum |s|} / C(10, 5)
         (exact enumeration with itertools.combinations; 252 <= permutations = 1000)
Adjustments over the three tests (m = 3), p_(1) <= ... <= p_(m) sorted ascending:
  Bonferroni: min(1, m p_i)
  Holm:       p~_(k) = max_{j<=k} min(1, (m - j + 1) p_(j))
  BH:         p~_(k) = min_{j>=k} min(1, m p_(j) / j)
"""
import itertools
import json
import math

import numpy as np

rng = np.random.default_rng(20240601)
D = 4


def f32(a):
    return np.asarray(a, dtype=np.float32).astype(np.float64)


# Attribute poles: A around +e0, B around -e0.
attr = []
valences = [[9.0, 8.0, 2.0, 1.0], [7.5, 6.5, 3.5, 2.5]]
for s in range(2):
    for k in range(4):
        v = valences[s][k]
        centre = np.array([1.0, 0.2, 0.0, 0.0]) if v > 5 else np.array([-1.0, 0.0, 0.2, 0.0])
        attr.append({"speaker": f"s{s + 1}", "valence": v, "last": f32(centre + 0.3 * rng.standard_normal(D))})
# Targets: clips 0-4 lean to A, 5-9 to B (test t-g1 has an effect).
targets = []
for i in range(10):
    lean = 0.6 if i < 5 else -0.6
    targets.append({"last": f32(np.array([lean, 0.5, 0.5, 0.5]) + 0.5 * rng.standard_normal(D))})
for c in attr + targets:
    c["first"] = f32(rng.standard_normal(D))
    c["min"] = [f32(rng.standard_normal(D)), f32(rng.standard_normal(D))]
    c["max"] = [f32(rng.standard_normal(D)), f32(rng.standard_normal(D))]

A = [c["last"] for c in attr if c["valence"] > 5]
B = [c["last"] for c in attr if c["valence"] < 5]


def cos(u, v):
    return float(np.dot(u, v) / math.sqrt(np.dot(u, u) * np.dot(v, v)))


def assoc(w):
    return np.mean([cos(w, a) for a in A]) - np.mean([cos(w, b) for b in B])


s_all = np.array([assoc(c["last"]) for c in targets])
tests = [
    ("t-g1", "g1", [0, 1, 2, 3, 4]),
    ("t-g2", "g2", [0, 2, 4, 6, 8]),
    ("t-g3", "g3", [0, 1, 5, 6, 9]),
]
results = []
for tid, label, xs in tests:
    ys = [i for i in range(10) if i not in xs]
    sx, sy = s_all[xs], s_all[ys]
    d = (sx.mean() - sy.mean()) / np.concatenate([sx, sy]).std(ddof=1)
    obs = sx.sum()
    thr = obs - 1e-12 * np.abs(s_all).sum()
    combos = list(itertools.combinations(range(10), 5))
    count = sum(1 for S in combos if s_all[list(S)].sum() >= thr)
    results.append({"id": tid, "label": label, "x": xs, "y": ys, "d": float(d), "count": count, "total": len(combos), "p": count / len(combos)})

p = np.array([r["p"] for r in results])
m = len(p)
order = np.argsort(p, kind="stable")
bonf = np.minimum(1, m * p)
holm = np.empty(m)
run = 0.0
for k, i in enumerate(order):
    run = max(run, min(1.0, (m - k) * p[i]))
    holm[i] = run
bh = np.empty(m)
run = 1.0
for k in range(m - 1, -1, -1):
    i = order[k]
    run = min(run, m * p[i] / (k + 1))
    bh[i] = min(1.0, run)
for r, b, h, q in zip(results, bonf, holm, bh):
    r["pAdjusted"] = {"bonferroni": float(b), "holm": float(h), "bh": float(q)}

out = {
    "_command": "python3 test/golden/audit_speat.py > test/golden/audit_speat.json",
    "dims": [D, D],
    "attribute": [{"speaker": c["speaker"], "valence": c["valence"], "mean": [c["first"].tolist(), c["last"].tolist()], "min": [x.tolist() for x in c["min"]], "max": [x.tolist() for x in c["max"]]} for c in attr],
    "targets": [{"mean": [c["first"].tolist(), c["last"].tolist()], "min": [x.tolist() for x in c["min"]], "max": [x.tolist() for x in c["max"]]} for c in targets],
    "associations": s_all.tolist(),
    "tests": results,
}
print(json.dumps(out, indent=1))
