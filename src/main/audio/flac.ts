/**
 * A FLAC decoder (RFC 9639) for reading recordings in process during import. Written
 * here rather than taken from npm: the maintained WebAssembly decoder there
 * (@wasm-audio-decoders/flac) parses frames with codec-parser, which is LGPL-3.0, and
 * decodes asynchronously. FLAC is lossless, so any correct decoder gives the integers
 * ffmpeg's gives; the tests hold this one to `flac -d` and to ffmpeg's analysis on the
 * frame types encoders write (constant, verbatim, fixed, LPC up to order 32, wasted bits,
 * independent and the three decorrelated stereo modes, 16 and 24 bits, odd block sizes).
 *
 * Every frame's CRC-8 and CRC-16 are checked; anything this decoder does not handle or
 * finds inconsistent raises FlacUnsupported, and the caller hands the file to ffmpeg,
 * whose diagnostics then describe it.
 */

export class FlacUnsupported extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'FlacUnsupported';
  }
}

export interface FlacStreamInfo {
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  /** Total samples per channel the STREAMINFO block declares (0 = unknown). */
  totalSamples: number;
  minBlockSize: number;
  maxBlockSize: number;
}

const CRC8 = new Uint8Array(256);
const CRC16 = new Uint16Array(256);
for (let i = 0; i < 256; i += 1) {
  let c = i;
  for (let k = 0; k < 8; k += 1) c = c & 0x80 ? ((c << 1) ^ 0x07) & 0xff : (c << 1) & 0xff;
  CRC8[i] = c;
  let d = i << 8;
  for (let k = 0; k < 8; k += 1) d = d & 0x8000 ? ((d << 1) ^ 0x8005) & 0xffff : (d << 1) & 0xffff;
  CRC16[i] = d;
}

function crc8(b: Uint8Array, from: number, to: number): number {
  let c = 0;
  for (let i = from; i < to; i += 1) c = CRC8[c ^ b[i]!]!;
  return c;
}

function crc16(b: Uint8Array, from: number, to: number): number {
  let c = 0;
  for (let i = from; i < to; i += 1) c = ((c << 8) & 0xffff) ^ CRC16[(c >>> 8) ^ b[i]!]!;
  return c;
}

/** MSB-first bit reader over a byte range; at most 24 bits per `bits` call. */
class BitReader {
  private cache = 0;
  private n = 0;
  constructor(
    private readonly b: Uint8Array,
    public pos: number,
    private readonly end: number,
  ) {}

  private fill(): void {
    if (this.pos >= this.end) throw new FlacUnsupported('frame runs past the end of the file');
    // Filled only below 24 bits, so the cache stays under 2^31 (a small integer to V8).
    this.cache = (this.cache << 8) | this.b[this.pos++]!;
    this.n += 8;
  }

  bits(k: number): number {
    if (k === 0) return 0;
    while (this.n < k) this.fill();
    this.n -= k;
    const v = (this.cache >>> this.n) & (k === 32 ? 0xffffffff : (1 << k) - 1);
    this.cache &= this.n === 0 ? 0 : (1 << this.n) - 1;
    return v;
  }

  /** Up to 32 bits, unsigned. */
  long(k: number): number {
    if (k <= 24) return this.bits(k);
    const hi = this.bits(k - 16);
    return hi * 65536 + this.bits(16);
  }

  signed(k: number): number {
    if (k === 0) return 0;
    const v = this.long(k);
    return v >= 2 ** (k - 1) ? v - 2 ** k : v;
  }

  /** Zeros before the next one bit (the one is consumed). */
  unary(): number {
    let count = 0;
    for (;;) {
      if (this.n === 0) this.fill();
      if (this.cache === 0) {
        count += this.n;
        this.n = 0;
        continue;
      }
      const lz = Math.clz32(this.cache) - (32 - this.n);
      count += lz;
      this.n -= lz + 1;
      this.cache &= this.n === 0 ? 0 : (1 << this.n) - 1;
      return count;
    }
  }

