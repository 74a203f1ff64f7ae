#!/usr/bin/python3
"""Golden values for test/unit/audits/wer-normalisers.test.ts: per-group WER/CER under
openai/whisper's EnglishTextNormalizer and the words each rule family changed per group.

Regenerate (repository root; WHISPER as in whisper_normalizers.py, release v20250625):
  /usr/bin/python3 test/golden/wer_whisper.py --whisper WHISPER/whisper/normalizers > test/golden/wer_whisper.json

  norm(s)          = EnglishTextNormalizer()(s), Whisper's own code
  errors(utt)      = word-level Levenshtein distance of norm(ref).split() and norm(hyp).split()
  WER_g            = sum errors / sum reference words (pooled over the group's utterances)
  CER_g            = the same over the characters of " ".join(words)
  rule counts      = whisper_normalizers.rule_counts (words that differ with that family alone off)
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import whisper_normalizers as wn  # noqa: E402

# (speaker, dialect, reference, hypothesis): contractions, fillers, numbers and spellings
# that occur more in one group's speech or references than another's.
UTTS = [
    ("a1", "aave", "I ain't gonna pay twenty dollars for that.", "i aint going to pay $20 for that"),
    ("a1", "aave", "Um, she been working since nineteen ninety.", "she been working since 1990"),
    ("a2", "aave", "Y'all finna leave at ten thirty?", "you all finna leave at 10 30"),
    ("a2", "aave", "He don't know nothing about it, uh, at all.", "he do not know nothing about it at all"),
    ("a3", "aave", "We was gonna call y'all at 5 o'clock.", "we was going to call you all at five o clock"),
    ("b1", "british", "The colour of the theatre is grey.", "the color of the theater is gray"),
    ("b1", "british", "Mr. Smith paid £5 and 50 pence.", "mister smith paid five pounds and fifty pence"),
    ("b2", "british", "I've organised the programme for the 3rd of May.", "i have organized the program for the third of may"),
    ("b2", "british", "Hmm, the centre's travelling exhibition opens at 9.", "the center's traveling exhibition opens at nine"),
    ("b3", "british", "We queued for two and a half hours [laughter].", "we queued for 2.5 hours"),
    ("c1", "general", "The meeting starts at nine thirty in the morning.", "the meeting starts at 9 30 in the morning"),
    ("c1", "general", "Dr. Jones' café serves crème brûlée.", "doctor jones cafe serves creme brulee"),
    ("c2", "general", "It's twenty five percent off today.", "it is 25% of today"),
    ("c2", "general", "They'd been waiting for three hours.", "they had been waiting for 3 hours"),
    ("c3", "general", "Please call me back at 555 0199.", "please call me back at five five five zero one nine nine"),
]


def lev(r, h):
    dp = list(range(len(h) + 1))
    for i in range(1, len(r) + 1):
        prev, dp[0] = dp[0], i
        for j in range(1, len(h) + 1):
            cur = min(dp[j] + 1, dp[j - 1] + 1, prev + (r[i - 1] != h[j - 1]))
            prev, dp[j] = dp[j], cur
    return dp[len(h)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--whisper", required=True)
    args = ap.parse_args()
    pkg, basic_mod = wn.load_whisper(args.whisper)
    english = pkg.EnglishTextNormalizer()
    groups, rules, utterances = {}, {}, []
    for spk, g, ref, hyp in UTTS:
        r, h = english(ref), english(hyp)
        rw, hw = r.split(), h.split()
        e = groups.setdefault(g, {"utterances": 0, "referenceWords": 0, "errors": 0, "referenceCharacters": 0, "characterErrors": 0})
        e["utterances"] += 1
        e["referenceWords"] += len(rw)
        e["errors"] += lev(rw, hw)
        e["referenceCharacters"] += len(" ".join(rw))
        e["characterErrors"] += lev(list(" ".join(rw)), list(" ".join(hw)))
        rc = rules.setdefault(g, {"referenceWords": 0, "hypothesisWords": 0, "reference": [0] * len(wn.FAMILIES), "hypothesis": [0] * len(wn.FAMILIES)})
        rc["referenceWords"] += len(rw)
        rc["hypothesisWords"] += len(hw)
        for side, text, full in (("reference", ref, r), ("hypothesis", hyp, h)):
            for i, n in enumerate(wn.rule_counts(english, basic_mod, text, full)):
                rc[side][i] += n
        utterances.append({"speaker": spk, "group": g, "reference": ref, "hypothesis": hyp, "normalisedReference": r, "normalisedHypothesis": h, "errors": lev(rw, hw)})
    for e in groups.values():
        e["wer"] = e["errors"] / e["referenceWords"]
        e["cer"] = e["characterErrors"] / e["referenceCharacters"]
    for rc in rules.values():
        rc["reference"] = dict(zip(wn.FAMILIES, rc["reference"]))
        rc["hypothesis"] = dict(zip(wn.FAMILIES, rc["hypothesis"]))
    out = {
        "_command": "/usr/bin/python3 test/golden/wer_whisper.py --whisper WHISPER/whisper/normalizers > test/golden/wer_whisper.json",
        "whisper": "openai/whisper v20250625, c0d2f624c09dc18e709e37c2ad90c039a4eb72a2",
        "utterances": utterances,
        "groups": groups,
        "ruleChanges": rules,
    }
    print(json.dumps(out, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
