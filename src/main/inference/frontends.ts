/**
 * Front ends: what turns 16 kHz mono float32 audio into a model's input. Each is a pure
 * function with its own tests (METHODS.md, Embeddings).
 */

export const SAMPLE_RATE = 16000;
/** Whisper's fixed window: 30 s. */
export const WHISPER_SAMPLES = 480000;
export const WHISPER_FRAMES = 3000;
const N_FFT = 400;
const HOP = 160;

/**
 * Zero-mean, unit-variance normalisation per clip, as Wav2Vec2FeatureExtractor does
 * when do_normalize is set: (x - mean) / sqrt(var + 1e-7), population variance.
 */
export function normalizeWaveform(x: Float32Array): Float32Array {
  let mean = 0;
  for (let i = 0; i < x.length; i += 1) mean += x[i]!;
  mean /= Math.max(1, x.length);
  let v = 0;
  for (let i = 0; i < x.length; i += 1) v += (x[i]! - mean) ** 2;
  v /= Math.max(1, x.length);
  const inv = 1 / Math.sqrt(v + 1e-7);
  const out = new Float32Array(x.length);
  for (let i = 0; i < x.length; i += 1) out[i] = (x[i]! - mean) * inv;
  return out;
}

/**
 * The chunking rule for long clips: consecutive chunks of at most `max` samples (30 s);
 * a final remainder shorter than `minLast` (1 s) is merged into the chunk before it,
 * so no chunk is too short to give frames. Chunks' frames are concatenated before
 * temporal aggregation; normalisation (do_normalize) is applied to the whole clip first.
 * Whisper encoders use minLast = 0 (each chunk is padded to 30 s anyway).
 */
export function chunkRanges(length: number, max = WHISPER_SAMPLES, minLast = SAMPLE_RATE): [number, number][] {
  if (length <= max) return [[0, length]];
  const out: [number, number][] = [];
  for (let s = 0; s < length; s += max) out.push([s, Math.min(length, s + max)]);
  const last = out[out.length - 1]!;
  if (out.length > 1 && last[1] - last[0] < minLast) {
    out.pop();
    out[out.length - 1]![1] = last[1];
  }
  return out;
}

/** Whisper encoder frames that cover `samples` of audio: ceil(samples / 320), at most 1500. */
export function whisperFramesFor(samples: number): number {
  return Math.max(1, Math.min(1500, Math.ceil(samples / 320)));
}

// ---------------------------------------------------------------------------------------
// Mel filters (Slaney scale and normalisation, as librosa with htk=False, norm='slaney').

function hzToMel(f: number): number {
  const fSp = 200 / 3;
  const minLogHz = 1000;
  const minLogMel = minLogHz / fSp;
  const logstep = Math.log(6.4) / 27;
  return f >= minLogHz ? minLogMel + Math.log(f / minLogHz) / logstep : f / fSp;
}

function melToHz(m: number): number {
  const fSp = 200 / 3;
  const minLogHz = 1000;
  const minLogMel = minLogHz / fSp;
  const logstep = Math.log(6.4) / 27;
  return m >= minLogMel ? minLogHz * Math.exp(logstep * (m - minLogMel)) : fSp * m;
}

const filterCache = new Map<string, Float64Array>();

/** [nMels, nFft/2+1] row-major; fMax defaults to Nyquist. */
export function slaneyMelFilters(nMels: number, nFft = N_FFT, sr = SAMPLE_RATE, fMin = 0, fMax = sr / 2): Float64Array {
  const key = `${nMels}/${nFft}/${sr}/${fMin}/${fMax}`;
  const hit = filterCache.get(key);
  if (hit) return hit;
  const bins = nFft / 2 + 1;
  const fft = Array.from({ length: bins }, (_, i) => (i * sr) / nFft);
  const mMin = hzToMel(fMin);
  const mMax = hzToMel(fMax);
  const melF = Array.from({ length: nMels + 2 }, (_, i) => melToHz(mMin + ((mMax - mMin) * i) / (nMels + 1)));
  const w = new Float64Array(nMels * bins);
  for (let i = 0; i < nMels; i += 1) {
    const d0 = melF[i + 1]! - melF[i]!;
    const d1 = melF[i + 2]! - melF[i + 1]!;
    const enorm = 2 / (melF[i + 2]! - melF[i]!);
    for (let k = 0; k < bins; k += 1) {
      const lower = (fft[k]! - melF[i]!) / d0;
      const upper = (melF[i + 2]! - fft[k]!) / d1;
      w[i * bins + k] = Math.max(0, Math.min(lower, upper)) * enorm;
    }
  }
  filterCache.set(key, w);
  return w;
}

