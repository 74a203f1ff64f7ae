"""Golden values for SpEAT with speakers as the unit (METHODS.md § The unit of inference),
computed independently with numpy/itertools from the embeddings.

Run from the repository root:
    python3 test/golden/speat_speakers.py
It writes test/golden/speat_speakers.json and the fixtures test/fixtures/stats/speat_spk_*.json
(`stats speat --input` documents with speakersX / speakersY). Each JSON entry is
{"command": <the Python expression evaluated>, "value": <result>}.

The speaker-level test, as METHODS.md defines it: a split keeps every speaker's clips
together. Speakers whose clips all lie in one group are permuted between the groups (as
many in X as observed); a speaker recorded in both groups keeps its two sets of clips and
the split chooses which of them is X. Statistic: mean s over X's clips minus mean s over
Y's clips; one-sided hits >= observed, two-sided |.| >= |observed|, with the tolerance
1e-12 * sum |s| for ties. Exact p = hits / splits (the observed split counts).
"""
import itertools
import json
import os

import numpy as np
from golden_record import recorder, assoc

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIX = os.path.join(ROOT, "test", "fixtures", "stats")
os.makedirs(FIX, exist_ok=True)
out = {"_versions": {"numpy": np.__version__}}


g = recorder(out, globals())


def effect_size(doc):
    sx, sy = assoc(doc)
    return float((sx.mean() - sy.mean()) / np.concatenate([sx, sy]).std(ddof=1))


def units(doc):
    """Per speaker: (X values, Y values); kinds by membership."""
    sx, sy = assoc(doc)
    spk = {}
    for v, s in zip(sx, doc["speakersX"]):
        spk.setdefault(s, ([], []))[0].append(v)
    for v, s in zip(sy, doc["speakersY"]):
        spk.setdefault(s, ([], []))[1].append(v)
    return sx, sy, spk


def speaker_splits(doc):
    """Every split of speakers: a list of (sum of X's clips, X's clip count)."""
    sx, sy, spk = units(doc)
    only_x = [np.array(x) for x, y in spk.values() if x and not y]
    only_y = [np.array(y) for x, y in spk.values() if y and not x]
    both = [(np.array(x), np.array(y)) for x, y in spk.values() if x and y]
    blocks = only_x + only_y
    out = []
    for chosen in itertools.combinations(range(len(blocks)), len(only_x)):
        base_sum = sum(blocks[i].sum() for i in chosen)
        base_n = sum(len(blocks[i]) for i in chosen)
        for flips in itertools.product([0, 1], repeat=len(both)):
            s, n = base_sum, base_n
            for (x, y), f in zip(both, flips):
                side = y if f else x
                s += side.sum(); n += len(side)
            out.append((s, n))
    return out


def exact_speaker_p(doc):
    """[one-sided p, two-sided p, number of splits] over every speaker split."""
    sx, sy, _ = units(doc)
    allv = np.concatenate([sx, sy]); T = allv.sum(); N = len(allv)
    tol = 1e-12 * np.abs(allv).sum()
    obs = sx.mean() - sy.mean()
    diffs = np.array([s / n - (T - s) / (N - n) for s, n in speaker_splits(doc)])
    return [float((diffs >= obs - tol).mean()), float((np.abs(diffs) >= abs(obs) - tol).mean()), len(diffs)]


def exact_clip_p(doc):
    """The paper's test, clips as independent: [one-sided, two-sided, splits] over every equal-size split."""
    sx, sy = assoc(doc)
    allv = np.concatenate([sx, sy]); n = len(allv); k = len(sx)
    tol = 1e-12 * np.abs(allv).sum()
    combos = np.array(list(itertools.combinations(range(n), k)))
    sums = allv[combos].sum(1)
    obs = sx.sum()
    centre = allv.sum() * k / n
    return [float((sums >= obs - tol).mean()), float((np.abs(sums - centre) >= abs(obs - centre) - tol).mean()), len(sums)]


