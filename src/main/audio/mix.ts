/**
 * From a recording's channels to the one channel the models hear, and what the samples
 * themselves say about the file. One rule for every path (the WAV and FLAC readers in
 * process, ffmpeg's decode at the file's own rate for import and at 16 kHz for the
 * models): the mono signal is the plain average of all channels. An average never
 * exceeds the loudest channel, so mixing keeps the source's peak. ffmpeg's own `-ac 1`
 * does not: its matrix for float output is not normalised (a 7.1 layout sums to 4.41 ×
 * one channel, stereo to 1.41 ×), so a 0.3-peak 8-channel file reached the models at
 * 1.32 and was called clipped. Speech recordings with many channels are mostly
 * microphone arrays, not surround mixes, so no channel is treated as centre or LFE.
 *
 * The checks run on each channel's samples as the file holds them (converted to
 * float32), before mixing: NaN and ±Inf, values far beyond full scale, and clipping
 * (runs of samples at full scale in any channel; a mix can hide a clipped channel or,
 * with ffmpeg's matrix, invent one).
 */
import { LevelMeter, type LevelStats } from './analyse';

/**
 * A float sample whose magnitude is above this (40 dB over full scale) is not audio a
 * microphone chain produced: typically integer sample values written into a float file.
 */
export const FAR_BEYOND_FULL_SCALE = 100;

/** At most this many channels are mixed (ffmpeg's resampler takes no more); a file with more is refused. */
export const MAX_CHANNELS = 64;

/** What the samples of a file are, counted over every channel's samples. */
export interface SampleChecks {
  /** Channel samples looked at (frames × channels). */
  values: number;
  nan: number;
  /** +Inf and −Inf. */
  infinite: number;
  /** Finite samples with magnitude above FAR_BEYOND_FULL_SCALE. */
  farBeyondFullScale: number;
  /** The largest finite magnitude seen. */
  largest: number;
}

export function noSampleProblems(values = 0): SampleChecks {
  return { values, nan: 0, infinite: 0, farBeyondFullScale: 0, largest: 0 };
}

/**
 * Average `frames` interleaved frames of `channels` channels into `out` (float32): the sum
 * of the channels' float32 values in channel order, in double precision, divided by the
 * channel count, rounded once to float32. NaN and ±Inf pass through as arithmetic has them.
 */
export function mixToMono(interleaved: Float32Array, channels: number, frames: number, out: Float32Array): Float32Array {
  if (channels === 1) {
    out.set(interleaved.subarray(0, frames));
    return out;
  }
  for (let i = 0, k = 0; i < frames; i += 1) {
    let s = 0;
    for (let c = 0; c < channels; c += 1, k += 1) s += interleaved[k]!;
    out[i] = s / channels;
  }
  return out;
}

/**
 * Measures a recording as its frames arrive (interleaved float32, whole frames): the
 * checks and clipping per channel, RMS and peak of the averaged mono signal (over its
 * finite samples).
 */
export class SourceMeter {
  private readonly mono = new LevelMeter();
  private readonly runs: Int32Array;
  private clipped = 0;
  private mixed = new Float32Array(0);
  private frames = 0;
  private readonly checks = noSampleProblems();

  constructor(
    readonly channels: number,
    private readonly clipLevel = 0.99,
  ) {
    this.runs = new Int32Array(channels);
  }

  /** `frames` frames from the start of `interleaved` (all of it by default). */
  push(interleaved: Float32Array, frames = Math.floor(interleaved.length / this.channels)): void {
    const ch = this.channels;
    const runs = this.runs;
    const clipLevel = this.clipLevel;
    const c0 = this.checks;
    let { nan, infinite, farBeyondFullScale, largest } = c0;
    let clipped = this.clipped;
    const n = frames * ch;
    for (let k = 0, c = 0; k < n; k += 1) {
      const v = interleaved[k]!;
      const a = v < 0 ? -v : v;
      if (a <= FAR_BEYOND_FULL_SCALE) {
        if (a > largest) largest = a;
        if (a >= clipLevel) runs[c] += 1;
        else {
          if (runs[c]! >= 3) clipped += runs[c]!;
          runs[c] = 0;
        }
      } else {
        // Not audio: counted, and it ends any run of clipped samples.
        if (v !== v) nan += 1;
        else if (a === Infinity) infinite += 1;
        else {
          farBeyondFullScale += 1;
          if (a > largest) largest = a;
        }
        if (runs[c]! >= 3) clipped += runs[c]!;
        runs[c] = 0;
      }
      c = c + 1 === ch ? 0 : c + 1;
    }
    Object.assign(c0, { values: c0.values + n, nan, infinite, farBeyondFullScale, largest });
    this.clipped = clipped;
    if (ch === 1) this.mono.push(interleaved.subarray(0, frames));
    else {
      if (this.mixed.length < frames) this.mixed = new Float32Array(frames);
      this.mono.push(mixToMono(interleaved, ch, frames, this.mixed).subarray(0, frames));
    }
    this.frames += frames;
  }

  get frameCount(): number {
    return this.frames;
  }

  result(): { levels: LevelStats; checks: SampleChecks } {
    let clipped = this.clipped;
    for (const r of this.runs) if (r >= 3) clipped += r;
    const values = this.frames * this.channels;
    const mono = this.mono.result();
    return { levels: { rms: mono.rms, peak: mono.peak, clippedFraction: values ? clipped / values : 0 }, checks: { ...this.checks } };
  }
}
