"""Golden values for speakers as the unit of inference (issue 32.4; METHODS.md § The unit of
inference), computed independently with numpy/scipy, for test/unit/stats/units.test.ts.

Regenerate:  python3 test/golden/units_golden.py > test/golden/units_golden.json

- welch_speaker_means: a per-clip measure with speaker clusters (seeded); each speaker's clips
  averaged, the speaker means compared with scipy.stats.ttest_ind(equal_var=False) and the
  Welch 95% CI (difference +- t.ppf(0.975, df) * SE); the same over clips.
- duration_by_sentence: clips of two groups reading the same sentences (transcripts differ in
  case, punctuation and spacing only); per sentence the mean duration of each group's clips,
  scipy.stats.ttest_rel over sentences. duration_speakers: groups reading different sentences,
  so Welch on speaker means.
- fdi_speakers: verification trials of 3 groups x 3 speakers x 3 clips (every same-speaker
  pair genuine, 9 seeded two-speaker pairs impostor per group, the lower clip enrolling).
  * bootstrap: the speaker bootstrap's exact distribution, by enumerating every draw of 3
    speakers with replacement per group (multinomial counts, 10 per group, 1,000 in all);
    a trial counts c(enrol) * c(test) times (c(speaker) if genuine); draws leaving a group
    without genuine or impostor trials are undefined. Gives P(undefined), the mean and SD of
    FDI over defined draws and its inverse-CDF quantiles.
  * null: the speaker-label shuffle's exact p, enumerating every distinct assignment of the
    groups' labels to the 9 enrolment speakers (9! / 3!^3 = 1,680, equally likely), each trial
    in its enrolment speaker's group: p = #{FDI >= observed - 1e-12} / #{defined}.
"""
import itertools
import json
import math

import numpy as np
from scipy import stats
from scipy.stats import rankdata

out = {"_command": "python3 test/golden/units_golden.py > test/golden/units_golden.json"}

# ---- Welch on speaker means ---------------------------------------------------------------
rng = np.random.default_rng(32)


def clustered(prefix, speakers, shift):
    values, ids = [], []
    for k in range(speakers):
        u = rng.normal(0, 1.0)
        for _ in range(int(rng.integers(1, 6))):
            values.append(round(float(5 + shift + u + rng.normal(0, 0.5)), 6))
            ids.append(f"{prefix}{k}")
    return values, ids


def welch(x, y):
    x, y = np.asarray(x), np.asarray(y)
    r = stats.ttest_ind(x, y, equal_var=False)
    vx, vy = x.var(ddof=1) / len(x), y.var(ddof=1) / len(y)
    se = math.sqrt(vx + vy)
    df = float(r.df)
    q = float(stats.t.ppf(0.975, df))
    diff = float(x.mean() - y.mean())
    return {"t": float(r.statistic), "df": df, "p": float(r.pvalue), "difference": diff, "ci95": [diff - q * se, diff + q * se]}


def means_by(values, ids):
    keys = sorted(set(ids))
    return [float(np.mean([v for v, i in zip(values, ids) if i == k])) for k in keys]


x, sx = clustered("x", 6, 0.8)
y, sy = clustered("y", 7, 0.0)
mx, my = means_by(x, sx), means_by(y, sy)
out["welch_speaker_means"] = {
    "x": x, "y": y, "speakersX": sx, "speakersY": sy,
    "bySpeaker": {**welch(mx, my), "units": [len(mx), len(my)], "meanX": float(np.mean(mx)), "meanY": float(np.mean(my))},
    "byClip": {**welch(x, y), "units": [len(x), len(y)]},
}

# ---- Duration by sentence -----------------------------------------------------------------
SENTENCES = ["The bus stops outside the post office.", "Please put the box on the second shelf", "the train leaves from platform four", "She wrote the numbers in a small notebook!"]
VARIANTS = [lambda s: s, lambda s: s.lower(), lambda s: s.upper().replace(" ", "  "), lambda s: s.rstrip(".!") + " ."]


def norm(s):
    # What the check compares: lower case, punctuation (but apostrophes in words) removed, spaces collapsed.
    return " ".join("".join(ch for ch in s.lower() if ch.isalnum() or ch.isspace()).split())


clips = []
for group, slow in (("x", 0.0), ("y", 0.35)):
    for k in range(4):
        speaker = f"{group}{k}"
        for j, sentence in enumerate(SENTENCES):
            if (k + j) % 4 == 3:
                continue  # not every speaker reads every sentence, so sentences have different numbers of readers
            base = 1.2 + 0.45 * j
            d = round(float(base + slow + rng.normal(0, 0.08) + 0.05 * k), 4)
            clips.append({"group": group, "speaker": speaker, "transcript": VARIANTS[(k + j) % 4](sentence), "durationS": d})
by = {}
for c in clips:
    by.setdefault((norm(c["transcript"]), c["group"]), []).append(c["durationS"])
keys = sorted({k for k, _ in by})
assert all((k, g) in by for k in keys for g in "xy")
dx = [float(np.mean(by[(k, "x")])) for k in keys]
dy = [float(np.mean(by[(k, "y")])) for k in keys]
r = stats.ttest_rel(dx, dy)
out["duration_by_sentence"] = {"clips": clips, "t": float(r.statistic), "df": float(r.df), "p": float(r.pvalue), "meanDifference": float(np.mean(np.subtract(dx, dy))), "sentences": len(keys)}

