/**
 * Import-time analysis in process: PCM/float WAV (any rate, 1–8 channels, plain or
 * WAVE_FORMAT_EXTENSIBLE) and FLAC (1–2 channels, 4–24 bits) measured without starting
 * ffmpeg, giving exactly the numbers `analyseAudio` gets from ffmpeg's decode of the same
 * file: the mono float32 samples ffmpeg's `-f f32le -ac 1` writes (its sample-format
 * conversions and its default downmix matrix, summed in the same order and precision),
 * its declared duration (printed to the centisecond), codec name and channel count.
 * Files outside those cases, or with anything unusual (a cut-off or streamed WAV
 * header, a speaker mask ffmpeg would map differently, a damaged FLAC frame), get a
 * reason and go to ffmpeg, whose diagnostics then describe them.
 */
import { LevelMeter } from './analyse';
import type { AnalysedAudio } from './decode';
import { decodeFlac, FlacUnsupported, readFlacHeader } from './flac';
import { MONO_MASK, STEREO_MASK, type WavHeader } from './wav';

const S = Math.fround(Math.SQRT1_2);
/**
 * ffmpeg's downmix to mono (libswresample's default matrix, float coefficients) for the
 * channel layout it assumes when a WAV names none: 1 mono, 2 stereo, 3 2.1, 4 4.0, 5 5.0,
 * 6 5.1, 7 6.1, 8 7.1. Zeros are channels it leaves out (LFE). Measured against ffmpeg
 * 4.1 (the bundled build) and 5.1 (Debian's) by the tests, sample for sample.
 */
export const DOWNMIX: readonly (readonly number[])[] = [
  [],
  [1],
  [S, S],
  [S, S, 0],
  [S, S, 1, 0.5],
  [S, S, 1, 0.5, 0.5],
  [S, S, 1, 0, 0.5, 0.5],
  [S, S, 1, 0, 0.5, 0.5, 0.5],
  [S, S, 1, 0, 0.5, 0.5, 0.5, 0.5],
];

/** WAVE_FORMAT_EXTENSIBLE speaker masks of those same layouts (the ones ffmpeg writes): other masks map to other matrices. */
const DEFAULT_MASKS = [0, MONO_MASK, STEREO_MASK, 0xb, 0x107, 0x37, 0x3f, 0x70f, 0x63f];

const WAV_CODECS: Record<string, string> = { 'pcm/8': 'pcm_u8', 'pcm/16': 'pcm_s16le', 'pcm/24': 'pcm_s24le', 'pcm/32': 'pcm_s32le', 'float/32': 'pcm_f32le', 'float/64': 'pcm_f64le' };

export function wavCodecName(h: Pick<WavHeader, 'format' | 'bits'>): string | null {
  return WAV_CODECS[`${h.format}/${h.bits}`] ?? null;
}

/**
 * The duration ffmpeg prints for a stream of `samples` at `rate` ("Duration:
 * HH:MM:SS.cc", microseconds rounded to nearest, then to the centisecond by adding 5 ms
 * and truncating), read back as parseFfmpegInputInfo reads it.
 */
export function ffmpegDeclaredDuration(samples: number, rate: number): number {
  const us = Math.round((samples * 1e6) / rate);
  const d = us + 5000;
  const secs = Math.floor(d / 1e6);
  const centis = Math.floor((100 * (d % 1e6)) / 1e6);
  const h = Math.floor(secs / 3600);
  const m = Math.floor(secs / 60) % 60;
  const s = secs % 60;
  return h * 3600 + m * 60 + Number(`${String(s).padStart(2, '0')}.${String(centis).padStart(2, '0')}`);
}

/** Why this WAV must go to ffmpeg for an exact analysis, or null when it can be read here. */
export function wavAnalysisRefusal(h: WavHeader, fileSize: number): string | null {
  if (h.declaredBytes === null) return 'the data chunk does not declare its size';
  if (h.dataOffset + h.declaredBytes > fileSize) return 'the data chunk is cut off';
  if (h.declaredBytes % h.blockAlign !== 0) return 'the data chunk ends inside a sample frame';
  if (h.channels > 8) return `${h.channels} channels`;
  if (h.channelMask !== null && h.channelMask !== 0 && h.channelMask !== DEFAULT_MASKS[h.channels]) {
    return `speaker mask 0x${h.channelMask.toString(16)}`;
  }
  // ffmpeg mixes 64-bit input in doubles, with coefficients that are products of
  // 1/√2 factors; only mono and stereo (one factor) are reproduced here.
  if (h.format === 'float' && h.bits === 64 && h.channels > 2) return '64-bit float with more than two channels';
  return null;
}

/** Sample `i` of channel `c` of raw interleaved frames, as ffmpeg converts it to float (for f64: the raw double). */
type SampleReader = (i: number, c: number) => number;

function wavReader(buf: Buffer, h: Pick<WavHeader, 'format' | 'bits' | 'blockAlign'>): SampleReader {
  const ba = h.blockAlign;
  const step = h.bits / 8;
  const at = (i: number, c: number) => i * ba + c * step;
  if (h.format === 'float') return h.bits === 32 ? (i, c) => buf.readFloatLE(at(i, c)) : (i, c) => buf.readDoubleLE(at(i, c));
  if (h.bits === 8) return (i, c) => (buf[at(i, c)]! - 128) / 128;
  if (h.bits === 16) return (i, c) => buf.readInt16LE(at(i, c)) / 32768;
  if (h.bits === 24) return (i, c) => buf.readIntLE(at(i, c), 3) / 8388608;
  // ffmpeg rounds the int32 to float first, then scales by 2^-31 (exact).
  return (i, c) => Math.fround(buf.readInt32LE(at(i, c))) / 2147483648;
}

