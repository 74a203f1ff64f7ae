/**
 * Audio as passes of 16 kHz mono float32 blocks, so long recordings never sit in memory
 * whole. A source is re-readable: a front end that needs statistics of the whole clip
 * first (per-clip normalisation) makes one pass for them and another for the model.
 *
 * - WAVs audio/wav.ts reads in process: read block by block from the file.
 * - Everything else: ffmpeg. The first decode starts at once (so it overlaps the model
 *   working on the clip before) and keeps the samples when the clip is at most
 *   KEEP_IN_MEMORY_S long; a longer clip is decoded again, streaming, on every pass.
 */
import { closeSync } from 'node:fs';
import { CancelledError } from '../../shared/errors';
import { decodeAudio, decodeStream } from './decode';
import { openWav, readWavBlock, WAV_BLOCK, type WavLayout } from './wav';

/** Clips up to this long (10 minutes) decoded by ffmpeg are kept in memory between passes. */
export const KEEP_IN_MEMORY_S = 600;

export interface AudioSource {
  readonly via: 'memory' | 'wav' | 'ffmpeg';
  /** Samples, when known without a pass (always, except for long ffmpeg-decoded clips). */
  readonly length: number | null;
  /** One pass from the start; each call is a new pass. */
  blocks(signal?: AbortSignal): AsyncIterable<Float32Array>;
  /** The whole clip in memory (for front ends that need it whole). */
  whole(signal?: AbortSignal): Promise<Float32Array>;
  close(): void;
}

export function arraySource(samples: Float32Array, via: 'memory' | 'ffmpeg' = 'memory'): AudioSource {
  return {
    via,
    length: samples.length,
    async *blocks() {
      if (samples.length > 0) yield samples;
    },
    whole: () => Promise.resolve(samples),
    close() {},
  };
}

function wavSource(fd: number, layout: WavLayout): AudioSource {
  let open = true;
  return {
    via: 'wav',
    length: layout.samples,
    async *blocks(signal) {
      for (let s = 0; s < layout.samples; s += WAV_BLOCK) {
        if (signal?.aborted) throw new CancelledError();
        yield readWavBlock(fd, layout, s, WAV_BLOCK);
      }
    },
    whole: () => Promise.resolve(readWavBlock(fd, layout, 0, layout.samples)),
    close() {
      if (open) closeSync(fd);
      open = false;
    },
  };
}

function streamingSource(file: string): AudioSource {
  const source: AudioSource = {
    via: 'ffmpeg',
    length: null,
    blocks: (signal) => decodeStream(file, signal ? { signal } : {}),
    async whole(signal) {
      return (await decodeAudio(file, signal ? { signal } : {})).samples;
    },
    close() {},
  };
  return source;
}

/**
 * Open a clip for passes. For ffmpeg formats this runs the first decode now: it resolves
 * with the samples in memory (clips up to KEEP_IN_MEMORY_S) or with a streaming source.
 */
export async function openAudio(file: string, options: { signal?: AbortSignal; keepInMemoryS?: number } = {}): Promise<AudioSource> {
  const w = openWav(file);
  if (w.fd !== null) return wavSource(w.fd, w.layout);
  const limit = Math.round((options.keepInMemoryS ?? KEEP_IN_MEMORY_S) * 16000);
  const blocks: Float32Array[] = [];
  let n = 0;
  for await (const b of decodeStream(file, options.signal ? { signal: options.signal } : {})) {
    n += b.length;
    // Longer than we keep: stop here (ffmpeg is killed) and stream on every pass instead.
    if (n > limit) return streamingSource(file);
    blocks.push(b);
  }
  const samples = new Float32Array(n);
  let o = 0;
  for (const b of blocks) {
    samples.set(b, o);
    o += b.length;
  }
  return arraySource(samples, 'ffmpeg');
}