  /**
   * Rice-coded residuals [from, to) with parameter k into `out`, zigzag-decoded: the hot
   * loop of FLAC decoding, with the reader's state in locals.
   */
  rice(k: number, out: Int32Array, from: number, to: number): void {
    const b = this.b;
    const end = this.end;
    let cache = this.cache;
    let n = this.n;
    let pos = this.pos;
    const big = 2 ** k;
    for (let i = from; i < to; i += 1) {
      // Unary quotient.
      let q = 0;
      for (;;) {
        if (n === 0) {
          if (pos >= end) throw new FlacUnsupported('frame runs past the end of the file');
          cache = b[pos++]!;
          n = 8;
        }
        if (cache === 0) {
          q += n;
          n = 0;
          continue;
        }
        const lz = Math.clz32(cache) - (32 - n);
        q += lz;
        n -= lz + 1;
        cache &= (1 << n) - 1;
        break;
      }
      // k low bits (k <= 30: in two steps above 24).
      let low = 0;
      if (k > 0) {
        let need = k;
        if (need > 24) {
          while (n < need - 16) {
            if (pos >= end) throw new FlacUnsupported('frame runs past the end of the file');
            cache = (cache << 8) | b[pos++]!;
            n += 8;
          }
          n -= need - 16;
          low = (cache >>> n) * 65536;
          cache &= (1 << n) - 1;
          need = 16;
        }
        while (n < need) {
          if (pos >= end) throw new FlacUnsupported('frame runs past the end of the file');
          cache = (cache << 8) | b[pos++]!;
          n += 8;
        }
        n -= need;
        low += cache >>> n;
        cache &= (1 << n) - 1;
      }
      if (k <= 24 && q < 1 << (30 - k)) {
        const u = (q << k) | low;
        out[i] = (u >>> 1) ^ -(u & 1);
      } else {
        // Zigzag above 2^31, in doubles.
        const u = q * big + low;
        out[i] = u % 2 === 0 ? u / 2 : -(u + 1) / 2;
      }
    }
    this.cache = cache;
    this.n = n;
    this.pos = pos;
  }

  /** Skip to the next byte boundary. */
  align(): void {
    this.n -= this.n % 8;
    this.cache &= this.n === 0 ? 0 : (1 << this.n) - 1;
  }

  /** Byte position of the next unread bit (after align). */
  get bytePos(): number {
    return this.pos - this.n / 8;
  }
}

/** The STREAMINFO block and where the first frame starts, or FlacUnsupported. */
export function readFlacHeader(b: Uint8Array): { info: FlacStreamInfo; firstFrame: number } {
  if (b.length < 42 || b[0] !== 0x66 || b[1] !== 0x4c || b[2] !== 0x61 || b[3] !== 0x43) throw new FlacUnsupported('not a native FLAC stream (fLaC)');
  let off = 4;
  let info: FlacStreamInfo | null = null;
  for (;;) {
    if (off + 4 > b.length) throw new FlacUnsupported('metadata runs past the end of the file');
    const last = (b[off]! & 0x80) !== 0;
    const type = b[off]! & 0x7f;
    const len = (b[off + 1]! << 16) | (b[off + 2]! << 8) | b[off + 3]!;
    const body = off + 4;
    if (body + len > b.length) throw new FlacUnsupported('metadata runs past the end of the file');
    if (type === 0) {
      if (off !== 4 || len !== 34) throw new FlacUnsupported('malformed STREAMINFO');
      const r = new BitReader(b, body, body + len);
      const minBlockSize = r.bits(16);
      const maxBlockSize = r.bits(16);
      r.bits(24);
      r.bits(24);
      const sampleRate = r.bits(20);
      const channels = r.bits(3) + 1;
      const bitsPerSample = r.bits(5) + 1;
      const totalSamples = r.bits(4) * 2 ** 32 + r.long(32);
      info = { sampleRate, channels, bitsPerSample, totalSamples, minBlockSize, maxBlockSize };
    } else if (off === 4) throw new FlacUnsupported('STREAMINFO is not the first metadata block');
    off = body + len;
    if (last) break;
  }
  if (!info) throw new FlacUnsupported('no STREAMINFO');
  return { info, firstFrame: off };
}

const BLOCK_SIZES = [0, 192, 576, 1152, 2304, 4608, -1, -2, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768];
const RATES = [0, 88200, 176400, 192000, 8000, 16000, 22050, 24000, 32000, 44100, 48000, 96000, -1, -2, -3, -4];
const SAMPLE_SIZES = [0, 8, 12, -1, 16, 20, 24, 32];

/** One decoded frame: a block of samples per channel (integers, as coded). */
export interface FlacFrame {
  blockSize: number;
  channels: Int32Array[];
}

