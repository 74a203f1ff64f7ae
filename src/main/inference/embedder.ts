/**
 * Per-clip embedding: front end → onnxruntime → per-layer temporal mean/min/max.
 * Time spent inside session.run is counted separately so benchmarks can report the
 * share spent outside ORT.
 */
import * as ort from './ort';
import { UserError } from '../../shared/errors';
import { arraySource, type AudioSource } from '../audio/source';
import { normalizeWaveform, SAMPLE_RATE, WHISPER_FRAMES, WHISPER_SAMPLES, whisperFramesFor, whisperLogMel } from './frontends';
import type { ModelManifest } from './manifest';
import { createSession, type RunInfo, type SessionOptions } from './providers';

export interface ClipEmbedding {
  dims: number[];
  /** Frames of the final state (for the speech_embedding model: windows). */
  frames: number;
  mean: Float32Array[];
  min: Float32Array[];
  max: Float32Array[];
}

/** Running mean/min/max per dimension of one layer. */
export class StatsAccumulator {
  readonly sum: Float64Array;
  readonly min: Float32Array;
  readonly max: Float32Array;
  frames = 0;
  constructor(readonly width: number) {
    this.sum = new Float64Array(width);
    this.min = new Float32Array(width).fill(Infinity);
    this.max = new Float32Array(width).fill(-Infinity);
  }
  /**
   * Add `rows` frames of a row-major [rows, width] block starting at `offset`. One pass per
   * dimension down the frames, its sum, min and max in locals (a quarter less CPU than row by
   * row on a 200 × 768 state); each dimension still sums its frames in frame order, so the
   * numbers are the same to the bit.
   */
  add(data: Float32Array, rows: number, offset = 0): void {
    const w = this.width;
    const { sum, min, max } = this;
    const end = offset + rows * w;
    for (let j = 0; j < w; j += 1) {
      let s = sum[j]!;
      let lo = min[j]!;
      let hi = max[j]!;
      for (let i = offset + j; i < end; i += w) {
        const v = data[i]!;
        s += v;
        if (v < lo) lo = v;
        if (v > hi) hi = v;
      }
      sum[j] = s;
      min[j] = lo;
      max[j] = hi;
    }
    this.frames += rows;
  }
  mean(): Float32Array {
    const out = new Float32Array(this.width);
    for (let j = 0; j < this.width; j += 1) out[j] = this.sum[j]! / Math.max(1, this.frames);
    return out;
  }
}

export interface EmbedTimings {
  ortMs: number;
  frontEndMs: number;
  aggregateMs: number;
}

export interface Embedder {
  readonly manifest: ModelManifest;
  readonly info: RunInfo;
  readonly timings: EmbedTimings;
  embed(audio: Float32Array): Promise<ClipEmbedding & { samples: number }>;
  /** The same from a source read in passes (long clips stream through in 30 s chunks). */
  embedSource(source: AudioSource, signal?: AbortSignal): Promise<ClipEmbedding & { samples: number }>;
  release(): Promise<void>;
}

export interface ModelGraphs {
  /** The (derived) model producing the states (bytes or a file path); for speech_embedding, the embedding model. */
  main: Uint8Array | string;
  /** speech_embedding's melspectrogram model. */
  mel?: Uint8Array;
}

function finish(acc: StatsAccumulator[], frames: number): ClipEmbedding {
  return { dims: acc.map((a) => a.width), frames, mean: acc.map((a) => a.mean()), min: acc.map((a) => Float32Array.from(a.min)), max: acc.map((a) => Float32Array.from(a.max)) };
}

async function timedRun(session: ort.InferenceSession, feeds: Record<string, ort.Tensor>, outputs: string[], t: EmbedTimings): Promise<ort.InferenceSession.OnnxValueMapType> {
  const t0 = performance.now();
  const r = await session.run(feeds, outputs);
  t.ortMs += performance.now() - t0;
  return r;
}

/**
 * Transformer encoders (raw waveform or Whisper log-mel) and the acoustic baseline, fed
 * chunk by chunk from a source that may be far longer than memory should hold.
 *
 * The chunking rule (frontends.ts, chunkRanges): consecutive 30 s chunks; for raw-waveform
 * models a final remainder under 1 s joins the chunk before it; each chunk is run on its
 * own and the frames of all chunks are aggregated together. Per-clip normalisation
 * (do_normalize) uses the whole clip's mean and variance, computed in two passes before
 * the chunks, with the same arithmetic as normalizeWaveform: a clip gives the same numbers
 * whether it was held in memory or streamed.
 */
