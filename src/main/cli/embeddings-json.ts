/**
 * Fast reader for `stats speat --input FILE.json` documents of the usual shape,
 * {"X": [[…], …], "Y": …, "A": …, "B": …}: numbers go straight from the file's bytes into
 * one Float64Array per set, with no JavaScript arrays or intermediate strings. At paper
 * scale (4 × 60 rows of 1,024 numbers, 2.5 MB) JSON.parse plus copying took about a fifth
 * of the whole command's time.
 *
 * It returns null for anything else (other keys such as "strata", escapes in keys, empty
 * sets or rows, rows of unequal length, numbers that overflow, malformed JSON): the caller
 * then takes the general path (JSON.parse), which gives the precise error messages. For
 * every document it accepts, the numbers are exactly JSON.parse's: a number with at most
 * 15 significant digits and a decimal exponent within ±22 is one correctly rounded
 * multiplication or division of two exactly representable doubles (Clinger's fast path);
 * any other number is converted by Number() from its own text.
 */

export interface EmbeddingSets {
  X: Float64Array[];
  Y: Float64Array[];
  A: Float64Array[];
  B: Float64Array[];
  dim: number;
}

type SetName = 'X' | 'Y' | 'A' | 'B';

const POW10 = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22];

// Byte values.
const SPACE = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
const COMMA = 0x2c;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const COLON = 0x3a;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const LOWER_E = 0x65;
const UPPER_E = 0x45;

function isSpace(c: number): boolean {
  return c === SPACE || c === LF || c === CR || c === TAB;
}

/** Where parsing stands: `values[0..count)` holds every number read so far. */
interface Cursor {
  pos: number;
  values: Float64Array;
  count: number;
}

/**
 * One row's numbers, from just after its '[' to just after its ']', appended to
 * cursor.values; false when malformed. `bytes` ends with a 0 byte, so reading past a
 * number never meets undefined (which would de-optimise the loops). Run once per command,
 * this code is never warm: small functions called many times (readNumber once per number)
 * get compiled by V8 within the first row, where one big loop took it several times longer.
 */
function readRow(bytes: Uint8Array, cursor: Cursor): boolean {
  let p = cursor.pos;
  let values = cursor.values;
  let count = cursor.count;
  for (;;) {
    while (isSpace(bytes[p]!)) p += 1;
    if (count === values.length) {
      const bigger = new Float64Array(values.length * 2);
      bigger.set(values);
      values = bigger;
      cursor.values = values;
    }
    p = readNumber(bytes, p, values, count);
    if (p < 0) return false;
    count += 1;
    while (isSpace(bytes[p]!)) p += 1;
    const c = bytes[p]!;
    p += 1;
    if (c === COMMA) continue;
    cursor.pos = p;
    cursor.count = count;
    return c === CLOSE_BRACKET;
  }
}

/**
 * A JSON number, -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, starting at p, into
 * out[index]; returns the position after it, or −1.
 */
function readNumber(bytes: Uint8Array, p: number, out: Float64Array, index: number): number {
  const start = p;
  let c = bytes[p]!;
  const negative = c === MINUS;
  if (negative) c = bytes[++p]!;
  // (c − '0') >>> 0 ≤ 9 is one comparison for '0' ≤ c ≤ '9'.
  let d = c - ZERO;
  if (d >>> 0 > 9) return -1;
  const first = p;
  let mantissa = d;
  c = bytes[++p]!;
  d = c - ZERO;
  if (mantissa === 0) {
    // A leading zero stands alone ("01" is not JSON).
    if (d >>> 0 <= 9) return -1;
  } else {
    while (d >>> 0 <= 9) {
      mantissa = mantissa * 10 + d;
      c = bytes[++p]!;
      d = c - ZERO;
    }
  }
  // Digits counted with a fraction's leading zeros: a number such as 0.0000000000001234
  // takes the exact slow path without needing to.
  let digits = p - first;
  let scale = 0;
  if (c === DOT) {
    const fraction = p + 1;
    c = bytes[++p]!;
    d = c - ZERO;
    if (d >>> 0 > 9) return -1;
    do {
      mantissa = mantissa * 10 + d;
      c = bytes[++p]!;
      d = c - ZERO;
    } while (d >>> 0 <= 9);
    scale = p - fraction;
    digits += scale;
  }
  // Exponents and long mantissas are rare: handled apart, out of this hot function.
  if (c === LOWER_E || c === UPPER_E || digits > 15 || scale > 22) return readOtherNumber(bytes, start, p, out, index);
  const v = mantissa / POW10[scale]!;
  out[index] = negative ? -v : v;
  return p;
}

