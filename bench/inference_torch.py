#!/usr/bin/env python3
"""Eager PyTorch baseline for bench/inference.ts: the same base-size wav2vec2 (weights from
export_torch.py --bench), the same clips, clip by clip: read the WAV, normalise as
Wav2Vec2FeatureExtractor does, run the model for its 13 hidden states, and take each
state's mean, min and max over frames (what Equivox stores per clip).

  OMP_WAIT_POLICY=PASSIVE /usr/bin/python3 bench/inference_torch.py MODEL_DIR THREADS CLIP...

Prints one JSON line: audio seconds, seconds for the clip loop, audio seconds per second,
and the seconds from process start (imports and model load included).
"""
import importlib.util
import json
import os
import sys
import time
import wave

T0 = time.perf_counter()

import numpy as np  # noqa: E402
import torch  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def load_module():
    spec = importlib.util.spec_from_file_location("export_torch", os.path.join(HERE, "..", "test", "fixtures", "models", "export_torch.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def read_wav(path):
    with wave.open(path, "rb") as w:
        assert w.getsampwidth() == 2 and w.getnchannels() == 1 and w.getframerate() == 16000, path
        return np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.float32) / 32768.0


def main():
    model_dir, threads, clips = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    torch.set_num_threads(threads)
    mod = load_module()
    model = mod.bench_model()
    model.load_state_dict(torch.load(os.path.join(model_dir, "wav2vec2-base.pt")))
    model.eval()
    t_load = time.perf_counter()
    audio_s = 0.0
    checksum = 0.0
    with torch.inference_mode():
        t1 = time.perf_counter()
        for path in clips:
            x = read_wav(path)
            audio_s += len(x) / 16000
            x = (x - x.mean()) / np.sqrt(x.var() + 1e-7)
            states = model.hidden_states(torch.from_numpy(x)[None])
            stats = [(s[0].mean(0), s[0].min(0).values, s[0].max(0).values) for s in states]
            checksum += float(stats[-1][0].sum())
        loop = time.perf_counter() - t1
    print(json.dumps({
        "threads": threads, "clips": len(clips), "audioSeconds": audio_s, "loopSeconds": loop,
        "audioSecondsPerSecond": audio_s / loop, "fromProcessStartSeconds": time.perf_counter() - T0,
        "importAndLoadSeconds": t_load - T0, "states": 13, "checksum": checksum, "torch": torch.__version__,
    }))


if __name__ == "__main__":
    main()
