"""Vectorised numpy SpEAT: the same work as `equivox stats speat` for one test, for the
speed comparison in bench/stats.ts.

    python3 bench/speat_numpy.py INPUT.json PERMUTATIONS RESAMPLES k1,k2,...

Prints a JSON object with d, p and the SEs, and the wall time of the whole script
(interpreter start excluded; bench/stats.ts times the process from outside as well).
"""
import json
import sys
import time

t0 = time.perf_counter()
import numpy as np  # noqa: E402

path, n_perm, n_boot, sizes = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), [int(k) for k in sys.argv[4].split(",")]
doc = json.load(open(path))
X, Y, A, B = (np.asarray(doc[k], dtype=np.float64) for k in "XYAB")


def unit(m):
    return m / np.linalg.norm(m, axis=1, keepdims=True)


# cosine matrix once; s(w) = mean cos(w, A) - mean cos(w, B)
W = unit(np.vstack([X, Y]))
cos_a = W @ unit(A).T
cos_b = W @ unit(B).T
s = cos_a.mean(1) - cos_b.mean(1)
nx = len(X)
sx, sy = s[:nx], s[nx:]
d = (sx.mean() - sy.mean()) / s.std(ddof=1)

rng = np.random.default_rng(0)
obs = sx.sum()
count = 0
chunk = 10_000
done = 0
total = n_perm - 1
while done < total:
    m = min(chunk, total - done)
    idx = np.argsort(rng.random((m, len(s))), axis=1)[:, :nx]
    count += int((s[idx].sum(1) >= obs - 1e-12 * np.abs(s).sum()).sum())
    done += m
p = (1 + count) / n_perm

ses = []
for k in sizes:
    a = sx[rng.integers(0, len(sx), (n_boot, k))]
    b = sy[rng.integers(0, len(sy), (n_boot, k))]
    dd = (a.mean(1) - b.mean(1)) / np.concatenate([a, b], 1).std(1, ddof=1)
    ses.append({"size": k, "standardError": float(dd[np.isfinite(dd)].std(ddof=1))})

print(json.dumps({"effectSize": float(d), "pValue": p, "standardErrors": ses, "seconds": time.perf_counter() - t0}))