function decodeResidual(r: BitReader, blockSize: number, order: number, out: Int32Array): void {
  const method = r.bits(2);
  if (method > 1) throw new FlacUnsupported('reserved residual coding method');
  const paramBits = method === 0 ? 4 : 5;
  const escape = method === 0 ? 15 : 31;
  const partitionOrder = r.bits(4);
  const partitions = 1 << partitionOrder;
  const perPartition = blockSize >> partitionOrder;
  if (perPartition << partitionOrder !== blockSize || perPartition < order) throw new FlacUnsupported('bad partition order');
  let i = order;
  for (let p = 0; p < partitions; p += 1) {
    const end = (p + 1) * perPartition;
    const k = r.bits(paramBits);
    if (k === escape) {
      const raw = r.bits(5);
      for (; i < end; i += 1) out[i] = r.signed(raw);
    } else {
      r.rice(k, out, i, end);
      i = end;
    }
  }
}

function decodeSubframe(r: BitReader, blockSize: number, bps: number, out: Int32Array): void {
  if (r.bits(1) !== 0) throw new FlacUnsupported('subframe padding bit set');
  const type = r.bits(6);
  let wasted = 0;
  if (r.bits(1) === 1) wasted = r.unary() + 1;
  if (wasted >= bps) throw new FlacUnsupported('wasted bits exceed the sample size');
  const width = bps - wasted;
  if (type === 0) {
    out.fill(r.signed(width), 0, blockSize);
  } else if (type === 1) {
    for (let i = 0; i < blockSize; i += 1) out[i] = r.signed(width);
  } else if (type >= 8 && type <= 12) {
    const order = type - 8;
    if (order > blockSize) throw new FlacUnsupported('predictor order exceeds the block');
    for (let i = 0; i < order; i += 1) out[i] = r.signed(width);
    decodeResidual(r, blockSize, order, out);
    for (let i = order; i < blockSize; i += 1) {
      let p: number;
      if (order === 0) p = 0;
      else if (order === 1) p = out[i - 1]!;
      else if (order === 2) p = 2 * out[i - 1]! - out[i - 2]!;
      else if (order === 3) p = 3 * out[i - 1]! - 3 * out[i - 2]! + out[i - 3]!;
      else p = 4 * out[i - 1]! - 6 * out[i - 2]! + 4 * out[i - 3]! - out[i - 4]!;
      out[i] = out[i]! + p;
    }
  } else if (type >= 32) {
    const order = type - 31;
    if (order > blockSize) throw new FlacUnsupported('predictor order exceeds the block');
    for (let i = 0; i < order; i += 1) out[i] = r.signed(width);
    const precision = r.bits(4) + 1;
    if (precision === 16) throw new FlacUnsupported('invalid LPC precision');
    const shift = r.signed(5);
    if (shift < 0) throw new FlacUnsupported('negative LPC shift');
    const coefs = new Int32Array(order);
    for (let j = 0; j < order; j += 1) coefs[j] = r.signed(precision);
    decodeResidual(r, blockSize, order, out);
    const div = 2 ** shift;
    for (let i = order; i < blockSize; i += 1) {
      // Exact in doubles: |sum| < 2^25 · 2^15 · 32 = 2^45.
      let sum = 0;
      for (let j = 0; j < order; j += 1) sum += coefs[j]! * out[i - 1 - j]!;
      out[i] = out[i]! + Math.floor(sum / div);
    }
  } else throw new FlacUnsupported(`reserved subframe type ${type}`);
  if (wasted > 0) for (let i = 0; i < blockSize; i += 1) out[i] = out[i]! * 2 ** wasted;
}

