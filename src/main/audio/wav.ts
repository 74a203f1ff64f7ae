/**
 * In-process reading of the WAV files that need no conversion: RIFF/WAVE, one channel,
 * 16 kHz, integer PCM (8-bit unsigned, 16/24/32-bit signed) or IEEE float (32/64-bit),
 * plain or WAVE_FORMAT_EXTENSIBLE. Samples become float32 exactly as ffmpeg's
 * `-f f32le` conversion makes them (x / 2^(bits−1); u8: (x − 128) / 128; float64 rounded
 * to float32), so a clip gives the same numbers whichever way it was read. Anything else
 * (other rates or channel counts, which need ffmpeg's resampler or downmix, compressed
 * or unusual WAVs, RF64, other containers) is left to ffmpeg: parseWav returns why not.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { endianness } from 'node:os';

const LITTLE_ENDIAN = endianness() === 'LE';

export interface WavLayout {
  format: 'pcm' | 'float';
  bits: 8 | 16 | 24 | 32 | 64;
  /** Bytes per sample frame (one channel here). */
  blockAlign: number;
  /** Byte offset of the first sample. */
  dataOffset: number;
  /** Whole samples present (clamped to the file, as ffmpeg does for a cut-off file). */
  samples: number;
}

export type WavParse = { ok: true; layout: WavLayout } | { ok: false; reason: string };

const EXTENSIBLE = 0xfffe;
/** The 14 bytes after the format code in KSDATAFORMAT_SUBTYPE_PCM / _IEEE_FLOAT. */
const SUBFORMAT_TAIL = Buffer.from([0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xaa, 0x00, 0x38, 0x9b, 0x71]);

/** Read `length` bytes at `position` (fewer at the end of the file). */
function readAt(fd: number, position: number, length: number): Buffer {
  const b = Buffer.alloc(length);
  const n = readSync(fd, b, 0, length, position);
  return b.subarray(0, n);
}

/** Everything a RIFF/WAVE header says that the in-process readers use, whatever the rate or channel count. */
export interface WavHeader {
  format: 'pcm' | 'float';
  bits: 8 | 16 | 24 | 32 | 64;
  channels: number;
  sampleRate: number;
  /** WAVE_FORMAT_EXTENSIBLE's speaker mask (null for a plain header). */
  channelMask: number | null;
  /** Bytes per sample frame (all channels). */
  blockAlign: number;
  dataOffset: number;
  /** The size the data chunk declares (null: 0 or 0xFFFFFFFF, "unknown", as streamed writers leave it). */
  declaredBytes: number | null;
  /** Data bytes present in the file. */
  presentBytes: number;
}

export type WavHeaderParse = { ok: true; header: WavHeader } | { ok: false; reason: string };

/**
 * Walk a RIFF/WAVE file's chunks through `read(position, length)` up to the data chunk.
 * Rate and channel count are not judged here (see parseWav and audio/pcm-analyse.ts).
 */
export function parseWavHeader(read: (position: number, length: number) => Buffer, size: number): WavHeaderParse {
  const head = read(0, 12);
  if (head.length < 12 || head.toString('latin1', 0, 4) !== 'RIFF' || head.toString('latin1', 8, 12) !== 'WAVE') return { ok: false, reason: 'not a RIFF/WAVE file' };
  let off = 12;
  let fmt: Buffer | null = null;
  while (off + 8 <= size) {
    const h = read(off, 8);
    if (h.length < 8) break;
    const id = h.toString('latin1', 0, 4);
    const len = h.readUInt32LE(4);
    if (id === 'fmt ') {
      if (len < 16 || len > 64) return { ok: false, reason: `fmt chunk of ${len} bytes` };
      fmt = read(off + 8, len);
      if (fmt.length < len) return { ok: false, reason: 'truncated fmt chunk' };
    } else if (id === 'data') {
      if (!fmt) return { ok: false, reason: 'data before fmt' };
      const f = fmtFields(fmt);
      if (!f.ok) return f;
      const dataOffset = off + 8;
      const declaredBytes = len === 0 || len === 0xffffffff ? null : len;
      const presentBytes = Math.max(0, Math.min(declaredBytes ?? size - dataOffset, size - dataOffset));
      return { ok: true, header: { ...f.fields, dataOffset, declaredBytes, presentBytes } };
    }
    off += 8 + len + (len % 2);
  }
  return { ok: false, reason: fmt ? 'no data chunk' : 'no fmt chunk' };
}

