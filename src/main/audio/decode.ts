/**
 * Decoding through ffmpeg. A direct `spawn` rather than fluent-ffmpeg: that package is
 * archived upstream and only builds the same argument list we write here, while hiding
 * the child process we need for cancellation and for reading stderr.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { closeSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { CancelledError, UserError } from '../../shared/errors';
import { findFfmpeg } from '../ffmpeg';
import type { LevelStats } from './analyse';
import { ffmpegInputArgs, refusedInputReason, whitelistRefusal } from './ffmpeg-input';
import { MAX_CHANNELS, mixToMono, SourceMeter, type SampleChecks } from './mix';
import { wavCodecName } from './pcm-analyse';
import { openWav, parseWavHeader, readWavBlock } from './wav';

export const TARGET_SAMPLE_RATE = 16000;

/** What the source file declares, read from ffmpeg's description of its first audio stream. */
export interface SourceInfo {
  codec: string | null;
  sampleRate: number | null;
  channels: number | null;
  /** Duration the container declares (null when it declares none). */
  declaredDurationS: number | null;
}

export interface DecodedAudio {
  /** 16 kHz mono float32 in [-1, 1] (resampling can overshoot slightly): the average of the file's channels (audio/mix.ts). */
  samples: Float32Array;
  sampleRate: number;
  durationS: number;
  source: SourceInfo;
  /** ffmpeg's warnings/errors (stderr lines at level warning or above), for diagnostics. */
  warnings: string[];
  /** ffmpeg reported corrupt or truncated data while decoding (the samples are what it could read). */
  damaged: string | null;
}

export class AudioDecodeError extends UserError {
  constructor(message: string, readonly file: string, readonly stderr: string) {
    super(message, 'path');
    this.name = 'AudioDecodeError';
  }
}

export function ffmpegPath(): string {
  const found = findFfmpeg();
  if (!found.path) throw new UserError(found.error ?? 'ffmpeg was not found');
  return found.path;
}

/** ffprobe beside ffmpeg, when there is one. */
export function ffprobePath(): string | null {
  const ff = ffmpegPath();
  const name = process.platform === 'win32' ? 'ffprobe.exe' : 'ffprobe';
  const beside = join(dirname(ff), name);
  return existsSync(beside) ? beside : null;
}

const LAYOUT_CHANNELS: Record<string, number> = {
  mono: 1, stereo: 2, '2.1': 3, '3.0': 3, '3.0(back)': 3, '4.0': 4, quad: 4, 'quad(side)': 4, '3.1': 4,
  '5.0': 5, '5.0(side)': 5, '4.1': 5, '5.1': 6, '5.1(side)': 6, '6.0': 6, '6.0(front)': 6, hexagonal: 6,
  '6.1': 7, '6.1(back)': 7, '6.1(front)': 7, '7.0': 7, '7.0(front)': 7, '7.1': 8, '7.1(wide)': 8,
  '7.1(wide-side)': 8, octagonal: 8, downmix: 2,
};

/**
 * Parse the `Input #0` section of ffmpeg's stderr (`-loglevel info`). Reading it from
 * the decoding run saves spawning ffprobe for every clip.
 */
export function parseFfmpegInputInfo(stderr: string): SourceInfo {
  const info: SourceInfo = { codec: null, sampleRate: null, channels: null, declaredDurationS: null };
  const inputStart = stderr.indexOf('Input #0');
  const outputStart = stderr.indexOf('Output #0');
  const section = inputStart >= 0 ? stderr.slice(inputStart, outputStart > inputStart ? outputStart : undefined) : stderr;
  const dur = /Duration:\s*(\d+):(\d+):(\d+(?:\.\d+)?)/.exec(section);
  if (dur) info.declaredDurationS = Number(dur[1]) * 3600 + Number(dur[2]) * 60 + Number(dur[3]);
  const stream = /Stream #0:\d+(?:\[[^\]]*\])?(?:\([^)]*\))?: Audio: ([^\n]*)/.exec(section);
  if (stream) {
    const desc = stream[1]!;
    info.codec = /^([\w.-]+)/.exec(desc)?.[1] ?? null;
    const rate = /(\d+) Hz/.exec(desc);
    if (rate) info.sampleRate = Number(rate[1]);
    const afterRate = rate ? desc.slice(rate.index + rate[0].length) : '';
    const layout = /^,\s*([^,]+)/.exec(afterRate)?.[1]?.trim() ?? '';
    const n = /^(\d+) channels/.exec(layout);
    if (n) info.channels = Number(n[1]);
    else if (layout in LAYOUT_CHANNELS) info.channels = LAYOUT_CHANNELS[layout]!;
  }
  return info;
}