# Different sentences per group: Welch on speaker means of durations.
clips2 = [dict(c, transcript=f"{c['transcript']} {c['group']}") for c in clips]
vx = [c["durationS"] for c in clips2 if c["group"] == "x"]
vy = [c["durationS"] for c in clips2 if c["group"] == "y"]
ix = [c["speaker"] for c in clips2 if c["group"] == "x"]
iy = [c["speaker"] for c in clips2 if c["group"] == "y"]
w = welch(means_by(vx, ix), means_by(vy, iy))
out["duration_speakers"] = {"clips": clips2, **w, "units": [len(set(ix)), len(set(iy))]}

# ---- FDI with speakers ----------------------------------------------------------------------
G, S, K = 3, 3, 3
TAU = 0.6
trials = []  # group, label, score, enrol, test
for g in range(G):
    goat = rng.normal(0, 0.08, S)
    lamb = rng.normal(0, 0.08, S)
    clips_g = [(k, i) for k in range(S) for i in range(K)]  # clip index = k * K + i
    for a in range(len(clips_g)):
        for b in range(a + 1, len(clips_g)):
            ka, kb = clips_g[a][0], clips_g[b][0]
            if ka == kb:
                score = 0.72 - 0.04 * g + goat[ka] + rng.normal(0, 0.1)
                trials.append([f"g{g}", 1, round(float(score), 6), f"g{g}s{ka}", f"g{g}s{kb}"])
    cross = [(a, b) for a in range(len(clips_g)) for b in range(a + 1, len(clips_g)) if clips_g[a][0] != clips_g[b][0]]
    for idx in rng.choice(len(cross), 9, replace=False):
        a, b = cross[idx]
        ka, kb = clips_g[a][0], clips_g[b][0]
        score = 0.5 + 0.03 * g + lamb[ka] + lamb[kb] + rng.normal(0, 0.1)
        trials.append([f"g{g}", 0, round(float(score), 6), f"g{g}s{ka}", f"g{g}s{kb}"])


def fdi_from(fpr, fnr, err, alpha=0.5):
    M = [np.array(fpr), np.array(fnr), np.array(err)]
    nrm = [(m - m.min()) / (m.max() - m.min()) if m.max() > m.min() else np.zeros_like(m) for m in M]
    rk = [rankdata(m, method="average") for m in M]
    vals = []
    for i in range(3):
        for j in range(i + 1, 3):
            vals.append(alpha * np.mean(np.abs(nrm[i] - nrm[j])) + (1 - alpha) * np.mean(np.abs(rk[i] - rk[j])))
    return float(np.mean(vals))


def fdi_weighted(weight_of):
    """FDI (harm orientation) with each trial counted weight_of(trial) times; None if a rate is undefined."""
    fpr, fnr, err = [], [], []
    for g in range(G):
        n0 = fp = n1 = tp = 0.0
        for t in trials:
            if t[0] != f"g{g}":
                continue
            w = weight_of(t)
            acc = 1 if t[2] >= TAU else 0
            if t[1] == 1:
                n1 += w
                tp += w * acc
            else:
                n0 += w
                fp += w * acc
        if n0 == 0 or n1 == 0:
            return None
        fpr.append(fp / n0)
        fnr.append((n1 - tp) / n1)
        err.append(1 - (tp + n0 - fp) / (n0 + n1))
    return fdi_from(fpr, fnr, err)


observed = fdi_weighted(lambda t: 1)

# Exact bootstrap distribution.
per_group = []
for g in range(G):
    opts = []
    for counts in itertools.product(range(S + 1), repeat=S):
        if sum(counts) != S:
            continue
        prob = math.factorial(S) / math.prod(math.factorial(c) for c in counts) / S**S
        opts.append((counts, prob))
    per_group.append(opts)
dist = {}
undefined = 0.0
for combo in itertools.product(*per_group):
    prob = math.prod(p for _, p in combo)
    cnt = {f"g{g}s{k}": combo[g][0][k] for g in range(G) for k in range(S)}
    f = fdi_weighted(lambda t: cnt[t[3]] if t[3] == t[4] else cnt[t[3]] * cnt[t[4]])
    if f is None:
        undefined += prob
    else:
        key = round(f, 12)
        dist[key] = dist.get(key, 0.0) + prob
vals = np.array(sorted(dist))
probs = np.array([dist[v] for v in vals]) / (1 - undefined)
cdf = np.cumsum(probs)
mean = float(np.sum(vals * probs))
sd = float(math.sqrt(np.sum(probs * (vals - mean) ** 2)))


def inv_cdf(q):
    return float(vals[np.searchsorted(cdf, q - 1e-12)])


# Exact speaker-label shuffle null.
enrol_speakers = sorted({t[3] for t in trials})
labels = [int(s[1]) for s in enrol_speakers]
hits = defined = total = 0
for perm in set(itertools.permutations(labels)):
    total += 1
    grp = {s: perm[i] for i, s in enumerate(enrol_speakers)}
    shuffled = [[f"g{grp[t[3]]}"] + t[1:] for t in trials]
    saved, trials[:] = list(trials), shuffled
    f = fdi_weighted(lambda t: 1)
    trials[:] = saved
    if f is None:
        continue
    defined += 1
    if f >= observed - 1e-12 * max(1, abs(observed)):
        hits += 1

out["fdi_speakers"] = {
    "threshold": TAU,
    "trials": [{"group": t[0], "label": t[1], "score": t[2], "enrol": t[3], "test": t[4]} for t in trials],
    "fdi": observed,
    "bootstrap": {"pUndefined": undefined, "mean": mean, "sd": sd, "q": {str(q): inv_cdf(q) for q in (0.02, 0.025, 0.03, 0.97, 0.975, 0.98)}},
    "null": {"p": hits / defined, "assignments": defined, "total": total},
}
print(json.dumps(out, indent=1))