def sampled_speaker_p(doc, N, seed):
    """Monte Carlo reference: N random speaker splits (numpy's generator), two-sided p = (1 + hits) / (1 + N)."""
    sx, sy, spk = units(doc)
    allv = np.concatenate([sx, sy]); T = allv.sum(); NN = len(allv)
    assert all(not (x and y) for x, y in spk.values()), "between-speaker designs only"
    sums = np.array([sum(x) + sum(y) for x, y in spk.values()])
    cnts = np.array([len(x) + len(y) for x, y in spk.values()])
    kx = sum(1 for x, y in spk.values() if x)
    r = np.random.default_rng(seed)
    obs = abs(sx.mean() - sy.mean())
    hits = 0
    for start in range(0, N, 20000):
        m = min(20000, N - start)
        perm = np.argsort(r.random((m, len(sums))), axis=1)[:, :kx]
        s = sums[perm].sum(1); n = cnts[perm].sum(1)
        hits += int((np.abs(s / n - (T - s) / (NN - n)) >= obs - 1e-12).sum())
    return (1 + hits) / (1 + N)


def speaker_bootstrap_se(doc, draws, R, seed):
    """SE (ddof 1) of d when (X-only, Y-only, both) speakers are drawn with replacement as `draws` says, each with all their clips."""
    sx, sy, spk = units(doc)
    kinds = {"x": [], "y": [], "b": []}
    for x, y in spk.values():
        kinds["b" if x and y else "x" if x else "y"].append((np.array(x), np.array(y)))
    r = np.random.default_rng(seed)
    ds = []
    for _ in range(R):
        X, Y = [], []
        for kind, k in zip("xyb", draws):
            for i in r.integers(0, len(kinds[kind]), k):
                x, y = kinds[kind][i]
                X.append(x); Y.append(y)
        X = np.concatenate(X); Y = np.concatenate(Y)
        ds.append((X.mean() - Y.mean()) / np.concatenate([X, Y]).std(ddof=1))
    return float(np.std(ds, ddof=1))


def embeddings(rs, dim, spk_x, spk_y, shift, speaker_sd=1.0, clip_sd=0.5):
    """Clips clustered by speaker: each speaker a random centre, each clip centre + noise;
    X's speakers shifted along the pleasant-minus-unpleasant direction u."""
    u = rs.normal(0, 1, dim)
    centres = {}
    def rows(spec, delta):
        ids, out = [], []
        for name, clips in spec:
            c = centres.setdefault(name, rs.normal(0, speaker_sd, dim))
            for _ in range(clips):
                out.append(c + rs.normal(0, clip_sd, dim) + delta * u)
                ids.append(name)
        return ids, np.round(np.array(out), 5).tolist()
    sx_ids, X = rows(spk_x, shift)
    sy_ids, Y = rows(spk_y, 0.0)
    return {
        "X": X, "Y": Y,
        "A": np.round(rs.normal(0, 1, (6, dim)) + 0.7 * u, 5).tolist(),
        "B": np.round(rs.normal(0, 1, (6, dim)) - 0.7 * u, 5).tolist(),
        "speakersX": sx_ids, "speakersY": sy_ids,
    }


def save(name, doc):
    json.dump(doc, open(os.path.join(FIX, f"{name}.json"), "w"))
    return doc


