"""Golden values for test/unit/audits/wer-audit.test.ts (METHODS.md, WER and CER).

Regenerate:  python3 test/golden/audit_wer.py > test/golden/audit_wer.json

Utterances are already in `basic` normal form (lowercase, no punctuation, single spaces)
except where noted, so normalisation leaves the words unchanged.
  errors(utt)  = word-level Levenshtein distance (unit costs), dynamic programming
  WER_g        = sum errors / sum reference words over the group's utterances (pooled)
  CER_g        = the same over characters of the text (single spaces included)
  rate ratio   = (E_g / N_g) / (E_ref / N_ref)        (Poisson GLM, two groups: closed form)
  b_g          = log(rate ratio),  SE = sqrt(1 / E_g + 1 / E_ref)
  speaker p    = exact two-sided permutation test over speakers: every split of the 6
                 speakers into 3 + 3 (their utterances together), statistic |WER_a - WER_b|,
                 p = #{splits >= observed} / #splits (a secondary test: with fewer than 5
                 speakers per group there is no verdict, METHODS.md § The unit of inference)
"""
import itertools
import json
import math

# (speaker, accent, reference, hypothesis). "Hello, World" tests basic normalisation.
UTTS = [
    ("a1", "us", "the cat sat on the mat", "the cat sat on the mat"),
    ("a1", "us", "open the door please", "open the door please"),
    ("a2", "us", "it is raining again today", "it is raining today"),
    ("a2", "us", "Hello, World", "hello world"),
    ("a3", "us", "turn left at the light", "turn left at a light"),
    ("b1", "scot", "the cat sat on the mat", "a cat sat in the hat"),
    ("b1", "scot", "open the door please", "open door police"),
    ("b2", "scot", "it is raining again today", "it is raining a gain to day"),
    ("b2", "scot", "Hello, World", "yellow world"),
    ("b3", "scot", "turn left at the light", "turn left at the light"),
]


def basic(s):
    s = s.lower()
    s = "".join(ch for ch in s if ch.isalnum() or ch.isspace() or ch == "'")
    return " ".join(s.split())


def lev(r, h):
    dp = list(range(len(h) + 1))
    for i in range(1, len(r) + 1):
        prev, dp[0] = dp[0], i
        for j in range(1, len(h) + 1):
            cur = min(dp[j] + 1, dp[j - 1] + 1, prev + (r[i - 1] != h[j - 1]))
            prev, dp[j] = dp[j], cur
    return dp[len(h)]


groups = {}
for spk, g, ref, hyp in UTTS:
    r, h = basic(ref), basic(hyp)
    e = groups.setdefault(g, {"utterances": 0, "referenceWords": 0, "errors": 0, "referenceCharacters": 0, "characterErrors": 0})
    e["utterances"] += 1
    e["referenceWords"] += len(r.split())
    e["errors"] += lev(r.split(), h.split())
    e["referenceCharacters"] += len(r)
    e["characterErrors"] += lev(list(r), list(h))
for e in groups.values():
    e["wer"] = e["errors"] / e["referenceWords"]
    e["cer"] = e["characterErrors"] / e["referenceCharacters"]
ref, g = groups["us"], groups["scot"]
rr = (g["errors"] / g["referenceWords"]) / (ref["errors"] / ref["referenceWords"])
per_speaker = {}
for spk, grp, refr, hyp in UTTS:
    r, h = basic(refr), basic(hyp)
    acc = per_speaker.setdefault(spk, [grp, 0, 0])
    acc[1] += lev(r.split(), h.split())
    acc[2] += len(r.split())
speakers = sorted(per_speaker)


def stat(a):
    ea = sum(per_speaker[s][1] for s in a); wa = sum(per_speaker[s][2] for s in a)
    b = [s for s in speakers if s not in a]
    eb = sum(per_speaker[s][1] for s in b); wb = sum(per_speaker[s][2] for s in b)
    return abs(ea / wa - eb / wb)


observed = stat([s for s in speakers if per_speaker[s][0] == "scot"])
splits = list(itertools.combinations(speakers, 3))
speaker_p = sum(stat(list(c)) + 1e-12 >= observed for c in splits) / len(splits)
out = {
    "_command": "python3 test/golden/audit_wer.py > test/golden/audit_wer.json",
    "utterances": [{"speaker": s, "accent": a, "reference": r, "hypothesis": h} for s, a, r, h in UTTS],
    "referenceGroup": "us",
    "groups": groups,
    "comparison": {"group": "scot", "absoluteDelta": g["wer"] - ref["wer"], "rateRatio": rr, "coefficient": math.log(rr), "standardError": math.sqrt(1 / g["errors"] + 1 / ref["errors"]), "speakerPermutationExactP": speaker_p, "speakerSplits": len(splits)},
}
print(json.dumps(out, indent=1))
