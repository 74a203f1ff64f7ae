"""Golden values for speaker-verification measures beside FDI (issue 34.5), computed
independently with numpy/scipy, for test/unit/stats/verification.test.ts.

Regenerate:  python3 test/golden/verification_golden.py > test/golden/verification_golden.json

Trials: 3 groups x 4 speakers x 3 clips (seeded); every same-speaker pair is genuine (12 per
group), 12 seeded two-speaker pairs per group are impostors, the lower clip enrolling.
Decision: score >= threshold. FMR = impostor trials accepted / impostor trials (ISO/IEC
19795-10 false match rate), FNMR = genuine trials rejected / genuine trials.

- eer: per group, at every distinct score t ascending, FNMR(t) = mean(genuine < t) and
  FMR(t) = mean(impostor >= t); np.argmin(|FNMR - FMR|) (the first minimum); EER = the mean of
  the two there, threshold = t.
- bootstrap: the speaker bootstrap's exact distribution per group, enumerating every draw of 4
  speakers with replacement (multinomial counts, 35 per group); a trial counts c(enrol) *
  c(test) times (c(speaker) if genuine); draws leaving no genuine or no impostor weight are
  undefined. P(undefined), mean and SD of the EER over defined draws and inverse-CDF quantiles.
- trial_bootstrap: a group of 3 genuine and 3 impostor trials without speakers; every draw of
  3 of each with replacement (10 x 10 count vectors, multinomial probabilities).
- garbe_fdr at TAU: Gini G(x) = n/(n-1) * sum_i sum_j |x_i - x_j| / (2 n^2 mean(x)) of the groups'
  FMR and of their FNMR; GARBE = 0.5 G(FMR) + 0.5 G(FNMR); FDR = 1 - (0.5 A + 0.5 B), A and B
  the largest |difference| over the pairs of groups (itertools.combinations) of FMR and FNMR.
- gini_cases: hand-checkable Gini values.
- det: per group, (FMR, FNMR) at every distinct score ascending and one step above the highest.
- probit: scipy.stats.norm.ppf at the rates the DET chart's axes tick at.
- audit_fdi: the same EER, GARBE and FDR for the rows of test/golden/audit_fdi.json (the FDI
  audit's imported-scores fixture) at threshold 0.5, for test/unit/audits/fdi-audit.test.ts.
"""
import itertools
import json
import math

import numpy as np
from scipy import stats

out = {"_command": "python3 test/golden/verification_golden.py > test/golden/verification_golden.json"}
rng = np.random.default_rng(345)
G, S, K = 3, 4, 3
TAU = 0.6
trials = []  # group, label, score, enrol, test
for g in range(G):
    goat = rng.normal(0, 0.08, S)
    lamb = rng.normal(0, 0.08, S)
    clips = [(k, i) for k in range(S) for i in range(K)]
    for a in range(len(clips)):
        for b in range(a + 1, len(clips)):
            ka, kb = clips[a][0], clips[b][0]
            if ka == kb:
                score = 0.70 - 0.05 * g + goat[ka] + rng.normal(0, 0.1)
                trials.append([f"g{g}", 1, round(float(score), 6), f"g{g}s{ka}", f"g{g}s{kb}"])
    cross = [(a, b) for a in range(len(clips)) for b in range(a + 1, len(clips)) if clips[a][0] != clips[b][0]]
    for idx in rng.choice(len(cross), 12, replace=False):
        a, b = cross[idx]
        ka, kb = clips[a][0], clips[b][0]
        score = 0.5 + 0.04 * g + lamb[ka] + lamb[kb] + rng.normal(0, 0.1)
        trials.append([f"g{g}", 0, round(float(score), 6), f"g{g}s{ka}", f"g{g}s{kb}"])


def eer(scores, labels, weights):
    """(EER, threshold) of weighted trials; None when a label has no weight."""
    scores, labels, weights = np.asarray(scores), np.asarray(labels), np.asarray(weights, dtype=float)
    pos = weights[labels == 1].sum()
    neg = weights[labels == 0].sum()
    if pos == 0 or neg == 0:
        return None
    ts = np.unique(scores)
    fnmr = np.array([weights[(labels == 1) & (scores < t)].sum() / pos for t in ts])
    fmr = np.array([weights[(labels == 0) & (scores >= t)].sum() / neg for t in ts])
    k = int(np.argmin(np.abs(fnmr - fmr)))
    return float((fnmr[k] + fmr[k]) / 2), float(ts[k])


def group_trials(g):
    return [t for t in trials if t[0] == f"g{g}"]


def dist_summary(dist, undefined):
    vals = np.array(sorted(dist))
    probs = np.array([dist[v] for v in vals]) / (1 - undefined)
    cdf = np.cumsum(probs)
    mean = float(np.sum(vals * probs))
    sd = float(math.sqrt(np.sum(probs * (vals - mean) ** 2)))
    q = {str(p): float(vals[np.searchsorted(cdf, p - 1e-12)]) for p in (0.015, 0.025, 0.035, 0.965, 0.975, 0.985)}
    return {"pUndefined": undefined, "mean": mean, "sd": sd, "q": q}