async function frameModelEmbedder(manifest: ModelManifest, graphs: ModelGraphs, o: SessionOptions): Promise<Embedder> {
  const { session, info } = await createSession(graphs.main, o);
  const timings: EmbedTimings = { ortMs: 0, frontEndMs: 0, aggregateMs: 0 };
  const outputs = manifest.states.map((s) => s.output);
  const fe = manifest.frontEnd;
  const whisper = fe.kind === 'whisper-logmel';
  const normalize = fe.kind === 'raw-waveform' && fe.doNormalize;
  // Raw-waveform models need at least one conv receptive field (~25 ms): pad tiny clips.
  const minLen = 400;
  // Whisper pads every chunk to 30 s, so a short last chunk is kept as is (merging it
  // would push the chunk past the 30 s window and lose audio).
  const minLast = whisper ? 0 : SAMPLE_RATE;

  async function runChunk(chunkIn: Float32Array, acc: StatsAccumulator[]): Promise<void> {
    let chunk = chunkIn;
    let t0 = performance.now();
    let feeds: Record<string, ort.Tensor>;
    let keepFrames = Infinity;
    if (fe.kind === 'whisper-logmel') {
      const feats = whisperLogMel(chunk, fe.nMels);
      feeds = { [manifest.inputName]: new ort.Tensor('float32', feats, [1, fe.nMels, WHISPER_FRAMES]) };
      keepFrames = whisperFramesFor(chunk.length);
    } else {
      if (chunk.length < minLen) {
        const p = new Float32Array(minLen);
        p.set(chunk);
        chunk = p;
      }
      feeds = { [manifest.inputName]: new ort.Tensor('float32', chunk, [1, chunk.length]) };
    }
    timings.frontEndMs += performance.now() - t0;
    const r = await timedRun(session, feeds, outputs, timings);
    t0 = performance.now();
    manifest.states.forEach((s, i) => {
      const data = r[s.output]!.data as Float32Array;
      const rows = data.length / s.width;
      acc[i]!.add(data, Math.min(rows, keepFrames));
    });
    for (const k of Object.keys(r)) r[k]!.dispose?.();
    timings.aggregateMs += performance.now() - t0;
  }

  const embedder: Embedder = {
    manifest,
    info,
    timings,
    embed(audio) {
      return embedder.embedSource(arraySource(audio));
    },
    async embedSource(source, signal) {
      // A clip that is one chunk by the chunking rule (every clip up to 30 s, 31 s for raw
      // waveforms) is read once and fed as it is: no second and third pass over the file for
      // the normalisation, no copy through the chunk buffer. Same samples, same arithmetic.
      if (source.length !== null && (source.length <= WHISPER_SAMPLES || source.length < WHISPER_SAMPLES + minLast)) {
        const t0 = performance.now();
        const whole = await source.whole(signal);
        if (whole.length === 0) throw new UserError('the clip decodes to no audio');
        const audio = normalize ? normalizeWaveform(whole) : whole;
        timings.frontEndMs += performance.now() - t0;
        const acc = manifest.states.map((s) => new StatsAccumulator(s.width));
        await runChunk(audio, acc);
        return { ...finish(acc, acc[acc.length - 1]!.frames), samples: whole.length };
      }
      let t0 = performance.now();
      let mean = 0;
      let inv = 1;
      if (normalize) {
        // Two passes for the clip's mean and variance, as normalizeWaveform computes them.
        let n = 0;
        for await (const b of source.blocks(signal)) {
          for (let i = 0; i < b.length; i += 1) mean += b[i]!;
          n += b.length;
        }
        mean /= Math.max(1, n);
        let v = 0;
        for await (const b of source.blocks(signal)) for (let i = 0; i < b.length; i += 1) v += (b[i]! - mean) ** 2;
        v /= Math.max(1, n);
        inv = 1 / Math.sqrt(v + 1e-7);
      }
      timings.frontEndMs += performance.now() - t0;
      const acc = manifest.states.map((s) => new StatsAccumulator(s.width));
      // Chunk i goes to the model once the buffer holds it and at least minLast samples
      // more, so a short remainder can still join the last chunk.
      const buf = new Float32Array(WHISPER_SAMPLES + minLast);
      let len = 0;
      let samples = 0;
      for await (const b of source.blocks(signal)) {
        t0 = performance.now();
        samples += b.length;
        let i = 0;
        while (i < b.length) {
          const take = Math.min(b.length - i, buf.length - len);
          if (normalize) for (let k = 0; k < take; k += 1) buf[len + k] = (b[i + k]! - mean) * inv;
          else buf.set(b.subarray(i, i + take), len);
          len += take;
          i += take;
          if (len === buf.length) {
            timings.frontEndMs += performance.now() - t0;
            await runChunk(buf.subarray(0, WHISPER_SAMPLES), acc);
            t0 = performance.now();
            buf.copyWithin(0, WHISPER_SAMPLES, len);
            len -= WHISPER_SAMPLES;
          }
        }
        timings.frontEndMs += performance.now() - t0;
      }
      if (samples === 0) throw new UserError('the clip decodes to no audio');
      if (len > 0) await runChunk(buf.subarray(0, len), acc);
      return { ...finish(acc, acc[acc.length - 1]!.frames), samples };
    },
    async release() {
      await session.release();
    },
  };
  return embedder;
}

