import { createHash } from 'node:crypto';
import { closeSync, createReadStream, fstatSync, openSync, readSync } from 'node:fs';

/** SHA-256 of a file's bytes, streamed so large files never sit in memory. */
export function sha256File(file: string, signal?: AbortSignal): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const hash = createHash('sha256');
    const stream = createReadStream(file, signal ? { signal, highWaterMark: 1 << 20 } : { highWaterMark: 1 << 20 });
    stream.on('data', (c) => hash.update(c));
    stream.on('error', reject);
    stream.on('end', () => resolvePromise(hash.digest('hex')));
  });
}

export interface LevelStats {
  rms: number;
  peak: number;
  /**
   * Fraction of samples inside runs of >= 3 consecutive samples at |x| >= clipLevel (for a
   * file with several channels: of every channel's samples, audio/mix.ts).
   */
  clippedFraction: number;
}

/**
 * Level statistics computed incrementally, so an import can measure a file while
 * ffmpeg streams it without ever holding its PCM. Clipping is judged on runs, not single
 * samples: a flat top several samples long survives resampling, a loud clean peak does not.
 */
export class LevelMeter {
  private sum = 0;
  private peak = 0;
  private clipped = 0;
  private run = 0;
  private n = 0;
  constructor(private readonly clipLevel = 0.99) {}

  push(samples: Float32Array): void {
    const clipLevel = this.clipLevel;
    let { sum, peak, clipped, run } = this;
    let skipped = 0;
    for (let i = 0; i < samples.length; i += 1) {
      const v = samples[i]!;
      const a = v < 0 ? -v : v;
      // NaN and ±Inf are not levels: left out here, counted by audio/mix.ts's checks.
      if (!(a < Infinity)) {
        skipped += 1;
        continue;
      }
      sum += v * v;
      if (a > peak) peak = a;
      if (a >= clipLevel) run += 1;
      else {
        if (run >= 3) clipped += run;
        run = 0;
      }
    }
    this.sum = sum;
    this.peak = peak;
    this.clipped = clipped;
    this.run = run;
    this.n += samples.length - skipped;
  }

  get count(): number {
    return this.n;
  }

  result(): LevelStats {
    const clipped = this.clipped + (this.run >= 3 ? this.run : 0);
    const n = this.n;
    return { rms: n ? Math.sqrt(this.sum / n) : 0, peak: this.peak, clippedFraction: n ? clipped / n : 0 };
  }
}

/** Level statistics of decoded audio held in memory. */
export function levelStats(samples: Float32Array, clipLevel = 0.99): LevelStats {
  const m = new LevelMeter(clipLevel);
  m.push(samples);
  return m.result();
}

export function dbfs(x: number): number {
  return x > 0 ? 20 * Math.log10(x) : -Infinity;
}

/**
 * For RIFF/WAVE files: how many bytes the `data` chunk declares beyond the end of the
 * file (0 when complete, null when not a WAV or unparseable). ffmpeg clamps a WAV's
 * duration to the file size, so a cut-off file only shows up in the header.
 */
export function wavShortfallBytes(file: string): number | null {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const size = fstatSync(fd).size;
    const head = Buffer.alloc(Math.min(size, 65536));
    readSync(fd, head, 0, head.length, 0);
    if (head.length < 12 || head.toString('latin1', 0, 4) !== 'RIFF' || head.toString('latin1', 8, 12) !== 'WAVE') return null;
    let off = 12;
    while (off + 8 <= head.length) {
      const id = head.toString('latin1', off, off + 4);
      const len = head.readUInt32LE(off + 4);
      if (id === 'data') {
        // 0 and 0xFFFFFFFF mean "unknown" (streamed writers); nothing to compare.
        if (len === 0 || len === 0xffffffff) return 0;
        return Math.max(0, off + 8 + len - size);
      }
      off += 8 + len + (len % 2);
    }
    return null;
  } catch {
    return null;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
