/** The tests' way to numpy_audio.py: an independent reference (numpy, scipy) for samples, levels and channel averages. */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const SCRIPT = join(__dirname, 'numpy_audio.py');

export interface NumpyFacts {
  rate: number;
  channels: number;
  frames: number;
  inf: number;
  nan: number;
  largest: number;
  channelPeaks: number[];
  peakOfMean: number;
  rmsOfMean: number;
}

/** What numpy reads in a WAV file (scipy.io.wavfile). */
export function numpyFacts(file: string): NumpyFacts {
  return JSON.parse(execFileSync('python3', [SCRIPT, 'facts', file], { encoding: 'utf8' })) as NumpyFacts;
}

/**
 * A float32 WAV written by scipy.io.wavfile: a 440 Hz tone, channel c at amplitudes[c] (× scale),
 * with `inf` samples set to ±Inf and `nan` to NaN ('all': every one). Returns numpy's facts of it.
 */
export function numpyFloatWav(file: string, o: FloatWavSpec): NumpyFacts {
  const args = [SCRIPT, 'tone', file, String(o.rate), String(o.channels), String(o.seconds), o.amplitudes.join(',')];
  if (o.inf !== undefined) args.push('--inf', String(o.inf));
  if (o.nan !== undefined) args.push('--nan', String(o.nan));
  if (o.scale !== undefined) args.push('--scale', String(o.scale));
  return JSON.parse(execFileSync('python3', args, { encoding: 'utf8' })) as NumpyFacts;
}

export interface FloatWavSpec {
  rate: number;
  channels: number;
  seconds: number;
  amplitudes: number[];
  inf?: number;
  nan?: number | 'all';
  scale?: number;
}

/** Several numpyFloatWav files in one python run (scipy loads once): facts by file. */
export function numpyFloatWavs(specs: Record<string, FloatWavSpec>): Record<string, NumpyFacts> {
  const files = Object.keys(specs);
  const out = JSON.parse(execFileSync('python3', [SCRIPT, 'batch'], { input: JSON.stringify(files.map((f) => ({ out: f, ...specs[f] }))), encoding: 'utf8' })) as NumpyFacts[];
  return Object.fromEntries(files.map((f, i) => [f, out[i]!]));
}

/** Raw interleaved float32 frames averaged over `channels` by numpy. */
export function numpyMix(interleaved: Buffer, channels: number): Buffer {
  return execFileSync('python3', [SCRIPT, 'mix', String(channels)], { input: interleaved, maxBuffer: 1 << 28 });
}