/**
 * A number with an exponent or more than 15 digits (a fraction's leading zeros
 * counted), from `start` (its first byte); `p` is where readNumber stopped. Writes
 * out[index] and returns the position after the number, or −1.
 */
function readOtherNumber(bytes: Uint8Array, start: number, p: number, out: Float64Array, index: number): number {
  let c = bytes[p]!;
  if (c === LOWER_E || c === UPPER_E) {
    c = bytes[++p]!;
    if (c === PLUS || c === MINUS) c = bytes[++p]!;
    if (c < ZERO || c > NINE) return -1;
    while (c >= ZERO && c <= NINE) c = bytes[++p]!;
  }
  let text = '';
  for (let i = start; i < p; i += 1) text += String.fromCharCode(bytes[i]!);
  // The text is a valid JSON number (checked above), so Number() reads it as JSON.parse does.
  const v = Number(text);
  out[index] = v;
  return Number.isFinite(v) ? p : -1;
}

/**
 * One set: '[' row (',' row)* ']' with every row of length `dim` (the first row's length
 * when dim < 0). Returns the row count and row length, or null.
 */
function readSet(bytes: Uint8Array, cursor: Cursor, dim: number): { rows: number; dim: number } | null {
  if (take(bytes, cursor) !== OPEN_BRACKET) return null;
  let rows = 0;
  for (;;) {
    if (take(bytes, cursor) !== OPEN_BRACKET) return null;
    const first = cursor.count;
    if (!readRow(bytes, cursor)) return null;
    const len = cursor.count - first;
    if (dim < 0) dim = len;
    else if (len !== dim) return null;
    rows += 1;
    const c = take(bytes, cursor);
    if (c === COMMA) continue;
    if (c === CLOSE_BRACKET) return { rows, dim };
    return null;
  }
}

/** The next byte that is not white space, consumed (0 at the end). */
function take(bytes: Uint8Array, cursor: Cursor): number {
  let p = cursor.pos;
  while (isSpace(bytes[p]!)) p += 1;
  cursor.pos = p + 1;
  return bytes[p]!;
}

/** The four sets, or null when the document is not of the plain shape (see above). */
export function readEmbeddingSets(file: Uint8Array): EmbeddingSets | null {
  // A copy with a 0 byte at the end, which no rule of the grammar accepts.
  const bytes = new Uint8Array(file.length + 1);
  bytes.set(file);
  // About ten bytes per number in typical files; grown when short.
  const cursor: Cursor = { pos: 0, values: new Float64Array(Math.max(1024, file.length >> 3)), count: 0 };
  if (take(bytes, cursor) !== OPEN_BRACE) return null;
  const spans = new Map<SetName, { offset: number; rows: number }>();
  let dim = -1;
  for (;;) {
    if (take(bytes, cursor) !== QUOTE) return null;
    const key = bytes[cursor.pos];
    if (bytes[cursor.pos + 1] !== QUOTE) return null;
    cursor.pos += 2;
    const name = key === 0x58 ? 'X' : key === 0x59 ? 'Y' : key === 0x41 ? 'A' : key === 0x42 ? 'B' : null;
    if (name === null || spans.has(name)) return null;
    if (take(bytes, cursor) !== COLON) return null;
    const offset = cursor.count;
    const set = readSet(bytes, cursor, dim);
    if (!set) return null;
    dim = set.dim;
    spans.set(name, { offset, rows: set.rows });
    const c = take(bytes, cursor);
    if (c === COMMA) continue;
    if (c === CLOSE_BRACE) break;
    return null;
  }
  while (isSpace(bytes[cursor.pos]!)) cursor.pos += 1;
  if (cursor.pos !== file.length || spans.size !== 4) return null;
  const values = cursor.values;
  const rowsOf = (name: SetName): Float64Array[] => {
    const { offset, rows } = spans.get(name)!;
    return Array.from({ length: rows }, (_, i) => values.subarray(offset + i * dim, offset + (i + 1) * dim));
  };
  return { X: rowsOf('X'), Y: rowsOf('Y'), A: rowsOf('A'), B: rowsOf('B'), dim };
}
