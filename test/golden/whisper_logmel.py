#!/usr/bin/env python3
"""Reference Whisper log-mel features, written in numpy exactly like Hugging Face's
WhisperFeatureExtractor (numpy path) and openai-whisper's log_mel_spectrogram:

  pad/cut to 30 s (480000 samples); STFT n_fft 400, hop 160, periodic Hann window,
  centre with reflect padding; power spectrum; drop the last frame (3001 -> 3000);
  Slaney mel filters as librosa.filters.mel(sr=16000, n_fft=400, n_mels, htk=False,
  norm='slaney'); log10 clamped at 1e-10; max(x, x.max() - 8); (x + 4) / 4.

The test signal is a fixed formula, recomputed identically in the TypeScript test.
Writes whisper_logmel_{80,128}.bin (float32 little-endian, [n_mels, FRAMES]) and
whisper_logmel.json (shape and the value of the all-silence frames).

  python3 test/golden/whisper_logmel.py    (numpy only)
"""
import json
import os

import numpy as np

SR = 16000
N_FFT = 400
HOP = 160
N_SAMPLES = 480000
LENGTH = 24000          # 1.5 s test signal
FRAMES = 160            # stored frames: every frame that touches the signal, plus a few silent ones


def test_signal():
    n = np.arange(LENGTH, dtype=np.float64)
    t = n / SR
    x = (0.5 * np.sin(2 * np.pi * 440.0 * t)
         + 0.25 * np.sin(2 * np.pi * 1234.5 * t + 0.3)
         + 0.1 * np.sin(2 * np.pi * 3000.0 * t) * np.cos(2 * np.pi * 3.0 * t)
         + 0.05 * np.sin(2 * np.pi * 7000.0 * t * t))
    return x.astype(np.float32)


def hz_to_mel(f):
    f = np.asanyarray(f, dtype=np.float64)
    f_sp = 200.0 / 3
    mels = f / f_sp
    min_log_hz = 1000.0
    min_log_mel = min_log_hz / f_sp
    logstep = np.log(6.4) / 27.0
    return np.where(f >= min_log_hz, min_log_mel + np.log(np.maximum(f, 1e-10) / min_log_hz) / logstep, mels)


def mel_to_hz(m):
    m = np.asanyarray(m, dtype=np.float64)
    f_sp = 200.0 / 3
    freqs = f_sp * m
    min_log_hz = 1000.0
    min_log_mel = min_log_hz / f_sp
    logstep = np.log(6.4) / 27.0
    return np.where(m >= min_log_mel, min_log_hz * np.exp(logstep * (m - min_log_mel)), freqs)


def mel_filters(n_mels):
    """librosa.filters.mel(sr=16000, n_fft=400, n_mels=n_mels, htk=False, norm='slaney')"""
    fftfreqs = np.fft.rfftfreq(N_FFT, 1.0 / SR)
    mel_f = mel_to_hz(np.linspace(hz_to_mel(0.0), hz_to_mel(SR / 2.0), n_mels + 2))
    fdiff = np.diff(mel_f)
    ramps = np.subtract.outer(mel_f, fftfreqs)
    weights = np.zeros((n_mels, len(fftfreqs)))
    for i in range(n_mels):
        lower = -ramps[i] / fdiff[i]
        upper = ramps[i + 2] / fdiff[i + 1]
        weights[i] = np.maximum(0, np.minimum(lower, upper))
    enorm = 2.0 / (mel_f[2:n_mels + 2] - mel_f[:n_mels])
    weights *= enorm[:, np.newaxis]
    return weights


def log_mel(audio, n_mels):
    x = np.zeros(N_SAMPLES, dtype=np.float64)
    x[:min(len(audio), N_SAMPLES)] = audio[:N_SAMPLES]
    x = np.pad(x, (N_FFT // 2, N_FFT // 2), mode='reflect')
    window = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(N_FFT) / N_FFT)  # periodic Hann
    n_frames = 1 + (len(x) - N_FFT) // HOP
    frames = np.lib.stride_tricks.as_strided(x, shape=(n_frames, N_FFT), strides=(x.strides[0] * HOP, x.strides[0]))
    spec = np.fft.rfft(frames * window, axis=1)
    power = (np.abs(spec) ** 2).T[:, :-1]          # [201, 3000]
    mel = mel_filters(n_mels) @ power
    log_spec = np.log10(np.maximum(mel, 1e-10))
    log_spec = np.maximum(log_spec, log_spec.max() - 8.0)
    return ((log_spec + 4.0) / 4.0).astype(np.float32)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    audio = test_signal()
    meta = {"length": LENGTH, "frames_stored": FRAMES, "total_frames": 3000}
    for n_mels in (80, 128):
        feats = log_mel(audio, n_mels)
        assert feats.shape == (n_mels, 3000)
        feats[:, :FRAMES].astype('<f4').tofile(os.path.join(here, f"whisper_logmel_{n_mels}.bin"))
        meta[f"silence_value_{n_mels}"] = float(feats[0, -1])
        meta[f"checksum_all_{n_mels}"] = float(feats.astype(np.float64).sum())
    with open(os.path.join(here, "whisper_logmel.json"), "w") as f:
        json.dump(meta, f, indent=2)
    print(json.dumps(meta))


if __name__ == "__main__":
    main()
