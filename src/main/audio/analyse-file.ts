/**
 * What an import measures of one file: its SHA-256 and its analysis (length, rate,
 * channels, levels), from one read of the file. WAV and FLAC are measured in process
 * (audio/pcm-analyse.ts); any other file, or one those readers refuse, goes to ffmpeg,
 * hashed from the bytes already read. Files larger than IN_MEMORY_BYTES are hashed in
 * a stream and, when they are WAVs, measured block by block, so no recording sits in
 * memory whole.
 */
import { createHash } from 'node:crypto';
import { open, type FileHandle } from 'node:fs/promises';
import { CancelledError } from '../../shared/errors';
import { analyseAudio, AudioDecodeError, type AnalysedAudio } from './decode';
import { FlacUnsupported } from './flac';
import { analyseFlacBuffer, analyseWavBuffer, wavAnalysisRefusal, WavMeter } from './pcm-analyse';
import { parseWavHeader, type WavHeader } from './wav';

/** Files up to this size are read whole (one read: hash and analysis from the same bytes). */
export const IN_MEMORY_BYTES = 16 << 20;

export interface FileAnalysis {
  sha256: string;
  /** The analysis, or why the file is not readable audio. */
  audio: AnalysedAudio | AudioDecodeError;
  /** Bytes the WAV header declares beyond the end of the file (0 when complete, null when not a WAV). */
  wavShortfallBytes: number | null;
  /** Who measured it: in process ('wav', 'flac') or ffmpeg, and why not in process. */
  via: 'wav' | 'flac' | 'ffmpeg';
  inProcessRefusal: string | null;
}

function headerOf(buf: Buffer, size: number): { header: WavHeader | null; reason: string } {
  const p = parseWavHeader((pos, len) => buf.subarray(pos, Math.min(buf.length, pos + len)), size);
  return p.ok ? { header: p.header, reason: '' } : { header: null, reason: p.reason };
}

function shortfall(h: WavHeader | null, size: number): number | null {
  if (!h) return null;
  if (h.declaredBytes === null) return 0;
  return Math.max(0, h.dataOffset + h.declaredBytes - size);
}

async function viaFfmpeg(file: string, signal: AbortSignal | undefined): Promise<AnalysedAudio | AudioDecodeError> {
  try {
    return await analyseAudio(file, signal ? { signal } : {});
  } catch (err) {
    if (err instanceof AudioDecodeError) return err;
    throw err;
  }
}

async function readWhole(fh: FileHandle, size: number): Promise<Buffer> {
  const buf = Buffer.allocUnsafe(size);
  let off = 0;
  while (off < size) {
    const { bytesRead } = await fh.read(buf, off, size - off, off);
    if (bytesRead === 0) break;
    off += bytesRead;
  }
  return off === size ? buf : buf.subarray(0, off);
}

/**
 * Hash and measure one file. `forceFfmpeg` measures with ffmpeg whatever the format (the
 * tests compare both ways). Cancelling through `signal` rejects with CancelledError.
 */
export async function analyseFile(file: string, options: { signal?: AbortSignal; forceFfmpeg?: boolean } = {}): Promise<FileAnalysis> {
  const { signal } = options;
  if (signal?.aborted) throw new CancelledError();
  const fh = await open(file, 'r');
  try {
    const size = (await fh.stat()).size;
    if (size > IN_MEMORY_BYTES) return await analyseLarge(file, fh, size, options);
    const buf = await readWhole(fh, size);
    await fh.close();
    const sha256 = createHash('sha256').update(buf).digest('hex');
    const { header, reason } = headerOf(buf, buf.length);
    let refusal: string | null = options.forceFfmpeg ? 'ffmpeg asked for' : null;
    if (!refusal) {
      if (header) {
        refusal = wavAnalysisRefusal(header, buf.length);
        if (!refusal) return { sha256, audio: analyseWavBuffer(buf, header), wavShortfallBytes: 0, via: 'wav', inProcessRefusal: null };
      } else if (buf.length >= 4 && buf.toString('latin1', 0, 4) === 'fLaC') {
        try {
          return { sha256, audio: analyseFlacBuffer(buf), wavShortfallBytes: null, via: 'flac', inProcessRefusal: null };
        } catch (err) {
          if (!(err instanceof FlacUnsupported)) throw err;
          refusal = `FLAC: ${err.message}`;
        }
      } else refusal = reason;
    }
    return { sha256, audio: await viaFfmpeg(file, signal), wavShortfallBytes: shortfall(header, buf.length), via: 'ffmpeg', inProcessRefusal: refusal };
  } finally {
    await fh.close().catch(() => undefined);
  }
}

const STREAM_CHUNK = 1 << 20;

/** A large file: hashed in a stream; a WAV measured in the same pass, anything else by ffmpeg. */
async function analyseLarge(file: string, fh: FileHandle, size: number, options: { signal?: AbortSignal; forceFfmpeg?: boolean }): Promise<FileAnalysis> {
  const hash = createHash('sha256');
  const head = Buffer.allocUnsafe(Math.min(size, 65536));
  await fh.read(head, 0, head.length, 0);
  const { header, reason } = headerOf(head, size);
  const refusal = options.forceFfmpeg ? 'ffmpeg asked for' : header ? wavAnalysisRefusal(header, size) : reason || 'not a WAV';
  // Only a WAV whose header fits the first 64 KiB is measured while hashing.
  const measure = !refusal && header !== null && header.dataOffset < head.length;
  const meter = measure ? new WavMeter(header) : null;
  const dataEnd = header && header.declaredBytes !== null ? header.dataOffset + header.declaredBytes : 0;
  let pending = Buffer.alloc(0);
  const chunk = Buffer.allocUnsafe(STREAM_CHUNK);
  for (let pos = 0; pos < size; ) {
    if (options.signal?.aborted) throw new CancelledError();
    const { bytesRead } = await fh.read(chunk, 0, Math.min(STREAM_CHUNK, size - pos), pos);
    if (bytesRead === 0) break;
    const bytes = chunk.subarray(0, bytesRead);
    hash.update(bytes);
    if (meter && header) {
      // The part of these bytes inside the data chunk, after what the last chunk left over.
      const from = Math.max(0, header.dataOffset - pos);
      const to = Math.min(bytes.length, dataEnd - pos);
      if (to > from) {
        const data = pending.length ? Buffer.concat([pending, bytes.subarray(from, to)]) : bytes.subarray(from, to);
        const whole = data.length - (data.length % header.blockAlign);
        // Copied: the typed view wants alignment, and `chunk` is reused.
        meter.push(Buffer.from(data.subarray(0, whole)));
        pending = Buffer.from(data.subarray(whole));
      }
    }
    pos += bytesRead;
  }
  const measured = meter ? meter.result() : null;
  const sha256 = hash.digest('hex');
  if (measured) return { sha256, audio: measured, wavShortfallBytes: 0, via: 'wav', inProcessRefusal: null };
  return { sha256, audio: await viaFfmpeg(file, options.signal), wavShortfallBytes: shortfall(header, size), via: 'ffmpeg', inProcessRefusal: refusal || 'larger than the in-memory limit' };
}