function float32View(buf: Buffer): Float32Array {
  const n = Math.floor(buf.length / 4);
  // A Float32Array view needs 4-byte alignment; small Buffers can come from a shared pool.
  if (buf.byteOffset % 4 === 0) return new Float32Array(buf.buffer, buf.byteOffset, n);
  const copy = new Float32Array(n);
  new Uint8Array(copy.buffer).set(buf.subarray(0, n * 4));
  return copy;
}

interface DecodeRun {
  source: SourceInfo;
  /** The rate and channel count of ffmpeg's output (from the WAV header it wrote). */
  output: { sampleRate: number; channels: number };
  warnings: string[];
  damaged: string | null;
}

/** The rate of ffmpeg's output stream (the `Output #0` section of its stderr). */
export function parseFfmpegOutputRate(stderr: string): number | null {
  const outputStart = stderr.indexOf('Output #0');
  if (outputStart < 0) return null;
  const m = /Stream #0:\d+[^\n]*: Audio: [^\n]*?(\d+) Hz/.exec(stderr.slice(outputStart));
  return m ? Number(m[1]) : null;
}

/** Bytes of ffmpeg's WAV output within which its header must end. */
const WAV_HEADER_LIMIT = 1 << 16;

/**
 * ffmpeg's float WAV written to a pipe (sizes unknown, 0xFFFFFFFF): the header gives the
 * channel count and rate, then whole interleaved float32 frames go to `onFrames`. A WAV
 * rather than raw f32le because the channel count travels with the samples (ffmpeg's
 * stderr description arrives on another pipe, in no guaranteed order).
 */
export class WavPipeReader {
  private head: Buffer | null = Buffer.alloc(0);
  private carry = Buffer.alloc(0);
  format: { sampleRate: number; channels: number } | null = null;

  constructor(private readonly onFrames: (interleaved: Float32Array, channels: number) => void) {}

  /** Throws when the header is not a float WAV Equivox can mix. */
  push(chunk: Buffer): void {
    if (this.head) {
      const buf = Buffer.concat([this.head, chunk]);
      const p = parseWavHeader((pos, len) => buf.subarray(pos, Math.min(buf.length, pos + len)), buf.length);
      if (!p.ok) {
        if (buf.length >= WAV_HEADER_LIMIT || /fmt chunk of|format|block alignment|channels|sample rate|WAVE_FORMAT|sub-format|data before fmt/.test(p.reason)) {
          throw new Error(`ffmpeg's output could not be read (${p.reason})`);
        }
        this.head = buf;
        return;
      }
      const h = p.header;
      if (h.format !== 'float' || h.bits !== 32) throw new Error(`ffmpeg wrote ${h.format} ${h.bits}-bit samples, not float32`);
      if (h.channels > MAX_CHANNELS) throw new TooManyChannels(h.channels);
      this.format = { sampleRate: h.sampleRate, channels: h.channels };
      this.head = null;
      chunk = buf.subarray(h.dataOffset);
    }
    const ch = this.format!.channels;
    const frameBytes = 4 * ch;
    const buf = this.carry.length ? Buffer.concat([this.carry, chunk]) : chunk;
    const whole = buf.length - (buf.length % frameBytes);
    // Copied: ffmpeg's chunks are reused by the stream, and a typed view wants alignment.
    if (whole > 0) this.onFrames(float32View(Buffer.from(buf.subarray(0, whole))), ch);
    this.carry = Buffer.from(buf.subarray(whole));
  }
}