// ---------------------------------------------------------------------------------------
// A mixed-radix FFT: n_fft 400 = 5·5·4·4 is no power of two.

class Fft {
  private readonly cos: Float64Array;
  private readonly sin: Float64Array;
  private readonly factors: number[];
  private readonly tmpRe: Float64Array;
  private readonly tmpIm: Float64Array;
  constructor(readonly n: number) {
    this.cos = new Float64Array(n);
    this.sin = new Float64Array(n);
    for (let k = 0; k < n; k += 1) {
      this.cos[k] = Math.cos((2 * Math.PI * k) / n);
      this.sin[k] = -Math.sin((2 * Math.PI * k) / n);
    }
    this.factors = [];
    let m = n;
    for (const p of [4, 5, 3, 2]) while (m % p === 0) {
      this.factors.push(p);
      m /= p;
    }
    if (m !== 1) throw new Error(`FFT size ${n} has a prime factor above 5`);
    this.tmpRe = new Float64Array(8);
    this.tmpIm = new Float64Array(8);
  }

  /** Forward DFT of a real input; writes n complex outputs. */
  real(input: Float64Array, outRe: Float64Array, outIm: Float64Array): void {
    this.rec(input, 0, 1, this.n, outRe, outIm, 0, 0);
  }

  private rec(x: Float64Array, off: number, stride: number, n: number, oRe: Float64Array, oIm: Float64Array, oOff: number, fi: number): void {
    if (n === 1) {
      oRe[oOff] = x[off]!;
      oIm[oOff] = 0;
      return;
    }
    const p = this.factors[fi]!;
    const m = n / p;
    for (let q = 0; q < p; q += 1) this.rec(x, off + q * stride, stride * p, m, oRe, oIm, oOff + q * m, fi + 1);
    const step = this.n / n;
    const tr = this.tmpRe;
    const ti = this.tmpIm;
    for (let k = 0; k < m; k += 1) {
      // Gather the p sub-results for this k, twiddled by W_n^{q k}.
      for (let q = 0; q < p; q += 1) {
        const idx = oOff + q * m + k;
        const e = (q * k * step) % this.n;
        const c = this.cos[e]!;
        const s = this.sin[e]!;
        const r = oRe[idx]!;
        const i = oIm[idx]!;
        tr[q] = r * c - i * s;
        ti[q] = r * s + i * c;
      }
      for (let j = 0; j < p; j += 1) {
        let sr = 0;
        let si = 0;
        for (let q = 0; q < p; q += 1) {
          const e = ((q * j) % p) * (this.n / p);
          const c = this.cos[e]!;
          const s = this.sin[e]!;
          sr += tr[q]! * c - ti[q]! * s;
          si += tr[q]! * s + ti[q]! * c;
        }
        oRe[oOff + j * m + k] = sr;
        oIm[oOff + j * m + k] = si;
      }
    }
  }
}

let fft400: Fft | undefined;
let hann400: Float64Array | undefined;

/**
 * Whisper log-mel features of up to 30 s of audio, [nMels, 3000] row-major, exactly as
 * WhisperFeatureExtractor / openai-whisper: zero-pad to 480000 samples, centred STFT
 * (reflect padding), n_fft 400, hop 160, periodic Hann, power spectrum with the last
 * frame dropped, Slaney mel filters, log10 clamped at 1e-10, max(x, max-8), (x+4)/4.
 * Frames lying wholly in the zero padding are all-silent and are filled without an FFT.
 */