/** openWakeWord's framing of Google's speech_embedding model. */
export const OWW = { melBins: 32, window: 76, step: 8, int16Scale: 32767, minSamples: 79 * 160, batch: 64 } as const;

async function speechEmbeddingEmbedder(manifest: ModelManifest, graphs: ModelGraphs, o: SessionOptions): Promise<Embedder> {
  if (!graphs.mel) throw new Error('the speech_embedding model needs its melspectrogram graph');
  const mel = await createSession(graphs.mel, o);
  const emb = await createSession(graphs.main, o);
  const timings: EmbedTimings = { ortMs: 0, frontEndMs: 0, aggregateMs: 0 };
  const outputs = manifest.states.slice(1).map((s) => s.output);
  const embedder: Embedder = {
    manifest,
    info: emb.info,
    timings,
    async embedSource(source, signal) {
      // The mel model takes the whole clip at once (openWakeWord's framing).
      return embedder.embed(await source.whole(signal));
    },
    async embed(audio) {
      if (audio.length === 0) throw new UserError('the clip decodes to no audio');
      let t0 = performance.now();
      // Int16 scale, zero-padded to the 76 mel frames of one window.
      const n = Math.max(audio.length, OWW.minSamples);
      const x = new Float32Array(n);
      for (let i = 0; i < audio.length; i += 1) x[i] = audio[i]! * OWW.int16Scale;
      timings.frontEndMs += performance.now() - t0;
      const m = await timedRun(mel.session, { [mel.session.inputNames[0]!]: new ort.Tensor('float32', x, [1, n]) }, [mel.session.outputNames[0]!], timings);
      t0 = performance.now();
      const spec = m[mel.session.outputNames[0]!]!.data as Float32Array;
      for (let i = 0; i < spec.length; i += 1) spec[i] = spec[i]! / 10 + 2;
      const T = spec.length / OWW.melBins;
      const acc = manifest.states.map((s) => new StatsAccumulator(s.width));
      acc[0]!.add(spec, T);
      const starts: number[] = [];
      for (let s = 0; s + OWW.window <= T; s += OWW.step) starts.push(s);
      timings.frontEndMs += performance.now() - t0;
      for (let b = 0; b < starts.length; b += OWW.batch) {
        t0 = performance.now();
        const batch = starts.slice(b, b + OWW.batch);
        const win = new Float32Array(batch.length * OWW.window * OWW.melBins);
        batch.forEach((s, k) => win.set(spec.subarray(s * OWW.melBins, (s + OWW.window) * OWW.melBins), k * OWW.window * OWW.melBins));
        timings.frontEndMs += performance.now() - t0;
        const r = await timedRun(emb.session, { [manifest.inputName]: new ort.Tensor('float32', win, [batch.length, OWW.window, OWW.melBins, 1]) }, outputs, timings);
        t0 = performance.now();
        manifest.states.slice(1).forEach((s, i) => acc[i + 1]!.add(r[s.output]!.data as Float32Array, batch.length));
        timings.aggregateMs += performance.now() - t0;
      }
      return { ...finish(acc, starts.length), samples: audio.length };
    },
    async release() {
      await mel.session.release();
      await emb.session.release();
    },
  };
  return embedder;
}

export async function createEmbedder(manifest: ModelManifest, graphs: ModelGraphs, o: SessionOptions = {}): Promise<Embedder> {
  return manifest.frontEnd.kind === 'speech-embedding-mel' ? speechEmbeddingEmbedder(manifest, graphs, o) : frameModelEmbedder(manifest, graphs, o);
}
