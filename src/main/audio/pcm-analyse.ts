/**
 * Import-time analysis in process: PCM/float WAV (any rate, 1–8 channels, plain or
 * WAVE_FORMAT_EXTENSIBLE) and FLAC (1–2 channels, 4–24 bits) measured without starting
 * ffmpeg, giving exactly the numbers `analyseAudio` gets from ffmpeg's decode of the same
 * file: each channel's samples converted to float32 as ffmpeg converts them, measured and
 * averaged to mono by the same code (audio/mix.ts), its declared duration (printed to the
 * centisecond), codec name and channel count. Files outside those cases, or with anything
 * unusual (a cut-off or streamed WAV header, a damaged FLAC frame), get a reason and go
 * to ffmpeg, whose diagnostics then describe them.
 */
import type { AnalysedAudio } from './decode';
import { decodeFlac, FlacUnsupported, readFlacHeader } from './flac';
import { SourceMeter } from './mix';
import type { WavHeader } from './wav';

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

const BLOCK = 65536;

/**
 * A WAV's data measured as it arrives (whole sample frames at a time, in order); the
 * header must have passed wavAnalysisRefusal.
 */
export class WavMeter {
  private readonly meter: SourceMeter;
  private readonly scratch: Float32Array;
  private frames = 0;
  constructor(private readonly h: WavHeader) {
    this.meter = new SourceMeter(h.channels);
    this.scratch = new Float32Array(BLOCK * h.channels);
  }

  /** Raw interleaved bytes holding whole frames. */
  push(raw: Buffer): void {
    const h = this.h;
    const frames = Math.floor(raw.length / h.blockAlign);
    const scratch = this.scratch;
    const ch = h.channels;
    if (h.format === 'pcm' && h.bits === 16 && raw.byteOffset % 2 === 0) {
      // The common case (16-bit) through a typed view: the same values, several times faster.
      const v = new Int16Array(raw.buffer, raw.byteOffset, frames * ch);
      for (let s = 0; s < frames; s += BLOCK) {
        const n = Math.min(BLOCK, frames - s);
        const base = s * ch;
        for (let i = 0; i < n * ch; i += 1) scratch[i] = v[base + i]! / 32768;
        this.meter.push(scratch, n);
      }
    } else {
      const read = wavReader(raw, h);
      for (let s = 0; s < frames; s += BLOCK) {
        const n = Math.min(BLOCK, frames - s);
        // Stored in a Float32Array: each value rounded to float32, as ffmpeg's f32 output has it.
        for (let i = 0, k = 0; i < n; i += 1) for (let c = 0; c < ch; c += 1, k += 1) scratch[k] = read(s + i, c);
        this.meter.push(scratch, n);
      }
    }
    this.frames += frames;
  }

  result(): AnalysedAudio {
    const h = this.h;
    const { levels, checks } = this.meter.result();
    return {
      sampleRate: h.sampleRate,
      durationS: this.frames / h.sampleRate,
      samples: this.frames,
      levels,
      checks,
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
  const ch = head.channels;
  const meter = new SourceMeter(ch);
  let scratch = new Float32Array(Math.max(head.maxBlockSize, 16) * ch);
  const counted = { frames: 0 };
  const info = decodeFlac(buf, (frame) => {
    const n = frame.blockSize;
    if (scratch.length < n * ch) scratch = new Float32Array(n * ch);
    for (let c = 0; c < ch; c += 1) {
      const a = frame.channels[c]!;
      for (let i = 0; i < n; i += 1) scratch[i * ch + c] = a[i]! * scale;
    }
    meter.push(scratch, n);
    counted.frames += n;
  });
  const frames = counted.frames;
  return {
    sampleRate: info.sampleRate,
    durationS: frames / info.sampleRate,
    samples: frames,
    ...meter.result(),
    source: { codec: 'flac', sampleRate: info.sampleRate, channels: info.channels, declaredDurationS: ffmpegDeclaredDuration(info.totalSamples, info.sampleRate) },
    warnings: [],
    damaged: null,
  };
}
