/**
 * Which text encoding a spreadsheet file is in, as Windows and macOS programs write them
 * (issue 35.9): UTF-8 with or without a byte order mark ("CSV UTF-8"), UTF-16 with one
 * (Excel's "Unicode Text", little-endian; big-endian from some Mac tools), and Windows-1252
 * (Excel's plain "CSV (Comma delimited)" on a Western European Windows).
 *
 * A byte order mark decides. Without one the file is UTF-8 when every byte is, and
 * Windows-1252 only when no reading of it is ambiguous: a file that holds valid UTF-8
 * letters and also bytes that are not UTF-8 mixes two encodings, and a byte Windows-1252
 * leaves undefined (0x81, 0x8D, 0x8F, 0x90, 0x9D) or a zero byte means it is neither. Those
 * are refused with the line and the byte: reading them either way would silently rename a
 * speaker group ("Québec" as "QuÃ©bec" or "Qu\ufffdbec").
 */
import { isAscii, isUtf8 } from 'node:buffer';
import { readSync } from 'node:fs';

export type SpreadsheetEncoding = 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252';

export interface DetectedEncoding {
  encoding: SpreadsheetEncoding;
  /** Whether the file starts with a byte order mark (kept in the decoded text; the CSV reader skips it). */
  bom: boolean;
}

/** How the preview and the import record name each encoding, for an auditor. */
export const ENCODING_NAMES: Record<SpreadsheetEncoding, string> = {
  'utf-8': 'UTF-8',
  'utf-16le': 'UTF-16 (little-endian, as Excel\'s "Unicode Text" saves it)',
  'utf-16be': 'UTF-16 (big-endian)',
  'windows-1252': 'Windows-1252 (Western European, as Excel\'s "CSV (Comma delimited)" saves it on Windows)',
};

/** The encoding a byte order mark at the start of `head` names, or null. */
export function bomEncoding(head: Uint8Array): SpreadsheetEncoding | null {
  if (head.length >= 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return 'utf-8';
  if (head.length >= 2 && head[0] === 0xff && head[1] === 0xfe) return 'utf-16le';
  if (head.length >= 2 && head[0] === 0xfe && head[1] === 0xff) return 'utf-16be';
  return null;
}

/**
 * Windows-1252's characters for 0x80–0x9F (the rest is Latin-1), from the code page's table;
 * 0x81, 0x8D, 0x8F, 0x90, 0x9D are undefined and refused before decoding. Checked with
 *   python3 -c "print(''.join(bytes([b]).decode('cp1252', 'replace') for b in range(0x80, 0xa0)))"
 * Not TextDecoder('windows-1252'): Node 20 decodes a whole buffer with it as Latin-1 (0x80 as
 * U+0080, not €) and only a streamed one by the table.
 */
const CP1252_HIGH = '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ';

function decodeCp1252(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 8192) {
    const codes = Array.from(bytes.subarray(i, i + 8192), (b) => (b >= 0x80 && b < 0xa0 ? CP1252_HIGH.charCodeAt(b - 0x80) : b));
    out += String.fromCharCode(...codes);
  }
  return out;
}

/** What decodes a file's bytes, chunk by chunk (`stream` while more are to come). */
export interface ChunkDecoder {
  decode(bytes: Uint8Array, options?: { stream?: boolean }): string;
}

/** A decoder for `encoding` that keeps a BOM in the text and, but for Windows-1252 (checked before), fails on bytes that are not text. */
export function spreadsheetDecoder(encoding: SpreadsheetEncoding): ChunkDecoder {
  if (encoding === 'windows-1252') return { decode: (bytes) => decodeCp1252(bytes) };
  return new TextDecoder(encoding, { fatal: true, ignoreBOM: true });
}

/** Why a file cannot be read as text, with the 1-based line it happens on. */
export class EncodingProblem extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
    this.name = 'EncodingProblem';
  }
}