/** The layout of a WAV this module can read, or why it must go to ffmpeg. */
export function parseWav(fd: number): WavParse {
  const size = fstatSync(fd).size;
  const p = parseWavHeader((position, length) => readAt(fd, position, length), size);
  if (!p.ok) return p;
  const h = p.header;
  if (h.channels !== 1) return { ok: false, reason: `${h.channels} channels (downmixed by ffmpeg)` };
  if (h.sampleRate !== 16000) return { ok: false, reason: `${h.sampleRate} Hz (resampled by ffmpeg)` };
  if (h.channelMask !== null && h.channelMask !== 0 && h.channelMask !== MONO_MASK) return { ok: false, reason: `speaker mask 0x${h.channelMask.toString(16)}` };
  return { ok: true, layout: { format: h.format, bits: h.bits, blockAlign: h.blockAlign, dataOffset: h.dataOffset, samples: Math.floor(h.presentBytes / h.blockAlign) } };
}

/** WAVE_FORMAT_EXTENSIBLE's speaker mask for ffmpeg's mono layout (front centre). */
export const MONO_MASK = 0x4;

function fmtFields(fmt: Buffer): { ok: true; fields: Omit<WavHeader, 'dataOffset' | 'declaredBytes' | 'presentBytes'> } | { ok: false; reason: string } {
  let code = fmt.readUInt16LE(0);
  const channels = fmt.readUInt16LE(2);
  const rate = fmt.readUInt32LE(4);
  const byteRate = fmt.readUInt32LE(8);
  const blockAlign = fmt.readUInt16LE(12);
  const bits = fmt.readUInt16LE(14);
  let channelMask: number | null = null;
  if (code === EXTENSIBLE) {
    if (fmt.length < 40 || fmt.readUInt16LE(16) < 22) return { ok: false, reason: 'short WAVE_FORMAT_EXTENSIBLE header' };
    if (fmt.readUInt16LE(18) !== bits) return { ok: false, reason: 'valid bits differ from the container size' };
    if (!fmt.subarray(26, 40).equals(SUBFORMAT_TAIL)) return { ok: false, reason: 'unknown sub-format' };
    channelMask = fmt.readUInt32LE(20);
    code = fmt.readUInt16LE(24);
  }
  if (channels < 1) return { ok: false, reason: 'no channels' };
  if (rate < 1) return { ok: false, reason: 'no sample rate' };
  let format: 'pcm' | 'float';
  if (code === 1 && (bits === 8 || bits === 16 || bits === 24 || bits === 32)) format = 'pcm';
  else if (code === 3 && (bits === 32 || bits === 64)) format = 'float';
  else return { ok: false, reason: `format ${code} with ${bits}-bit samples` };
  if (blockAlign !== (bits / 8) * channels || byteRate !== rate * blockAlign) return { ok: false, reason: 'inconsistent block alignment or byte rate' };
  return { ok: true, fields: { format, bits: bits as WavHeader['bits'], channels, sampleRate: rate, channelMask, blockAlign } };
}

/** Convert `count` samples from raw little-endian bytes, as ffmpeg's f32le output has them. */
export function convertSamples(raw: Buffer, layout: Pick<WavLayout, 'format' | 'bits'>, count: number, out: Float32Array = new Float32Array(count)): Float32Array {
  const { format, bits } = layout;
  // Typed views where alignment allows (little-endian hosts, as every platform Equivox runs on).
  if (LITTLE_ENDIAN && format === 'pcm' && bits === 16 && raw.byteOffset % 2 === 0) {
    const v = new Int16Array(raw.buffer, raw.byteOffset, count);
    for (let i = 0; i < count; i += 1) out[i] = v[i]! / 32768;
    return out;
  }
  if (LITTLE_ENDIAN && format === 'float' && bits === 32 && raw.byteOffset % 4 === 0) {
    out.set(new Float32Array(raw.buffer, raw.byteOffset, count));
    return out;
  }
  if (format === 'float' && bits === 32) {
    for (let i = 0; i < count; i += 1) out[i] = raw.readFloatLE(i * 4);
  } else if (format === 'float') {
    for (let i = 0; i < count; i += 1) out[i] = raw.readDoubleLE(i * 8);
  } else if (bits === 16) {
    for (let i = 0; i < count; i += 1) out[i] = raw.readInt16LE(i * 2) / 32768;
  } else if (bits === 24) {
    for (let i = 0; i < count; i += 1) out[i] = raw.readIntLE(i * 3, 3) / 8388608;
  } else if (bits === 32) {
    // ffmpeg rounds the int32 to float32 first, then scales by 2^-31 (exact).
    for (let i = 0; i < count; i += 1) out[i] = Math.fround(raw.readInt32LE(i * 4)) / 2147483648;
  } else {
    for (let i = 0; i < count; i += 1) out[i] = (raw[i]! - 128) / 128;
  }
  return out;
}

