/**
 * What the samples of a file say (issue 33 item 6): ±Inf and NaN are counted and named,
 * float values far beyond full scale are found, and mixing channels and resampling keep
 * the source's peak. Every file is written by scipy (numpy_audio.py), and every expected
 * figure comes from numpy reading the same file; ffmpeg's own `-ac 1` is measured too, to
 * show the gain its matrix adds.
 */
import { execFileSync } from 'node:child_process';
import { basename, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeAudio, levelStats } from '../../../src/main/audio';
import { analyseFile, type FileAnalysis } from '../../../src/main/audio/analyse-file';
import type { AnalysedAudio } from '../../../src/main/audio/decode';
import { audioIssues, DEFAULT_LIMITS } from '../../../src/main/data/validate';
import { tempDir } from '../inference/helpers';
import { numpyFloatWavs, numpyMix, type NumpyFacts } from './numpy-audio';

let dir: string;
/** numpy's facts of each file scipy wrote, by name. */
let ref: Record<string, NumpyFacts>;
const at = (name: string) => join(dir, name);
beforeAll(() => {
  dir = tempDir('samples');
  const written = numpyFloatWavs({
    [at('inf.wav')]: { rate: 16000, channels: 1, seconds: 1, amplitudes: [0.5], inf: 17 },
    [at('nan.wav')]: { rate: 22050, channels: 2, seconds: 0.5, amplitudes: [0.5], nan: 'all' },
    [at('some-nan.wav')]: { rate: 16000, channels: 1, seconds: 1, amplitudes: [0.4], nan: 3 },
    [at('int-as-float.wav')]: { rate: 16000, channels: 1, seconds: 1, amplitudes: [0.5], scale: 32767 },
    // A microphone array: the same tone at different levels in each channel, the loudest at 0.3.
    [at('array8.wav')]: { rate: 384000, channels: 8, seconds: 0.5, amplitudes: [0.3, 0.25, 0.3, 0.1, 0.2, 0.3, 0.2, 0.3] },
    [at('same8.wav')]: { rate: 384000, channels: 8, seconds: 0.2, amplitudes: [0.3] },
    [at('c65.wav')]: { rate: 16000, channels: 65, seconds: 0.1, amplitudes: [0.2] },
  });
  ref = Object.fromEntries(Object.entries(written).map(([f, v]) => [basename(f), v]));
});

function audio(a: FileAnalysis): AnalysedAudio {
  if (a.audio instanceof Error) throw a.audio;
  return a.audio;
}

/** Measured in process and by ffmpeg: both must agree, and are returned in that order. */
async function bothWays(file: string): Promise<[AnalysedAudio, AnalysedAudio]> {
  const ours = await analyseFile(file);
  expect(ours.via).toBe('wav');
  const ff = await analyseFile(file, { forceFfmpeg: true });
  expect(ff.via).toBe('ffmpeg');
  const [a, b] = [audio(ours), audio(ff)];
  expect({ levels: a.levels, checks: a.checks, samples: a.samples }).toEqual({ levels: b.levels, checks: b.checks, samples: b.samples });
  return [a, b];
}

const issuesOf = (a: AnalysedAudio) =>
  audioIssues({ durationS: a.durationS, declaredDurationS: a.source.declaredDurationS, sampleRate: a.source.sampleRate, channels: a.source.channels, damaged: a.damaged, ...a.levels, checks: a.checks }, DEFAULT_LIMITS);

