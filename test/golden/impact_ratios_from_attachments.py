"""Impact ratios recomputed from a report's extracted attachments alone (issue 34.4), with numpy,
for test/unit/report/impact-ratios.test.ts.

Usage:  python3 test/golden/impact_ratios_from_attachments.py EXTRACTED_DIR

Reads wer-utterances.csv (group, speaker, reference_words, errors), each fdi-trials-*.csv
(group, label, score, enrol_speaker, test_speaker) and reproduce.json (the WER step's
--reference-group, each FDI step's --threshold). Prints JSON: per table id, per group and
measure, the rate, the count of units, the speakers and the ratio to the reference.
- WER of a group = sum of its errors / sum of its reference words (pooled).
- FPR = impostor trials with score >= threshold / impostor trials; FNR = genuine trials with
  score < threshold / genuine trials; speakers = distinct enrolment and test pseudonyms.
- Reference: the WER step's --reference-group; for FDI (no reference planned) the group with
  the most speakers, then the most trials.
"""
import csv
import glob
import json
import os
import re
import sys

import numpy as np

root = sys.argv[1]


def rows(name):
    with open(os.path.join(root, name), newline="", encoding="utf-8-sig") as f:
        return list(csv.DictReader(f))


recipe = json.load(open(os.path.join(root, "reproduce.json"), encoding="utf-8"))
out = {}

wer_step = next(s for s in recipe["steps"] if s["section"] == "wer")
ref = next(a.split("=", 1)[1] for a in wer_step["argv"] if a.startswith("--reference-group="))
utt = rows("wer-utterances.csv")
wer = {}
for g in sorted({r["group"] for r in utt}):
    mine = [r for r in utt if r["group"] == g]
    errors = np.array([int(r["errors"]) for r in mine], dtype=float)
    words = np.array([int(r["reference_words"]) for r in mine], dtype=float)
    wer[g] = {"rate": errors.sum() / words.sum(), "units": len(mine), "speakers": len({r["speaker"] for r in mine})}
for g in wer:
    wer[g]["ratio"] = wer[g]["rate"] / wer[ref]["rate"]
out["wer-impact-ratios"] = {"reference": ref, "WER": wer}

for step in (s for s in recipe["steps"] if s["section"] == "fdi"):
    trials_file = step["argv"][step["argv"].index("--input") + 1]
    tau = float(step["argv"][step["argv"].index("--threshold") + 1])
    index = int(re.match(r"fdi-trials-(\d+)-", trials_file).group(1))
    t = rows(trials_file)
    groups = sorted({r["group"] for r in t})
    score = {g: np.array([float(r["score"]) for r in t if r["group"] == g]) for g in groups}
    label = {g: np.array([int(r["label"]) for r in t if r["group"] == g]) for g in groups}
    speakers = {g: len({r["enrol_speaker"] for r in t if r["group"] == g} | {r["test_speaker"] for r in t if r["group"] == g}) for g in groups}
    ref = sorted(groups, key=lambda g: (-speakers[g], -len(score[g]), g))[0]
    table = {"reference": ref}
    for measure, lab, wrong in (("FPR", 0, lambda s: s >= tau), ("FNR", 1, lambda s: s < tau)):
        per = {}
        for g in groups:
            s = score[g][label[g] == lab]
            per[g] = {"rate": float(np.mean(wrong(s))), "units": int(s.size), "speakers": speakers[g]}
        for g in groups:
            per[g]["ratio"] = per[g]["rate"] / per[ref]["rate"]
        table[measure] = per
    out[f"fdi-impact-ratios-{index}"] = table

print(json.dumps(out))
