"""What the golden scripts share: recording a value with the expression that computed it,
and SpEAT's association s(w, A, B) of every row of X and Y (the scripts that recompute
SpEAT from a `stats speat --input` document).

The scripts run as `python3 test/golden/<name>.py`, so this folder is on their path.
"""
import numpy as np


def recorder(out, namespace):
    """g(name, expr, env=None): evaluate `expr` in the script's own namespace (its globals,
    plus `env`), record {"command": expr, "value": value} as out[name] and return the value."""

    def plain(v):
        if isinstance(v, np.ndarray):
            return v.tolist()
        if isinstance(v, (np.floating, np.integer, np.bool_)):
            return v.item()
        if isinstance(v, tuple):
            return [x.item() if isinstance(x, (np.floating, np.integer)) else x for x in v]
        return v

    def g(name, expr, env=None):
        value = plain(eval(expr, namespace, env or {}))
        out[name] = {"command": expr, "value": value}
        return value

    return g


def assoc(doc):
    """s(w, A, B) = mean cos(w, a) - mean cos(w, b), per row of X and of Y."""
    def unit(M):
        M = np.asarray(M, float)
        return M / np.linalg.norm(M, axis=1, keepdims=True)
    A, B = unit(doc["A"]), unit(doc["B"])
    s = lambda W: (unit(W) @ A.T).mean(1) - (unit(W) @ B.T).mean(1)
    return s(doc["X"]), s(doc["Y"])