# Speakers in one group each, unequal clips per speaker (5 speakers, 10 clips in X; 4 speakers, 10 clips in Y): C(9, 5) = 126 splits.
rs = np.random.default_rng(3201)
docs = {}
docs["speat_spk_between"] = save("speat_spk_between", embeddings(rs, 8, [("ana", 3), ("ben", 2), ("cy", 1), ("dee", 2), ("eli", 2)], [("fay", 3), ("gus", 3), ("hal", 2), ("ivy", 2)], 0.6))
# Every speaker in both groups (a within-speaker design), unequal X and Y clips per speaker: 2^6 = 64 splits.
rs = np.random.default_rng(3202)
doc = embeddings(rs, 8, [("s1", 2), ("s2", 2), ("s3", 1), ("s4", 2), ("s5", 3), ("s6", 2)], [("s1", 2), ("s2", 1), ("s3", 2), ("s4", 2), ("s5", 2), ("s6", 2)], 0.0)
# The condition effect: X's clips of each speaker moved a little toward pleasant speech.
u_dir = np.array(doc["A"]).mean(0) - np.array(doc["B"]).mean(0)
doc["X"] = np.round(np.array(doc["X"]) + 0.25 * u_dir, 5).tolist()
docs["speat_spk_within"] = save("speat_spk_within", doc)
# Mixed: 3 speakers only in X, 3 only in Y, 3 in both: C(6, 3) * 2^3 = 160 splits.
rs = np.random.default_rng(3203)
docs["speat_spk_mixed"] = save("speat_spk_mixed", embeddings(rs, 8, [("p", 2), ("q", 2), ("r", 3), ("m1", 1), ("m2", 2), ("m3", 1)], [("t", 2), ("v", 1), ("w", 3), ("m1", 2), ("m2", 1), ("m3", 2)], 0.3))
# No group effect, 4 and 4 speakers with 3 clips each: C(8, 4) = 70 splits, the mirror split ties.
rs = np.random.default_rng(3204)
docs["speat_spk_null"] = save("speat_spk_null", embeddings(rs, 8, [(f"x{i}", 3) for i in range(4)], [(f"y{i}", 3) for i in range(4)], 0.0))

for name, doc in docs.items():
    env = {"doc": doc, "exact_speaker_p": exact_speaker_p, "exact_clip_p": exact_clip_p, "effect_size": effect_size}
    g(f"{name}.d", "effect_size(doc)", env)
    g(f"{name}.speaker_exact", "exact_speaker_p(doc)", env)
    g(f"{name}.clip_exact", "exact_clip_p(doc)", env)

assert out["speat_spk_between.speaker_exact"]["value"][2] == 126
assert out["speat_spk_within.speaker_exact"]["value"][2] == 64
assert out["speat_spk_mixed.speaker_exact"]["value"][2] == 160
assert out["speat_spk_null.speaker_exact"]["value"][2] == 70
# The clustered data make the clip-level test far more confident than the speaker-level one somewhere.
assert out["speat_spk_between.clip_exact"]["value"][1] < out["speat_spk_between.speaker_exact"]["value"][1]

# Sampled: 14 and 14 speakers with 2-4 clips (C(28, 14) = 40 million splits): Monte Carlo reference with 400,000 splits.
rs = np.random.default_rng(3205)
clips = lambda: int(rs.integers(2, 5))
doc = save("speat_spk_large", embeddings(rs, 16, [(f"x{i}", clips()) for i in range(14)], [(f"y{i}", clips()) for i in range(14)], 0.25))
env = {"doc": doc, "sampled_speaker_p": sampled_speaker_p, "effect_size": effect_size}
g("speat_spk_large.d", "effect_size(doc)", env)
g("speat_spk_large.sampled_two_sided", "sampled_speaker_p(doc, 400000, 11)", env)
assert 0.02 < out["speat_spk_large.sampled_two_sided"]["value"] < 0.6, "choose data whose p is informative"

# Bootstrap SE by speaker, numpy, 100,000 resamples: 3 speakers per group, and the design as compared.
env = {"doc": docs["speat_spk_between"], "speaker_bootstrap_se": speaker_bootstrap_se}
g("speat_spk_between.se_k3", "speaker_bootstrap_se(doc, (3, 3, 0), 100000, 5)", env)
g("speat_spk_between.se_compared", "speaker_bootstrap_se(doc, (5, 4, 0), 100000, 6)", env)
env = {"doc": docs["speat_spk_within"], "speaker_bootstrap_se": speaker_bootstrap_se}
g("speat_spk_within.se_k4", "speaker_bootstrap_se(doc, (0, 0, 4), 100000, 7)", env)

json.dump(out, open(os.path.join(ROOT, "test", "golden", "speat_speakers.json"), "w"), indent=1)