const hex = (b: number) => `0x${b.toString(16).padStart(2, '0').toUpperCase()}`;
/** Bytes Windows-1252 assigns no character to. */
const CP1252_UNDEFINED = new Set([0x81, 0x8d, 0x8f, 0x90, 0x9d]);
const SAVE_AS_UTF8 = 'Save the file as UTF-8 (in a spreadsheet: "CSV UTF-8") and import it again.';

/**
 * Length of the valid UTF-8 multi-byte sequence starting at bytes[i] (2 to 4), 0 when none
 * starts there, or -1 when the buffer ends inside what may be one.
 */
function utf8SequenceAt(bytes: Uint8Array, i: number): number {
  const b = bytes[i]!;
  const len = b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
  if (len === 0) return 0;
  for (let k = 1; k < len; k += 1) {
    if (i + k >= bytes.length) return -1;
    const c = bytes[i + k]!;
    // The second byte's range excludes overlong forms, surrogates and code points past U+10FFFF.
    const lo = k === 1 && b === 0xe0 ? 0xa0 : k === 1 && b === 0xf0 ? 0x90 : 0x80;
    const hi = k === 1 && b === 0xed ? 0x9f : k === 1 && b === 0xf4 ? 0x8f : 0xbf;
    if (c < lo || c > hi) return 0;
  }
  return len;
}

const CHUNK = 1 << 16;

/** Length of `bytes` without a UTF-8 sequence its end cuts short (that tail is read with the next chunk). */
function completeUtf8Length(bytes: Uint8Array): number {
  for (let k = 1; k <= Math.min(3, bytes.length); k += 1) {
    const c = bytes[bytes.length - k]!;
    if (c < 0x80) return bytes.length;
    if (c >= 0xc0) {
      const need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
      return need > k ? bytes.length - k : bytes.length;
    }
  }
  return bytes.length;
}

/** Line ends in `bytes` (CRLF, LF or a lone CR each one), given whether the byte before was a CR. */
function lineEnds(bytes: Buffer, afterCr: boolean): number {
  let count = 0;
  for (let i = bytes.indexOf(0x0a); i !== -1; i = bytes.indexOf(0x0a, i + 1)) count += 1;
  for (let i = bytes.indexOf(0x0d); i !== -1; i = bytes.indexOf(0x0d, i + 1)) if (bytes[i + 1] !== 0x0a) count += 1;
  // A CR that ended the chunk before and an LF that starts this one are one line end, counted there.
  if (afterCr && bytes[0] === 0x0a) count -= 1;
  return count;
}

/** Reads bytes from `position` into `into`, returning how many (0 at the end). */
type ReadAt = (into: Buffer, position: number) => number;

/**
 * The encoding of the open file `fd` (read from its start with explicit positions, so
 * the descriptor's own position is not moved). Throws EncodingProblem, naming the line
 * and the byte, for a file that is no text it can read without guessing.
 */
export function detectEncoding(fd: number): DetectedEncoding {
  return detectFrom((into, position) => readSync(fd, into, 0, into.length, position));
}

/** detectEncoding for bytes already in memory. */
export function detectBufferEncoding(bytes: Uint8Array): DetectedEncoding {
  const all = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return detectFrom((into, position) => all.copy(into, 0, Math.min(position, all.length)));
}

