"""FDI at one threshold recomputed from a report's attachments alone (issue 34.6), with numpy and
scipy, following the attached definitions.md (§ FDI), for test/unit/report/definitions.test.ts.

Usage:  python3 test/golden/fdi_from_attachments.py TRIALS.csv THRESHOLD ORIENTATION ALPHA

TRIALS.csv is a report's fdi-trials-*.csv (group, label, score[, enrol_speaker, test_speaker]);
THRESHOLD, ORIENTATION and ALPHA are read by the test from the attached reproduce.json's fdi
step. Prints JSON: fdi, valueDisagreement, rankDisagreement, the per-group metrics and each oriented
metric's ranks of the groups ("ranks": {fpr|fnr|accuracy: {group: rank}}, 1 = lowest).
- decision score >= tau; FPR = FP/(FP+TN), FNR = FN/(FN+TP), accuracy; "harm" uses 1 - accuracy.
- min-max normalisation over groups (0 when max = min); D_ij = mean_g |M~_i - M~_j|;
  R_ij = mean_g |r_i - r_j| with scipy.stats.rankdata(method="average") (ascending, ties averaged);
  FDI = mean over the 3 metric pairs of alpha D_ij + (1 - alpha) R_ij.
"""
import csv
import itertools
import json
import sys

import numpy as np
from scipy.stats import rankdata

path, tau, orientation, alpha = sys.argv[1], float(sys.argv[2]), sys.argv[3], float(sys.argv[4])
with open(path, newline="", encoding="utf-8-sig") as f:
    rows = list(csv.DictReader(f))
groups = sorted({r["group"] for r in rows})
metrics = {"fpr": [], "fnr": [], "accuracy": []}
for g in groups:
    label = np.array([int(r["label"]) for r in rows if r["group"] == g])
    score = np.array([float(r["score"]) for r in rows if r["group"] == g])
    accept = score >= tau
    tp = np.sum(accept & (label == 1)); fn = np.sum(~accept & (label == 1))
    fp = np.sum(accept & (label == 0)); tn = np.sum(~accept & (label == 0))
    metrics["fpr"].append(fp / (fp + tn))
    metrics["fnr"].append(fn / (fn + tp))
    metrics["accuracy"].append((tp + tn) / len(label))
oriented = [np.array(metrics["fpr"]), np.array(metrics["fnr"]), np.array(metrics["accuracy"])]
if orientation == "harm":
    oriented[2] = 1 - oriented[2]


def norm(v):
    r = v.max() - v.min()
    return (v - v.min()) / r if r > 0 else np.zeros_like(v)


d = [np.mean(np.abs(norm(oriented[i]) - norm(oriented[j]))) for i, j in itertools.combinations(range(3), 2)]
r = [np.mean(np.abs(rankdata(oriented[i]) - rankdata(oriented[j]))) for i, j in itertools.combinations(range(3), 2)]
out = {
    "ranks": {k: dict(zip(groups, map(float, rankdata(v)))) for k, v in zip(("fpr", "fnr", "accuracy"), oriented)},
    "groups": {g: {k: float(metrics[k][n]) for k in metrics} for n, g in enumerate(groups)},
    "valueDisagreement": float(np.mean(d)),
    "rankDisagreement": float(np.mean(r)),
    "fdi": float(np.mean([alpha * a + (1 - alpha) * b for a, b in zip(d, r)])),
}
print(json.dumps(out))
