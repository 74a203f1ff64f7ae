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
import { LevelMeter, type LevelStats } from './analyse';
import { ffmpegInputArgs, refusedInputReason, whitelistRefusal } from './ffmpeg-input';
import { wavCodecName } from './pcm-analyse';
import { openWav, readWavBlock } from './wav';

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
  /** 16 kHz mono float32 in [-1, 1] (resampling can overshoot slightly). */
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
  /** The rate ffmpeg wrote (from its output description), when it printed one. */
  outputRate: number | null;
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

/**
 * Spawn ffmpeg decoding `file` to f32le mono at `sampleRate` ('native': the file's own
 * rate, no resampling), handing stdout chunks to `onData`.
 */
function runDecode(
  file: string,
  options: { signal?: AbortSignal; sampleRate?: number | 'native'; ffmpeg?: string; onChild?: (child: ChildProcessByStdio<null, Readable, Readable>) => void },
  onData: (chunk: Buffer) => void,
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
      ['-hide_banner', '-nostats', '-nostdin', '-loglevel', 'info', ...ffmpegInputArgs(file), '-vn', '-map', '0:a:0', '-f', 'f32le', '-ac', '1', ...(sampleRate === 'native' ? [] : ['-ar', String(sampleRate)]), '-'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    options.onChild?.(child);
    let stderr = '';
    let aborted = false;
    const onAbort = () => {
      aborted = true;
      child.kill('SIGKILL');
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', onData);
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
      const source = parseFfmpegInputInfo(stderr);
      const warnings = stderr
        .split(/\r?\n/)
        .filter((l) => /^\[[^\]]+\]/.test(l) || /error|invalid|corrupt/i.test(l))
        .slice(0, 20);
      if (code !== 0) {
        const last = whitelistRefusal(stderr) ?? stderr.trim().split(/\r?\n/).filter(Boolean).slice(-1)[0] ?? `ffmpeg exited with code ${code}`;
        return reject(new AudioDecodeError(`not readable as audio: ${last}`, file, stderr));
      }
      const damaged = warnings.find((l) => /corrupt|truncat|invalid data|error while decoding|partial file/i.test(l)) ?? null;
      resolvePromise({ source, outputRate: parseFfmpegOutputRate(stderr), warnings, damaged });
    });
  });
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
  const chunks: Buffer[] = [];
  let bytes = 0;
  const run = await runDecode(file, options, (c) => {
    chunks.push(c);
    bytes += c.length;
  });
  const samples = float32View(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, bytes));
  return { samples, sampleRate, durationS: samples.length / sampleRate, source: run.source, warnings: run.warnings, damaged: run.damaged };
}

/**
 * One streaming pass of ffmpeg over `file`: 16 kHz mono float32 blocks as they are
 * decoded, with back-pressure (ffmpeg's output is paused while the consumer is busy), so
 * a long file never sits in memory whole. Throws AudioDecodeError at the end of a failed
 * decode; stopping early (break) kills ffmpeg.
 */
export async function* decodeStream(file: string, options: { signal?: AbortSignal; ffmpeg?: string } = {}): AsyncGenerator<Float32Array> {
  const queue: Buffer[] = [];
  let child: ChildProcessByStdio<null, Readable, Readable> | undefined;
  let wake: (() => void) | null = null;
  let finished = false;
  let failure: unknown = null;
  const notify = () => {
    const w = wake;
    wake = null;
    w?.();
  };
  const run = runDecode(file, { ...options, onChild: (c) => (child = c) }, (chunk) => {
    queue.push(chunk);
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
  let carry = Buffer.alloc(0);
  try {
    for (;;) {
      if (queue.length === 0) {
        if (finished) break;
        child?.stdout.resume();
        await new Promise<void>((r) => (wake = r));
        continue;
      }
      const c = queue.shift()!;
      if (queue.length <= 2) child?.stdout.resume();
      const buf = carry.length ? Buffer.concat([carry, c]) : c;
      const whole = buf.length - (buf.length % 4);
      carry = Buffer.from(buf.subarray(whole));
      if (whole > 0) yield float32View(Buffer.from(buf.subarray(0, whole)));
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
  levels: LevelStats;
  source: SourceInfo;
  warnings: string[];
  damaged: string | null;
}

/**
 * Decode a file only to measure it (length, RMS, peak, clipping) at its own sample rate,
 * downmixed to mono: the PCM streams through a LevelMeter and is never held, so several
 * files can be measured at once. Measuring the recorded samples rather than a 16 kHz
 * resampling keeps a clipped flat top and the true length, and lets WAV and FLAC be
 * measured in process with the same numbers (audio/pcm-analyse.ts).
 */
export async function analyseAudio(file: string, options: { signal?: AbortSignal; ffmpeg?: string } = {}): Promise<AnalysedAudio> {
  const meter = new LevelMeter();
  let carry = Buffer.alloc(0);
  const run = await runDecode(file, { ...options, sampleRate: 'native' }, (c) => {
    const buf = carry.length ? Buffer.concat([carry, c]) : c;
    const whole = buf.length - (buf.length % 4);
    meter.push(float32View(buf.subarray(0, whole)));
    carry = Buffer.from(buf.subarray(whole));
  });
  const n = meter.count;
  const rate = run.outputRate ?? run.source.sampleRate;
  if (!rate) throw new AudioDecodeError('not readable as audio: ffmpeg did not say the sample rate', file, '');
  return { sampleRate: rate, durationS: n / rate, samples: n, levels: meter.result(), source: run.source, warnings: run.warnings, damaged: run.damaged };
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
