"""Independent reference for the audio tests (numpy and scipy, not Equivox's code).

  python3 numpy_audio.py tone OUT RATE CHANNELS SECONDS AMPS [--inf K] [--nan K|all] [--scale S]
      Writes a float32 WAV with scipy.io.wavfile: a 440 Hz sine in every channel, channel c at
      amplitude AMPS[c] (comma-separated), times S; K samples set to +/-Inf (or NaN) at spread
      positions, round robin over the channels. Prints the facts of the written file (below).
  python3 numpy_audio.py batch < [{"out", "rate", "channels", "seconds", "amplitudes", "inf"?, "nan"?, "scale"?}, ...]
      The same for several files in one run (scipy loads once); prints a JSON list of facts.
  python3 numpy_audio.py facts FILE
      Reads a WAV with scipy and prints JSON: rate, channels, frames, inf, nan, largest finite
      magnitude, each channel's peak, and the peak and RMS of the channels' average (float64 sum
      over channels divided by their count, rounded to float32), over its finite samples.
  python3 numpy_audio.py mix CHANNELS < interleaved.f32le > mono.f32le
      Averages raw interleaved float32 frames the same way.
"""
import json
import sys

import numpy as np
from scipy.io import wavfile


def mean_of_channels(x):
    x = np.asarray(x, dtype=np.float32)
    if x.ndim == 1:
        return x
    return (x.astype(np.float64).sum(axis=1) / x.shape[1]).astype(np.float32)


def facts(rate, x):
    x = np.asarray(x, dtype=np.float32)
    frames = x.shape[0]
    chans = 1 if x.ndim == 1 else x.shape[1]
    finite = np.isfinite(x)
    m = mean_of_channels(x).astype(np.float64)
    mf = m[np.isfinite(m)]
    per = np.abs(np.where(finite, x, 0)).reshape(frames, chans).max(axis=0) if frames else np.zeros(chans)
    return {
        "rate": int(rate),
        "channels": int(chans),
        "frames": int(frames),
        "inf": int(np.isinf(x).sum()),
        "nan": int(np.isnan(x).sum()),
        "largest": float(np.abs(x[finite]).max()) if finite.any() else 0.0,
        "channelPeaks": [float(v) for v in per],
        "peakOfMean": float(np.abs(mf).max()) if mf.size else 0.0,
        "rmsOfMean": float(np.sqrt(np.mean(mf * mf))) if mf.size else 0.0,
    }


def tone(out, rate, chans, seconds, amps, inf=None, nan=None, scale=1.0):
    n = int(round(rate * seconds))
    t = np.arange(n) / rate
    x = np.stack([amps[c % len(amps)] * scale * np.sin(2 * np.pi * 440 * t) for c in range(chans)], axis=1).astype(np.float32)
    flat = x.reshape(-1)
    if inf is not None:
        pos = np.linspace(0, n - 1, inf).astype(int) * chans + (np.arange(inf) % chans)
        flat[pos] = np.where(np.arange(inf) % 2 == 0, np.inf, -np.inf).astype(np.float32)
    if nan == "all":
        flat[:] = np.nan
    elif nan is not None:
        pos = np.linspace(0, n - 1, nan).astype(int) * chans + (np.arange(nan) % chans)
        flat[pos] = np.nan
    data = x if chans > 1 else x[:, 0]
    wavfile.write(out, rate, data)
    return facts(rate, data)


def main():
    cmd = sys.argv[1]
    if cmd == "tone":
        opts = sys.argv[7:]
        nan = opts[opts.index("--nan") + 1] if "--nan" in opts else None
        print(json.dumps(tone(
            sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), [float(a) for a in sys.argv[6].split(",")],
            inf=int(opts[opts.index("--inf") + 1]) if "--inf" in opts else None,
            nan=nan if nan in (None, "all") else int(nan),
            scale=float(opts[opts.index("--scale") + 1]) if "--scale" in opts else 1.0,
        )))
    elif cmd == "batch":
        specs = json.load(sys.stdin)
        print(json.dumps([tone(s["out"], s["rate"], s["channels"], s["seconds"], s["amplitudes"], s.get("inf"), s.get("nan"), s.get("scale", 1.0)) for s in specs]))
    elif cmd == "facts":
        rate, x = wavfile.read(sys.argv[2])
        # Integer PCM to float the way every decoder scales it: x / 2^(bits - 1); 8-bit is unsigned.
        if x.dtype == np.uint8:
            x = (x.astype(np.float64) - 128) / 128
        elif np.issubdtype(x.dtype, np.integer):
            x = x.astype(np.float64) / float(2 ** (8 * x.dtype.itemsize - 1))
        print(json.dumps(facts(rate, x)))
    elif cmd == "mix":
        chans = int(sys.argv[2])
        raw = np.frombuffer(sys.stdin.buffer.read(), dtype="<f4")
        sys.stdout.buffer.write(mean_of_channels(raw.reshape(-1, chans)).astype("<f4").tobytes())
    else:
        raise SystemExit(f"unknown command {cmd}")


if __name__ == "__main__":
    main()