/** Decode the frame at `pos`; returns it and the position after it. */
function decodeFrame(b: Uint8Array, pos: number, info: FlacStreamInfo, scratch: Int32Array[]): { frame: FlacFrame; next: number } {
  if (pos + 6 > b.length || b[pos] !== 0xff || (b[pos + 1]! & 0xfe) !== 0xf8) throw new FlacUnsupported(`no frame sync at byte ${pos}`);
  const r = new BitReader(b, pos + 2, b.length);
  const bsCode = r.bits(4);
  const rateCode = r.bits(4);
  const chanCode = r.bits(4);
  const sizeCode = r.bits(3);
  if (r.bits(1) !== 0) throw new FlacUnsupported('reserved frame header bit set');
  // The frame or sample number, UTF-8-like coded; its value is not needed.
  const first = r.bits(8);
  let extra = 0;
  if (first >= 0x80) {
    if (first >= 0xfe) extra = first === 0xfe ? 6 : -1;
    else if (first >= 0xfc) extra = 5;
    else if (first >= 0xf8) extra = 4;
    else if (first >= 0xf0) extra = 3;
    else if (first >= 0xe0) extra = 2;
    else if (first >= 0xc0) extra = 1;
    else extra = -1;
  }
  if (extra < 0) throw new FlacUnsupported('bad frame number');
  for (let i = 0; i < extra; i += 1) if ((r.bits(8) & 0xc0) !== 0x80) throw new FlacUnsupported('bad frame number');
  let blockSize = BLOCK_SIZES[bsCode]!;
  if (blockSize === -1) blockSize = r.bits(8) + 1;
  else if (blockSize === -2) blockSize = r.bits(16) + 1;
  else if (blockSize === 0) throw new FlacUnsupported('reserved block size');
  let rate = RATES[rateCode]!;
  if (rate === -1) rate = r.bits(8) * 1000;
  else if (rate === -2) rate = r.bits(16);
  else if (rate === -3) rate = r.bits(16) * 10;
  else if (rate === -4) throw new FlacUnsupported('invalid sample rate code');
  if (rate !== 0 && rate !== info.sampleRate) throw new FlacUnsupported('a frame changes the sample rate');
  let bps = SAMPLE_SIZES[sizeCode]!;
  if (bps === 0) bps = info.bitsPerSample;
  if (bps !== info.bitsPerSample) throw new FlacUnsupported('a frame changes the sample size');
  const channels = chanCode < 8 ? chanCode + 1 : chanCode <= 10 ? 2 : -1;
  if (channels !== info.channels) throw new FlacUnsupported('a frame changes the channel count');
  const headerEnd = r.bytePos;
  if (r.bits(8) !== crc8(b, pos, headerEnd)) throw new FlacUnsupported('frame header CRC mismatch');
  const out: Int32Array[] = [];
  for (let c = 0; c < channels; c += 1) {
    if (!scratch[c] || scratch[c]!.length < blockSize) scratch[c] = new Int32Array(Math.max(blockSize, info.maxBlockSize));
    const sideChannel = (chanCode === 8 && c === 1) || (chanCode === 9 && c === 0) || (chanCode === 10 && c === 1);
    decodeSubframe(r, blockSize, bps + (sideChannel ? 1 : 0), scratch[c]!);
    out.push(scratch[c]!.subarray(0, blockSize));
  }
  r.align();
  const end = r.bytePos;
  if (end + 2 > b.length) throw new FlacUnsupported('frame runs past the end of the file');
  if (((b[end]! << 8) | b[end + 1]!) !== crc16(b, pos, end)) throw new FlacUnsupported('frame CRC mismatch');
  if (chanCode >= 8) {
    const a = out[0]!;
    const s = out[1]!;
    for (let i = 0; i < blockSize; i += 1) {
      if (chanCode === 8) s[i] = a[i]! - s[i]!; // left/side: right = left − side
      else if (chanCode === 9) a[i] = a[i]! + s[i]!; // side/right: left = side + right
      else {
        const mid = a[i]! * 2 + (s[i]! & 1);
        const side = s[i]!;
        a[i] = (mid + side) >> 1;
        s[i] = (mid - side) >> 1;
      }
    }
  }
  return { frame: { blockSize, channels: out }, next: end + 2 };
}

/**
 * Decode a whole FLAC file held in memory, handing each frame's samples to `onFrame`
 * (the arrays are reused: copy what must outlive the call); `onInfo` sees STREAMINFO
 * before the first frame. Throws FlacUnsupported when
 * the file is not something this decoder reads exactly (then ffmpeg decodes it).
 */
export function decodeFlac(b: Uint8Array, onFrame: (frame: FlacFrame) => void, onInfo?: (info: FlacStreamInfo) => void): FlacStreamInfo {
  const { info, firstFrame } = readFlacHeader(b);
  if (info.bitsPerSample < 4 || info.bitsPerSample > 24) throw new FlacUnsupported(`${info.bitsPerSample}-bit samples`);
  if (info.totalSamples === 0) throw new FlacUnsupported('the stream does not declare its length');
  onInfo?.(info);
  const scratch: Int32Array[] = [];
  let pos = firstFrame;
  let samples = 0;
  while (samples < info.totalSamples) {
    const { frame, next } = decodeFrame(b, pos, info, scratch);
    samples += frame.blockSize;
    if (samples > info.totalSamples) throw new FlacUnsupported('more samples than STREAMINFO declares');
    onFrame(frame);
    pos = next;
  }
  if (pos !== b.length) throw new FlacUnsupported('bytes after the last frame');
  return info;
}