/** A file with more channels than Equivox mixes to mono. */
export class TooManyChannels extends Error {
  constructor(readonly channels: number) {
    super(`${channels} channels: Equivox mixes at most ${MAX_CHANNELS} channels to mono`);
    this.name = 'TooManyChannels';
  }
}

/**
 * Spawn ffmpeg decoding `file` to a float32 WAV of all its channels at `sampleRate`
 * ('native': the file's own rate, no resampling), handing whole interleaved frames to
 * `onFrames`. ffmpeg only converts and resamples here; the channels are averaged by the
 * caller (audio/mix.ts), never by ffmpeg's `-ac 1` matrix, which adds up to 4.4 × gain.
 */
function runDecode(
  file: string,
  options: { signal?: AbortSignal; sampleRate?: number | 'native'; ffmpeg?: string; onChild?: (child: ChildProcessByStdio<null, Readable, Readable>) => void },
  onFrames: (interleaved: Float32Array, channels: number) => void,
): Promise<DecodeRun> {
  const sampleRate = options.sampleRate ?? TARGET_SAMPLE_RATE;
  const ffmpeg = options.ffmpeg ?? ffmpegPath();
  const { signal } = options;
  if (signal?.aborted) return Promise.reject(new CancelledError());
  const refused = refusedInputReason(file);
  if (refused) return Promise.reject(new AudioDecodeError(`not readable as audio: ${refused}`, file, ''));
  return new Promise<DecodeRun>((resolvePromise, reject) => {
    const child = spawn(
      ffmpeg,
      ['-hide_banner', '-nostats', '-nostdin', '-loglevel', 'info', ...ffmpegInputArgs(file), '-vn', '-map', '0:a:0', '-f', 'wav', '-c:a', 'pcm_f32le', ...(sampleRate === 'native' ? [] : ['-ar', String(sampleRate)]), '-'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    options.onChild?.(child);
    let stderr = '';
    let aborted = false;
    let readFailure: Error | null = null;
    const reader = new WavPipeReader(onFrames);
    const onAbort = () => {
      aborted = true;
      child.kill('SIGKILL');
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (chunk: Buffer) => {
      if (readFailure) return;
      try {
        reader.push(chunk);
      } catch (err) {
        readFailure = err as Error;
        child.kill('SIGKILL');
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (s: string) => {
      // Bounded: a broken file can make ffmpeg log one line per packet.
      if (stderr.length < 64_000) stderr += s;
    });
    child.on('error', (err) => {
      signal?.removeEventListener('abort', onAbort);
      reject(new UserError(`could not run ffmpeg (${ffmpeg}): ${err.message}`));
    });
    child.on('close', (code) => {
      signal?.removeEventListener('abort', onAbort);
      if (aborted) return reject(new CancelledError());
      if (readFailure) return reject(new AudioDecodeError(`not readable as audio: ${readFailure.message}`, file, stderr));
      const source = parseFfmpegInputInfo(stderr);
      const warnings = stderr
        .split(/\r?\n/)
        .filter((l) => /^\[[^\]]+\]/.test(l) || /error|invalid|corrupt/i.test(l))
        .slice(0, 20);
      if (code !== 0 || !reader.format) {
        const last = whitelistRefusal(stderr) ?? stderr.trim().split(/\r?\n/).filter(Boolean).slice(-1)[0] ?? `ffmpeg exited with code ${code}`;
        return reject(new AudioDecodeError(`not readable as audio: ${last}`, file, stderr));
      }
      const damaged = warnings.find((l) => /corrupt|truncat|invalid data|error while decoding|partial file/i.test(l)) ?? null;
      resolvePromise({ source, output: reader.format, warnings, damaged });
    });
  });
}

/** Collects averaged mono blocks of a decode. */
function monoCollector(): { onFrames: (interleaved: Float32Array, channels: number) => void; blocks: Float32Array[]; length: number } {
  const c = {
    blocks: [] as Float32Array[],
    length: 0,
    onFrames(interleaved: Float32Array, channels: number) {
      const frames = interleaved.length / channels;
      const mono = channels === 1 ? interleaved : mixToMono(interleaved, channels, frames, new Float32Array(frames));
      c.blocks.push(mono);
      c.length += frames;
    },
  };
  return c;
}

function joined(blocks: Float32Array[], length: number): Float32Array {
  if (blocks.length === 1) return blocks[0]!;
  const out = new Float32Array(length);
  let o = 0;
  for (const b of blocks) {
    out.set(b, o);
    o += b.length;
  }
  return out;
}

/**
 * Decode any file ffmpeg reads to 16 kHz mono float32. A 16 kHz mono PCM or float WAV is
 * read in process (audio/wav.ts: the same samples, no ffmpeg process); everything else
 * goes through ffmpeg. Cancelling through `signal` kills the child process and rejects
 * with CancelledError.
 */
export async function decodeAudio(
  file: string,
  options: { signal?: AbortSignal; sampleRate?: number; ffmpeg?: string } = {},
): Promise<DecodedAudio> {
  const sampleRate = options.sampleRate ?? TARGET_SAMPLE_RATE;
  if (sampleRate === TARGET_SAMPLE_RATE) {
    if (options.signal?.aborted) throw new CancelledError();
    const w = openWav(file);
    if (w.fd !== null) {
      try {
        const samples = readWavBlock(w.fd, w.layout, 0, w.layout.samples);
        const codec = wavCodecName(w.layout);
        return { samples, sampleRate, durationS: samples.length / sampleRate, source: { codec, sampleRate, channels: 1, declaredDurationS: samples.length / sampleRate }, warnings: [], damaged: null };
      } finally {
        closeSync(w.fd);
      }
    }
  }
  const mono = monoCollector();
  const run = await runDecode(file, options, mono.onFrames);
  const samples = joined(mono.blocks, mono.length);
  return { samples, sampleRate, durationS: samples.length / sampleRate, source: run.source, warnings: run.warnings, damaged: run.damaged };
}

/**
 * One streaming pass of ffmpeg over `file`: 16 kHz mono float32 blocks as they are
 * decoded, with back-pressure (ffmpeg's output is paused while the consumer is busy), so
 * a long file never sits in memory whole. Throws AudioDecodeError at the end of a failed
 * decode; stopping early (break) kills ffmpeg.
 */
export async function* decodeStream(file: string, options: { signal?: AbortSignal; ffmpeg?: string } = {}): AsyncGenerator<Float32Array> {
  const queue: Float32Array[] = [];
  let child: ChildProcessByStdio<null, Readable, Readable> | undefined;
  let wake: (() => void) | null = null;
  let finished = false;
  let failure: unknown = null;
  const notify = () => {
    const w = wake;
    wake = null;
    w?.();
  };
  const run = runDecode(file, { ...options, onChild: (c) => (child = c) }, (interleaved, channels) => {
    const frames = interleaved.length / channels;
    queue.push(channels === 1 ? interleaved : mixToMono(interleaved, channels, frames, new Float32Array(frames)));
    if (queue.length > 8) child?.stdout.pause();
    notify();
  }).then(
    () => {
      finished = true;
      notify();
    },
    (err: unknown) => {
      failure = err;
      finished = true;
      notify();
    },
  );
  try {
    for (;;) {
      if (queue.length === 0) {
        if (finished) break;
        child?.stdout.resume();
        await new Promise<void>((r) => (wake = r));
        continue;
      }
      const block = queue.shift()!;
      if (queue.length <= 2) child?.stdout.resume();
      if (block.length > 0) yield block;
    }
    await run;
    if (failure) throw failure;
  } finally {
    if (!finished) child?.kill('SIGKILL');
  }
}

export interface AnalysedAudio {
  /** The rate the samples were measured at: the file's own (no resampling). */
  sampleRate: number;
  durationS: number;
  samples: number;
  /** RMS and peak of the channels' average; clipping per channel (audio/mix.ts). */
  levels: LevelStats;
  /** NaN, infinite and far-out samples, over every channel. */
  checks: SampleChecks;
  source: SourceInfo;
  warnings: string[];
  damaged: string | null;
}

/**
 * Decode a file only to measure it (length, RMS, peak, clipping, sample checks) at its own
 * sample rate: the PCM streams through a SourceMeter and is never held, so several files
 * can be measured at once. Measuring the recorded samples rather than a 16 kHz resampling
 * keeps a clipped flat top and the true length, and lets WAV and FLAC be measured in
 * process with the same numbers (audio/pcm-analyse.ts).
 */
export async function analyseAudio(file: string, options: { signal?: AbortSignal; ffmpeg?: string } = {}): Promise<AnalysedAudio> {
  let meter: SourceMeter | null = null;
  const run = await runDecode(file, { ...options, sampleRate: 'native' }, (interleaved, channels) => {
    meter ??= new SourceMeter(channels);
    meter.push(interleaved);
  });
  const m = meter ?? new SourceMeter(run.output.channels);
  const n = m.frameCount;
  const rate = run.output.sampleRate;
  return { sampleRate: rate, durationS: n / rate, samples: n, ...m.result(), source: run.source, warnings: run.warnings, damaged: run.damaged };
}

export interface ProbeResult extends SourceInfo {
  formatName: string | null;
}

/** Probe a file without decoding: ffprobe when it sits beside ffmpeg, else `ffmpeg -i`. */
export function probeAudio(file: string, options: { signal?: AbortSignal } = {}): Promise<ProbeResult> {
  const probe = ffprobePath();
  const refused = refusedInputReason(file);
  if (refused) return Promise.reject(new AudioDecodeError(`not readable as audio: ${refused}`, file, ''));
  return new Promise<ProbeResult>((resolvePromise, reject) => {
    const args = probe
      ? ['-v', 'error', '-select_streams', 'a:0', '-show_entries', 'stream=codec_name,sample_rate,channels:format=duration,format_name', '-of', 'json', ...ffmpegInputArgs(file)]
      : ['-hide_banner', '-nostdin', ...ffmpegInputArgs(file)];
    const child = spawn(probe ?? ffmpegPath(), args, { stdio: ['ignore', 'pipe', 'pipe'], signal: options.signal });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (out += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (err += s));
    child.on('error', (e) => reject(e.name === 'AbortError' ? new CancelledError() : e));
    child.on('close', (code) => {
      if (!probe) {
        const info = parseFfmpegInputInfo(err);
        if (info.sampleRate === null) return reject(new AudioDecodeError(`not readable as audio${whitelistRefusal(err) ? `: ${whitelistRefusal(err)}` : ''}`, file, err));
        return resolvePromise({ ...info, formatName: /Input #0, ([^,]+),/.exec(err)?.[1] ?? null });
      }
      if (code !== 0) return reject(new AudioDecodeError(`not readable as audio: ${whitelistRefusal(err) ?? err.trim().split('\n').pop() ?? ''}`, file, err));
      const j = JSON.parse(out) as { streams?: { codec_name?: string; sample_rate?: string; channels?: number }[]; format?: { duration?: string; format_name?: string } };
      const s = j.streams?.[0];
      if (!s) return reject(new AudioDecodeError('the file has no audio stream', file, err));
      resolvePromise({
        codec: s.codec_name ?? null,
        sampleRate: s.sample_rate ? Number(s.sample_rate) : null,
        channels: s.channels ?? null,
        declaredDurationS: j.format?.duration ? Number(j.format.duration) : null,
        formatName: j.format?.format_name ?? null,
      });
    });
  });
}