export function whisperLogMel(audio: Float32Array, nMels: 80 | 128 = 80): Float32Array {
  const len = Math.min(audio.length, WHISPER_SAMPLES);
  const half = N_FFT / 2;
  // The signal zero-padded to 480000 samples, then reflect-padded by 200 on each side:
  // padded[j] = x[reflect(j - 200)], with x zero beyond the audio.
  const at = (j: number): number => {
    let i = j - half;
    if (i < 0) i = -i;
    else if (i >= WHISPER_SAMPLES) i = 2 * (WHISPER_SAMPLES - 1) - i;
    return i < len ? audio[i]! : 0;
  };
  fft400 ??= new Fft(N_FFT);
  if (!hann400) {
    hann400 = new Float64Array(N_FFT);
    for (let i = 0; i < N_FFT; i += 1) hann400[i] = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / N_FFT);
  }
  const bins = N_FFT / 2 + 1;
  const filters = slaneyMelFilters(nMels);
  // Each triangular filter is non-zero over a few bins only: sum over that range.
  const lo = new Int32Array(nMels);
  const hi = new Int32Array(nMels);
  for (let m = 0; m < nMels; m += 1) {
    let a = 0;
    while (a < bins && filters[m * bins + a] === 0) a += 1;
    let b = bins;
    while (b > a && filters[m * bins + b - 1] === 0) b -= 1;
    lo[m] = a;
    hi[m] = b;
  }
  // Frames starting at or beyond len + 200 in padded coordinates see only zeros (unless the
  // clip fills the whole window, when the right reflection also carries signal): their mel
  // energy is 0, i.e. log10(1e-10) = -10 before the max-8 floor. No FFT is needed for them.
  const active = len >= WHISPER_SAMPLES - half ? WHISPER_FRAMES : Math.min(WHISPER_FRAMES, Math.ceil((len + half) / HOP));
  const logMel = new Float64Array(nMels * active);
  const frame = new Float64Array(N_FFT);
  const re = new Float64Array(N_FFT);
  const im = new Float64Array(N_FFT);
  const power = new Float64Array(bins);
  let max = active < WHISPER_FRAMES ? -10 : -Infinity;
  for (let t = 0; t < active; t += 1) {
    const start = t * HOP;
    for (let i = 0; i < N_FFT; i += 1) frame[i] = at(start + i) * hann400[i]!;
    fft400.real(frame, re, im);
    for (let k = 0; k < bins; k += 1) power[k] = re[k]! * re[k]! + im[k]! * im[k]!;
    for (let m = 0; m < nMels; m += 1) {
      let s = 0;
      const row = m * bins;
      for (let k = lo[m]!; k < hi[m]!; k += 1) s += filters[row + k]! * power[k]!;
      const v = Math.log10(Math.max(s, 1e-10));
      logMel[m * active + t] = v;
      if (v > max) max = v;
    }
  }
  const floor = max - 8;
  const out = new Float32Array(nMels * WHISPER_FRAMES);
  const silent = (Math.max(-10, floor) + 4) / 4;
  for (let m = 0; m < nMels; m += 1) {
    const o = m * WHISPER_FRAMES;
    for (let t = 0; t < active; t += 1) out[o + t] = (Math.max(logMel[m * active + t]!, floor) + 4) / 4;
    out.fill(silent, o + active, o + WHISPER_FRAMES);
  }
  return out;
}

/** The test signal of test/golden/whisper_logmel.py, recomputed here. */
export function goldenTestSignal(length = 24000): Float32Array {
  const out = new Float32Array(length);
  for (let n = 0; n < length; n += 1) {
    const t = n / SAMPLE_RATE;
    out[n] =
      0.5 * Math.sin(2 * Math.PI * 440 * t) +
      0.25 * Math.sin(2 * Math.PI * 1234.5 * t + 0.3) +
      0.1 * Math.sin(2 * Math.PI * 3000 * t) * Math.cos(2 * Math.PI * 3 * t) +
      0.05 * Math.sin(2 * Math.PI * 7000 * t * t);
  }
  return out;
}