describe('samples that are not sound', () => {
  it('counts ±Inf samples in a float WAV and names the count', async () => {
    const file = at('inf.wav');
    const r = ref['inf.wav']!;
    expect(r.inf).toBe(17);
    const [a] = await bothWays(file);
    expect(a.checks).toMatchObject({ values: 16000, infinite: r.inf, nan: 0, farBeyondFullScale: 0 });
    // Levels are over the finite samples: the tone's own.
    expect(a.levels.peak).toBe(r.largest);
    const issues = issuesOf(a);
    expect(issues.map((i) => i.code)).toEqual(['non_finite']);
    expect(issues[0]!.severity).toBe('error');
    expect(issues[0]!.message).toMatch(/^17 samples are infinite \(of 16,000 samples\)/);
  });

  it('calls a NaN file NaN, not silent, also with two channels', async () => {
    const file = at('nan.wav');
    expect(ref['nan.wav']!.nan).toBe(22050);
    const [a] = await bothWays(file);
    expect(a.checks.nan).toBe(ref['nan.wav']!.nan);
    const issues = issuesOf(a);
    expect(issues.map((i) => i.code)).toEqual(['non_finite', 'downmixed']);
    expect(issues[0]!.message).toMatch(/^22,050 samples are not a number \(NaN\) \(every sample\)/);
    expect(issues.map((i) => i.message).join(' ')).not.toMatch(/silent|dBFS/);
  });

  it('counts some NaN and some infinite samples in one file', async () => {
    const [a] = await bothWays(at('some-nan.wav'));
    expect(a.checks.nan).toBe(ref['some-nan.wav']!.nan);
    expect(a.checks.nan).toBe(3);
    expect(issuesOf(a)[0]!.message).toMatch(/^3 samples are not a number \(NaN\) \(of 16,000 samples\)/);
  });

  it('finds float values far beyond full scale (integers written as floats)', async () => {
    const [a] = await bothWays(at('int-as-float.wav'));
    expect(a.checks.largest).toBe(ref['int-as-float.wav']!.largest);
    const issues = issuesOf(a);
    expect(issues[0]!.code).toBe('out_of_range');
    expect(issues[0]!.severity).toBe('error');
    expect(issues[0]!.message).toMatch(/samples are far beyond full scale \(the largest is 1\.64e\+4/);
  });
});

describe('mixing channels and resampling keep the source’s peak', () => {
  it('a 384 kHz 8-channel float file: the measured and the decoded peak are numpy’s, with no clipping', async () => {
    const file = at('array8.wav');
    const r = ref['array8.wav']!;
    expect(Math.max(...r.channelPeaks)).toBeCloseTo(0.3, 6);
    const [a] = await bothWays(file);
    // The channels' average at the file's own rate, exactly as numpy computes it.
    expect(a.levels.peak).toBe(r.peakOfMean);
    expect(a.levels.rms).toBeCloseTo(r.rmsOfMean, 12);
    expect(a.levels.clippedFraction).toBe(0);
    expect(issuesOf(a).map((i) => i.code)).toEqual(['downmixed']);
    // What the models get: 16 kHz, the same average of ffmpeg's per-channel resampling.
    const d = await decodeAudio(file);
    const perChannel = execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-nostdin', '-i', file, '-f', 'f32le', '-ar', '16000', '-'], { maxBuffer: 1 << 28 });
    const mixed = numpyMix(perChannel, 8);
    expect(Buffer.from(d.samples.buffer, d.samples.byteOffset, d.samples.byteLength).equals(mixed)).toBe(true);
    const decodedPeak = levelStats(d.samples).peak;
    expect(decodedPeak / r.peakOfMean).toBeCloseTo(1, 3);
    expect(decodedPeak).toBeLessThan(Math.max(...r.channelPeaks));
    // ffmpeg's own `-ac 1` (what Equivox used before) adds the 7.1 matrix's gain: 0.3 became 1.32.
    const same = at('same8.wav');
    const ac1 = execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-nostdin', '-i', same, '-f', 'f32le', '-ac', '1', '-ar', '16000', '-'], { maxBuffer: 1 << 26 });
    const ac1Peak = levelStats(new Float32Array(ac1.buffer.slice(ac1.byteOffset, ac1.byteOffset + ac1.byteLength))).peak;
    expect(ac1Peak).toBeGreaterThan(1.3);
    const [s] = await bothWays(same);
    expect(s.levels.peak).toBeCloseTo(0.3, 6);
    expect(levelStats((await decodeAudio(same)).samples).peak).toBeCloseTo(0.3, 3);
  });

  it('clipping is judged per channel: a clipped channel is found under a quiet one, a loud mix is not called clipped', async () => {
    // Channel 0 a tone at 4 × full scale cut to ±1 (clipped), channel 1 silence: the average peaks at 0.5.
    const file = at('one-clipped.wav');
    execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', 'aevalsrc=min(1\\,max(-1\\,4*sin(2*PI*200*t)))|0:s=16000:d=0.5', '-c:a', 'pcm_s16le', file]);
    const [a] = await bothWays(file);
    expect(a.levels.peak).toBeLessThanOrEqual(0.5);
    expect(a.levels.clippedFraction).toBeGreaterThan(0.2);
    expect(issuesOf(a).map((i) => i.code)).toContain('clipped');
  });

  it('refuses a file with more channels than can be mixed, naming the count', async () => {
    const file = at('c65.wav');
    expect(ref['c65.wav']!.channels).toBe(65);
    const a = await analyseFile(file);
    expect(a.audio).toBeInstanceOf(Error);
    expect((a.audio as Error).message).toMatch(/65 channels: Equivox mixes at most 64 channels to mono/);
    await expect(decodeAudio(file)).rejects.toThrow(/65 channels/);
  });
});