def compositions(total, parts):
    for counts in itertools.product(range(total + 1), repeat=parts):
        if sum(counts) == total:
            yield counts, math.factorial(total) / math.prod(math.factorial(c) for c in counts) / parts**total


per_group = {}
for g in range(G):
    tg = group_trials(g)
    sc = [t[2] for t in tg]
    lb = [t[1] for t in tg]
    e, thr = eer(sc, lb, [1] * len(tg))
    speakers = sorted({s for t in tg for s in (t[3], t[4])})
    dist, undefined = {}, 0.0
    for counts, prob in compositions(len(speakers), len(speakers)):
        c = dict(zip(speakers, counts))
        w = [c[t[3]] if t[3] == t[4] else c[t[3]] * c[t[4]] for t in tg]
        r = eer(sc, lb, w)
        if r is None:
            undefined += prob
        else:
            key = round(r[0], 12)
            dist[key] = dist.get(key, 0.0) + prob
    per_group[f"g{g}"] = {"eer": e, "threshold": thr, "genuine": sum(lb), "impostor": len(lb) - sum(lb), "bootstrap": dist_summary(dist, undefined)}
out["trials"] = [{"group": t[0], "label": t[1], "score": t[2], "enrol": t[3], "test": t[4]} for t in trials]
out["eer"] = per_group

# Trial bootstrap of a small group without speakers.
small_scores = [0.81, 0.55, 0.62, 0.58, 0.4, 0.66]
small_labels = [1, 1, 1, 0, 0, 0]
dist = {}
for cg, pg in compositions(3, 3):
    for ci, pi in compositions(3, 3):
        w = list(cg) + list(ci)
        r = eer(small_scores, small_labels, w)
        key = round(r[0], 12)
        dist[key] = dist.get(key, 0.0) + pg * pi
out["trial_bootstrap"] = {"scores": small_scores, "labels": small_labels, "eer": eer(small_scores, small_labels, [1] * 6)[0], **dist_summary(dist, 0.0)}


def gini(x):
    x = np.asarray(x, dtype=float)
    n = len(x)
    if x.sum() == 0:
        return 0.0
    return float(n / (n - 1) * np.abs(x[:, None] - x[None, :]).sum() / (2 * n * n * x.mean()))


fmr, fnmr = [], []
for g in range(G):
    tg = group_trials(g)
    imp = np.array([t[2] for t in tg if t[1] == 0])
    gen = np.array([t[2] for t in tg if t[1] == 1])
    fmr.append(float(np.mean(imp >= TAU)))
    fnmr.append(float(np.mean(gen < TAU)))
A = max(abs(a - b) for a, b in itertools.combinations(fmr, 2))
B = max(abs(a - b) for a, b in itertools.combinations(fnmr, 2))
out["garbe_fdr"] = {
    "threshold": TAU,
    "fmr": fmr,
    "fnmr": fnmr,
    "giniFmr": gini(fmr),
    "giniFnmr": gini(fnmr),
    "garbe": 0.5 * gini(fmr) + 0.5 * gini(fnmr),
    "fmrGap": A,
    "fnmrGap": B,
    "fdr": 1 - (0.5 * A + 0.5 * B),
}
out["gini_cases"] = [{"x": x, "gini": gini(x)} for x in ([0, 0, 0, 1], [0.1, 0.1], [0.1, 0.3], [0.02, 0.05, 0.11, 0.4], [0, 0, 0])]

det = {}
for g in range(G):
    tg = group_trials(g)
    sc = np.array([t[2] for t in tg])
    lb = np.array([t[1] for t in tg])
    ts = list(np.unique(sc)) + [np.inf]
    det[f"g{g}"] = {"fmr": [float(np.mean(sc[lb == 0] >= t)) for t in ts], "fnmr": [float(np.mean(sc[lb == 1] < t)) for t in ts]}
out["det"] = det

ticks = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995, 0.998, 0.999]
out["probit"] = [{"p": p, "z": float(stats.norm.ppf(p))} for p in ticks]

import os

rows = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "audit_fdi.json")))["rows"]
names = sorted({r["group"] for r in rows})
a_fmr, a_fnmr, a_eer = [], [], {}
for name in names:
    rs = [r for r in rows if r["group"] == name]
    e, thr = eer([r["score"] for r in rs], [r["label"] for r in rs], [1] * len(rs))
    a_eer[name] = {"eer": e, "threshold": thr}
    a_fmr.append(float(np.mean([r["score"] >= 0.5 for r in rs if r["label"] == 0])))
    a_fnmr.append(float(np.mean([r["score"] < 0.5 for r in rs if r["label"] == 1])))
A = max(abs(a - b) for a, b in itertools.combinations(a_fmr, 2))
B = max(abs(a - b) for a, b in itertools.combinations(a_fnmr, 2))
out["audit_fdi"] = {"threshold": 0.5, "eer": a_eer, "garbe": 0.5 * gini(a_fmr) + 0.5 * gini(a_fnmr), "fdr": 1 - (0.5 * A + 0.5 * B)}
print(json.dumps(out, indent=1))