/**
 * Mix frames [start, start + count) to mono into `out`, as ffmpeg does: in float32 (each
 * product and each partial sum rounded), channels in order, the first nonzero product
 * starting the sum; for 64-bit input in doubles, rounded to float at the end.
 */
function mixFrames(read: SampleReader, channels: number, doublePrecision: boolean, start: number, count: number, out: Float32Array): void {
  if (channels === 1) {
    for (let i = 0; i < count; i += 1) out[i] = read(start + i, 0);
    return;
  }
  const coefs = channels === 2 && doublePrecision ? [Math.SQRT1_2, Math.SQRT1_2] : DOWNMIX[channels]!;
  const fr = Math.fround;
  for (let i = 0; i < count; i += 1) {
    let v = 0;
    let started = false;
    for (let c = 0; c < channels; c += 1) {
      const k = coefs[c]!;
      if (k === 0) continue;
      const p = doublePrecision ? read(start + i, c) * k : fr(fr(read(start + i, c)) * k);
      v = started ? (doublePrecision ? v + p : fr(v + p)) : p;
      started = true;
    }
    out[i] = v;
  }
}

const BLOCK = 65536;

/**
 * A WAV's data measured as it arrives (whole sample frames at a time, in order); the
 * header must have passed wavAnalysisRefusal.
 */
export class WavMeter {
  private readonly meter = new LevelMeter();
  private readonly scratch = new Float32Array(BLOCK);
  private frames = 0;
  constructor(private readonly h: WavHeader) {}

  /** Raw interleaved bytes holding whole frames. */
  push(raw: Buffer): void {
    const h = this.h;
    const frames = Math.floor(raw.length / h.blockAlign);
    const scratch = this.scratch;
    if (h.format === 'pcm' && h.bits === 16 && h.channels === 1 && raw.byteOffset % 2 === 0) {
      // The common case (16-bit mono) through a typed view: the same values, several times faster.
      const v = new Int16Array(raw.buffer, raw.byteOffset, frames);
      for (let s = 0; s < frames; s += BLOCK) {
        const n = Math.min(BLOCK, frames - s);
        for (let i = 0; i < n; i += 1) scratch[i] = v[s + i]! / 32768;
        this.meter.push(scratch.subarray(0, n));
      }
    } else {
      const read = wavReader(raw, h);
      const dbl = h.format === 'float' && h.bits === 64;
      for (let s = 0; s < frames; s += BLOCK) {
        const n = Math.min(BLOCK, frames - s);
        mixFrames(read, h.channels, dbl, s, n, scratch);
        this.meter.push(scratch.subarray(0, n));
      }
    }
    this.frames += frames;
  }

  result(): AnalysedAudio {
    const h = this.h;
    return {
      sampleRate: h.sampleRate,
      durationS: this.frames / h.sampleRate,
      samples: this.frames,
      levels: this.meter.result(),
      source: { codec: wavCodecName(h), sampleRate: h.sampleRate, channels: h.channels, declaredDurationS: ffmpegDeclaredDuration(h.declaredBytes! / h.blockAlign, h.sampleRate) },
      warnings: [],
      damaged: null,
    };
  }
}

/** Measure a WAV held in memory (the whole file in `buf`); the header must have passed wavAnalysisRefusal. */
export function analyseWavBuffer(buf: Buffer, h: WavHeader): AnalysedAudio {
  const m = new WavMeter(h);
  m.push(buf.subarray(h.dataOffset, h.dataOffset + h.presentBytes - (h.presentBytes % h.blockAlign)));
  return m.result();
}

/** Measure a FLAC file held in memory, or throw FlacUnsupported (then ffmpeg measures it). */
export function analyseFlacBuffer(buf: Uint8Array): AnalysedAudio {
  const { info: head } = readFlacHeader(buf);
  if (head.channels > 2) throw new FlacUnsupported(`${head.channels} channels`);
  // ffmpeg's FLAC decoder gives s16 (or s32 shifted to the top) and converts to float
  // by a power of two: exactly x / 2^(bits − 1) for up to 24 bits.
  const scale = 1 / 2 ** (head.bitsPerSample - 1);
  const meter = new LevelMeter();
  const scratch = new Float32Array(Math.max(head.maxBlockSize, 16));
  const stereo = head.channels === 2;
  const counted = { frames: 0 };
  const info = decodeFlac(buf, (frame) => {
    const n = frame.blockSize;
    const out = scratch.length >= n ? scratch : new Float32Array(n);
    if (stereo) mixStereoInts(frame.channels[0]!, frame.channels[1]!, scale, n, out);
    else {
      const a = frame.channels[0]!;
      for (let i = 0; i < n; i += 1) out[i] = a[i]! * scale;
    }
    meter.push(out.subarray(0, n));
    counted.frames += n;
  });
  const frames = counted.frames;
  return {
    sampleRate: info.sampleRate,
    durationS: frames / info.sampleRate,
    samples: frames,
    levels: meter.result(),
    source: { codec: 'flac', sampleRate: info.sampleRate, channels: info.channels, declaredDurationS: ffmpegDeclaredDuration(info.totalSamples, info.sampleRate) },
    warnings: [],
    damaged: null,
  };
}

/** ffmpeg's stereo downmix of integer samples scaled to float: (L·s) + (R·s), each step in float32. */
function mixStereoInts(a: Int32Array, b: Int32Array, scale: number, n: number, out: Float32Array): void {
  const fr = Math.fround;
  for (let i = 0; i < n; i += 1) out[i] = fr(fr(a[i]! * scale) * S) + fr(fr(b[i]! * scale) * S);
}
