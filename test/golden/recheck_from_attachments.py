"""The SpEAT attribute selection, the targets' mean durations and the SER predictions' test R²
and Cohen's d recomputed from a report's extracted attachments alone (issue 34.6), with numpy,
for test/unit/report/recheck-attachments.test.ts.

Usage:  python3 test/golden/recheck_from_attachments.py EXTRACTED_DIR

Reads reproduce.json's "checks" (k of the attribute selection; the files), then
speat-attribute-stimuli.csv, speat-stimulus-durations.csv and each ser-predictions-*.csv.
Prints JSON: {"attributes": {"A": [ids], "B": [ids], "clips": {id: {"pole": "A"|"B"|null, "why": …}}}, "durations": {test: {"X": mean, "Y": mean}},
"ser": {file: {column: {"r2": R², "d": {test: d}}}}}.
- Attribute selection (the attached rule): clips with a speaker, grouped by speaker, speakers
  sorted; a speaker with fewer than 2k rated clips is skipped; the rest sorted by valence
  descending, then row ascending; A = first k, B = last k. Why a clip is in neither: "no speaker
  id", "speaker left out" (fewer than 2k), "tied" (rated the same as the last clip taken into A,
  or the first taken into B, and lost on row order) or "between" (rated between the poles).
- R² = 1 - SSE/SST over the rows of split "test"; d = (mean X - mean Y) / pooled SD (ddof 1).
"""
import csv
import json
import os
import sys

import numpy as np

root = sys.argv[1]


def rows(name):
    with open(os.path.join(root, name), newline="", encoding="utf-8-sig") as f:
        return list(csv.DictReader(f))


checks = json.load(open(os.path.join(root, "reproduce.json"), encoding="utf-8"))["checks"]
out = {"attributes": None, "durations": {}, "ser": {}}
for check in checks:
    name = check["file"]
    data = rows(name)
    if name == "speat-attribute-stimuli.csv":
        k = int(check["perSpeaker"])
        speakers = sorted({r["speaker"] for r in data if r["speaker"] != ""})
        A, B = [], []
        clips = {r["clip_id"]: {"pole": None, "why": "no speaker id"} for r in data if r["speaker"] == ""}
        for s in speakers:
            mine = [r for r in data if r["speaker"] == s]
            if len(mine) < 2 * k:
                clips.update({r["clip_id"]: {"pole": None, "why": "speaker left out"} for r in mine})
                continue
            mine.sort(key=lambda r: (-float(r["valence"]), int(r["row"])))
            A += [r["clip_id"] for r in mine[:k]]
            B += [r["clip_id"] for r in mine[-k:]]
            clips.update({r["clip_id"]: {"pole": "A", "why": None} for r in mine[:k]})
            clips.update({r["clip_id"]: {"pole": "B", "why": None} for r in mine[-k:]})
            edges = (float(mine[k - 1]["valence"]), float(mine[-k]["valence"]))
            for r in mine[k:-k]:
                clips[r["clip_id"]] = {"pole": None, "why": "tied" if float(r["valence"]) in edges else "between"}
        out["attributes"] = {"A": A, "B": B, "clips": clips}
    elif name == "speat-stimulus-durations.csv":
        for t in sorted({r["test_id"] for r in data}):
            out["durations"][t] = {
                s: float(np.mean([float(r["duration_s"] or 0) for r in data if r["test_id"] == t and r["set"] == s]))
                for s in ("X", "Y")
            }
    elif name.startswith("ser-predictions-"):
        cols = [c for c in data[0].keys() if c.startswith("predicted_lr_")]
        test = [r for r in data if r["set"] == "rated" and r["split"] == "test"]
        y = np.array([float(r["rating"]) for r in test])
        res = {}
        for c in cols:
            p = np.array([float(r[c]) for r in test])
            r2 = 1 - np.sum((y - p) ** 2) / np.sum((y - y.mean()) ** 2)
            d = {}
            for t in sorted({r["test_id"] for r in data if r["set"] == "target"}):
                x = np.array([float(r[c]) for r in data if r["set"] == "target" and r["test_id"] == t and r["group"] == "X"])
                z = np.array([float(r[c]) for r in data if r["set"] == "target" and r["test_id"] == t and r["group"] == "Y"])
                pooled = np.sqrt(((x.size - 1) * x.var(ddof=1) + (z.size - 1) * z.var(ddof=1)) / (x.size + z.size - 2))
                d[t] = float((x.mean() - z.mean()) / pooled)
            res[c] = {"r2": float(r2), "d": d}
        out["ser"][name] = res
print(json.dumps(out))