/** Samples per block when reading a WAV in passes (about 4 s at 16 kHz). */
export const WAV_BLOCK = 65536;

/** Open a WAV this module reads, or null (with the reason) to leave it to ffmpeg. */
export function openWav(file: string): { fd: number; layout: WavLayout } | { fd: null; reason: string } {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    return { fd: null, reason: err instanceof Error ? err.message : String(err) };
  }
  try {
    const p = parseWav(fd);
    if (p.ok) return { fd, layout: p.layout };
    closeSync(fd);
    return { fd: null, reason: p.reason };
  } catch (err) {
    closeSync(fd);
    return { fd: null, reason: err instanceof Error ? err.message : String(err) };
  }
}

/** Samples [start, start + count) of an open WAV. */
export function readWavBlock(fd: number, layout: WavLayout, start: number, count: number): Float32Array {
  const n = Math.max(0, Math.min(count, layout.samples - start));
  const raw = readAt(fd, layout.dataOffset + start * layout.blockAlign, n * layout.blockAlign);
  return convertSamples(raw, layout, Math.floor(raw.length / layout.blockAlign));
}

/** A whole WAV read in process, or null when it must go to ffmpeg. */
export function readWavFile(file: string): Float32Array | null {
  const w = openWav(file);
  if (w.fd === null) return null;
  try {
    return readWavBlock(w.fd, w.layout, 0, w.layout.samples);
  } finally {
    closeSync(w.fd);
  }
}

/** Header sizes a writer may set against the truth (hostile test fixtures); by default the true ones. */
export interface WavHeaderSizes {
  riff?: number;
  data?: number;
  fmt?: number;
}

/**
 * The one WAV writer (app, tests, benches, scripts): the 44-byte header of 16-bit PCM
 * mono WAV holding `samples` samples at `rate` Hz.
 */
export function pcm16WavHeader(samples: number, rate = 16000, sizes: WavHeaderSizes = {}): Buffer {
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'latin1');
  h.writeUInt32LE(sizes.riff ?? 36 + samples * 2, 4);
  h.write('WAVEfmt ', 8, 'latin1');
  h.writeUInt32LE(sizes.fmt ?? 16, 16);
  h.writeUInt16LE(1, 20); // PCM
  h.writeUInt16LE(1, 22); // mono
  h.writeUInt32LE(rate, 24);
  h.writeUInt32LE(rate * 2, 28); // byte rate
  h.writeUInt16LE(2, 32); // block align
  h.writeUInt16LE(16, 34); // bits per sample
  h.write('data', 36, 'latin1');
  h.writeUInt32LE(sizes.data ?? samples * 2, 40);
  return h;
}

/** Float samples as 16-bit PCM: clipped to [-1, 1], scaled by 32767 and rounded. */
export function pcm16Bytes(samples: ArrayLike<number>): Buffer {
  const data = Buffer.alloc(samples.length * 2);
  for (let i = 0; i < samples.length; i += 1) data.writeInt16LE(Math.round(Math.max(-1, Math.min(1, samples[i]!)) * 32767), i * 2);
  return data;
}

/** A whole 16-bit PCM mono WAV file's bytes. */
export function encodeWav16(samples: ArrayLike<number>, rate = 16000, sizes: WavHeaderSizes = {}): Buffer {
  return Buffer.concat([pcm16WavHeader(samples.length, rate, sizes), pcm16Bytes(samples)]);
}
