"""Golden values for test/unit/audits/fdi-audit.test.ts (METHODS.md, FDI).

Regenerate:  python3 test/golden/audit_fdi.py > test/golden/audit_fdi.json

Items: per item a group, a label (1 genuine) and a score, seeded; decision score >= tau.
Per group: FPR = FP/(FP+TN), FNR = FN/(FN+TP), accuracy. Metrics in `harm` orientation:
FPR, FNR, 1 - accuracy. Each metric min-max normalised over groups (0 when max = min);
ranks ascending with ties averaged (scipy.stats.rankdata, method 'average').
D_ij = mean_g |M~_i - M~_j|, R_ij = mean_g |r_i - r_j|,
FDI = mean over the 3 pairs i < j of alpha D_ij + (1 - alpha) R_ij, alpha = 0.5.
Scores are rounded to 6 decimals so the CSV carries them exactly.
"""
import json

import numpy as np
from scipy.stats import rankdata

rng = np.random.default_rng(7)
GROUPS = {"a": (1.0, 40), "b": (0.6, 40), "c": (0.3, 30), "d": (0.8, 30)}  # separation, items
rows = []
for g, (sep, n) in GROUPS.items():
    for i in range(n):
        label = i % 2
        score = round(float(rng.normal(0.5 + (sep / 2 if label else -sep / 2) * 0.5, 0.2)), 6)
        rows.append({"group": g, "label": label, "score": score})


def fdi(rows, tau, alpha=0.5):
    gs = sorted({r["group"] for r in rows})
    fpr, fnr, err = [], [], []
    for g in gs:
        items = [r for r in rows if r["group"] == g]
        tp = sum(1 for r in items if r["label"] == 1 and r["score"] >= tau)
        fn = sum(1 for r in items if r["label"] == 1 and r["score"] < tau)
        fp = sum(1 for r in items if r["label"] == 0 and r["score"] >= tau)
        tn = sum(1 for r in items if r["label"] == 0 and r["score"] < tau)
        fpr.append(fp / (fp + tn))
        fnr.append(fn / (fn + tp))
        err.append(1 - (tp + tn) / len(items))
    M = [np.array(fpr), np.array(fnr), np.array(err)]
    norm = [(m - m.min()) / (m.max() - m.min()) if m.max() > m.min() else np.zeros_like(m) for m in M]
    ranks = [rankdata(m, method="average") for m in M]
    Ds, Rs = [], []
    for i in range(3):
        for j in range(i + 1, 3):
            Ds.append(np.mean(np.abs(norm[i] - norm[j])))
            Rs.append(np.mean(np.abs(ranks[i] - ranks[j])))
    D, R = float(np.mean(Ds)), float(np.mean(Rs))
    return {"fdi": float(np.mean([alpha * d + (1 - alpha) * r for d, r in zip(Ds, Rs)])), "valueDisagreement": D, "rankDisagreement": R,
            "groups": {g: {"fpr": a, "fnr": b, "accuracy": 1 - c} for g, a, b, c in zip(gs, fpr, fnr, err)}}


out = {"_command": "python3 test/golden/audit_fdi.py > test/golden/audit_fdi.json", "rows": rows, "thresholds": {}}
for tau in (0.5, 0.45):
    out["thresholds"][str(tau)] = fdi(rows, tau)
print(json.dumps(out, indent=1))