function detectFrom(readAt: ReadAt): DetectedEncoding {
  const buf = Buffer.alloc(CHUNK);
  const head = buf.subarray(0, readAt(buf, 0));
  const bom = bomEncoding(head);
  if (bom) return { encoding: bom, bom: true };
  // UTF-16 without a byte order mark: most characters of a manifest are ASCII, so every other byte is zero.
  if (head.length >= 4) {
    let zeros = 0;
    for (const b of head) if (b === 0) zeros += 1;
    if (zeros * 4 >= head.length) {
      throw new EncodingProblem(
        'the file looks like UTF-16 text without a byte order mark (every other byte is zero), so its encoding cannot be told for certain. Save it as "CSV UTF-8", or as "Unicode Text", which starts with one, and import it again.',
        1,
      );
    }
  }
  // One pass: is every byte UTF-8? If not, is the whole file plain Windows-1252?
  let pos = 0;
  let line = 1;
  let lastWasCr = false;
  let firstInvalid: { line: number; byte: number } | null = null;
  let firstUtf8: { line: number; text: string } | null = null;
  let carry = Buffer.alloc(0);
  for (;;) {
    const n = readAt(buf, pos);
    pos += n;
    const bytes = carry.length ? Buffer.concat([carry, buf.subarray(0, n)]) : buf.subarray(0, n);
    carry = Buffer.alloc(0);
    // The usual chunk (ASCII, or UTF-8 once a UTF-8 letter was seen, no zero byte) is checked
    // natively and only its line ends counted; byte by byte only where something must be named.
    const whole = n > 0 ? completeUtf8Length(bytes) : bytes.length;
    const body = bytes.subarray(0, whole);
    if (firstInvalid === null && body.indexOf(0) === -1 && (isAscii(body) || (firstUtf8 !== null && isUtf8(body)))) {
      line += lineEnds(body, lastWasCr);
      if (body.length > 0) lastWasCr = body[body.length - 1] === 0x0d;
      carry = Buffer.from(bytes.subarray(whole));
      if (n === 0) break;
      continue;
    }
    let i = 0;
    while (i < bytes.length) {
      const b = bytes[i]!;
      if (b < 0x80) {
        if (b === 0x0a) {
          if (!lastWasCr) line += 1;
        } else if (b === 0x0d) line += 1;
        else if (b === 0) throw new EncodingProblem(`line ${line} has a zero byte, which no text file has: is this file a spreadsheet saved as text? ${SAVE_AS_UTF8}`, line);
        lastWasCr = b === 0x0d;
        i += 1;
        continue;
      }
      lastWasCr = false;
      const len = utf8SequenceAt(bytes, i);
      if (len === -1 && n > 0) {
        carry = Buffer.from(bytes.subarray(i));
        break;
      }
      if (len > 0) {
        firstUtf8 ??= { line, text: bytes.toString('utf8', i, i + len) };
        i += len;
        continue;
      }
      if (CP1252_UNDEFINED.has(b)) {
        throw new EncodingProblem(`line ${line} has the byte ${hex(b)}, which is neither UTF-8 nor Windows-1252 text. ${SAVE_AS_UTF8}`, line);
      }
      firstInvalid ??= { line, byte: b };
      i += 1;
    }
    if (n === 0) break;
  }
  if (!firstInvalid) return { encoding: 'utf-8', bom: false };
  const asCp1252 = decodeCp1252(Uint8Array.of(firstInvalid.byte));
  if (firstUtf8) {
    throw new EncodingProblem(
      `the file mixes two encodings: line ${firstUtf8.line} has UTF-8 text ("${firstUtf8.text}") but line ${firstInvalid.line} has the byte ${hex(firstInvalid.byte)} ("${asCp1252}" in Windows-1252), which is not UTF-8, so no one reading is right for every line. ${SAVE_AS_UTF8}`,
      firstInvalid.line,
    );
  }
  return { encoding: 'windows-1252', bom: false };
}

/**
 * A whole file's bytes as text in the encoding they are in (BOM kept), or EncodingProblem.
 * For tables read in one piece (FDI scores, the `stats` commands' input).
 */
export function decodeSpreadsheetBytes(bytes: Uint8Array): { text: string; encoding: DetectedEncoding } {
  const encoding = detectBufferEncoding(bytes);
  try {
    return { text: spreadsheetDecoder(encoding.encoding).decode(bytes), encoding };
  } catch {
    throw new EncodingProblem(`the file starts with a byte order mark for ${ENCODING_NAMES[encoding.encoding]} but its bytes are not that text. ${SAVE_AS_UTF8}`, 1);
  }
}
