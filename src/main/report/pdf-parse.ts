/**
 * A small PDF object reader, enough for verification to find things through the
 * document's structure the way a PDF reader does (ISO 32000-1 §7.3–7.5): startxref → the
 * cross-reference sections (classic tables and xref streams, following /Prev and
 * /XRefStm through incremental updates) → objects, including those inside object
 * streams. Nothing is found by searching the text, so a title, a project name or any
 * other string in the file cannot pose as a dictionary.
 *
 * Hostile input is expected: every offset is bounds-checked, reference chains and
 * nesting are limited, and every problem is a PdfSyntaxError with a plain message.
 */
import { inflateSync } from 'node:zlib';

export class PdfSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PdfSyntaxError';
  }
}

export interface PdfName {
  readonly kind: 'name';
  readonly name: string;
}
export interface PdfString {
  readonly kind: 'string';
  readonly bytes: Buffer;
  readonly hex: boolean;
  /** Offsets of the whole token (from "(" or "<" to just after ")" or ">") in the file; null inside an object stream. */
  readonly start: number | null;
  readonly end: number | null;
  /** The token's bytes as written between its delimiters (hex digits for a hex string). */
  readonly raw: Buffer;
}
export interface PdfRef {
  readonly kind: 'ref';
  readonly num: number;
  readonly gen: number;
}
export interface PdfDict {
  readonly kind: 'dict';
  readonly entries: Map<string, PdfValue>;
}
export interface PdfStream {
  readonly kind: 'stream';
  readonly dict: PdfDict;
  /** The raw (still encoded) stream data. */
  readonly data: Buffer;
}
export type PdfValue = null | boolean | number | PdfName | PdfString | PdfRef | PdfDict | PdfStream | PdfValue[];

const MAX_DEPTH = 64;
const MAX_XREF_SECTIONS = 4096;
/** Decoded streams above this are refused rather than decompressed (a zip bomb would exhaust memory). */
const MAX_DECODED = 1 << 30;

const isWhite = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x0c || c === 0x00;
const isDelim = (c: number): boolean => c === 0x28 || c === 0x29 || c === 0x3c || c === 0x3e || c === 0x5b || c === 0x5d || c === 0x7b || c === 0x7d || c === 0x2f || c === 0x25;
const hexVal = (c: number): number => (c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x41 && c <= 0x46 ? c - 0x37 : c >= 0x61 && c <= 0x66 ? c - 0x57 : -1);

type Token =
  | { t: 'num'; v: number; int: boolean }
  | { t: 'name'; v: string }
  | { t: 'str'; v: PdfString }
  | { t: 'kw'; v: string }
  | { t: '<<' | '>>' | '[' | ']' | 'eof' };

/** Tokens of one buffer. `inFile` says whether offsets are file offsets (string positions are then recorded). */
class Lexer {
  constructor(
    readonly buf: Buffer,
    public pos: number,
    private readonly inFile: boolean,
  ) {}

  private skip(): void {
    const b = this.buf;
    while (this.pos < b.length) {
      const c = b[this.pos]!;
      if (isWhite(c)) this.pos += 1;
      else if (c === 0x25 /* % */) {
        while (this.pos < b.length && b[this.pos] !== 0x0a && b[this.pos] !== 0x0d) this.pos += 1;
      } else break;
    }
  }

  next(): Token {
    this.skip();
    const b = this.buf;
    if (this.pos >= b.length) return { t: 'eof' };
    const c = b[this.pos]!;
    if (c === 0x3c /* < */) {
      if (b[this.pos + 1] === 0x3c) {
        this.pos += 2;
        return { t: '<<' };
      }
      return { t: 'str', v: this.hexString() };
    }
    if (c === 0x3e /* > */) {
      if (b[this.pos + 1] === 0x3e) {
        this.pos += 2;
        return { t: '>>' };
      }
      throw new PdfSyntaxError(`unexpected ">" at byte ${this.pos}`);
    }
    if (c === 0x5b || c === 0x5d) {
      this.pos += 1;
      return { t: c === 0x5b ? '[' : ']' };
    }
    if (c === 0x28 /* ( */) return { t: 'str', v: this.literalString() };
    if (c === 0x2f /* / */) return { t: 'name', v: this.name() };
    const start = this.pos;
    while (this.pos < b.length && !isWhite(b[this.pos]!) && !isDelim(b[this.pos]!)) this.pos += 1;
    if (this.pos === start) throw new PdfSyntaxError(`unexpected "${String.fromCharCode(c)}" at byte ${start}`);
    const word = b.toString('latin1', start, this.pos);
    if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(word)) return { t: 'num', v: Number(word), int: /^[+-]?\d+$/.test(word) };
    return { t: 'kw', v: word };
  }

  private name(): string {
    const b = this.buf;
    this.pos += 1;
    const bytes: number[] = [];
    while (this.pos < b.length && !isWhite(b[this.pos]!) && !isDelim(b[this.pos]!)) {
      const c = b[this.pos]!;
      if (c === 0x23 /* # */ && hexVal(b[this.pos + 1] ?? 0) >= 0 && hexVal(b[this.pos + 2] ?? 0) >= 0) {
        bytes.push(hexVal(b[this.pos + 1]!) * 16 + hexVal(b[this.pos + 2]!));
        this.pos += 3;
      } else {
        bytes.push(c);
        this.pos += 1;
      }
    }
    return Buffer.from(bytes).toString('latin1');
  }

  private hexString(): PdfString {
    const b = this.buf;
    const start = this.pos;
    this.pos += 1;
    const end = b.indexOf(0x3e, this.pos);
    if (end < 0) throw new PdfSyntaxError(`unterminated hex string at byte ${start}`);
    const raw = b.subarray(this.pos, end);
    const digits: number[] = [];
    for (const c of raw) {
      if (isWhite(c)) continue;
      const v = hexVal(c);
      if (v < 0) throw new PdfSyntaxError(`a hex string at byte ${start} holds "${String.fromCharCode(c)}"`);
      digits.push(v);
    }
    if (digits.length % 2) digits.push(0);
    const bytes = Buffer.alloc(digits.length / 2);
    for (let i = 0; i < bytes.length; i += 1) bytes[i] = digits[2 * i]! * 16 + digits[2 * i + 1]!;
    this.pos = end + 1;
    return { kind: 'string', bytes, hex: true, raw, start: this.inFile ? start : null, end: this.inFile ? this.pos : null };
  }

  private literalString(): PdfString {
    const b = this.buf;
    const start = this.pos;
    this.pos += 1;
    const out: number[] = [];
    let depth = 1;
    const ESC: Record<number, number> = { 0x6e: 0x0a, 0x72: 0x0d, 0x74: 0x09, 0x62: 0x08, 0x66: 0x0c, 0x28: 0x28, 0x29: 0x29, 0x5c: 0x5c };
    while (this.pos < b.length) {
      const c = b[this.pos]!;
      if (c === 0x5c /* \ */) {
        const n = b[this.pos + 1];
        if (n === undefined) break;
        if (ESC[n] !== undefined) {
          out.push(ESC[n]);
          this.pos += 2;
        } else if (n >= 0x30 && n <= 0x37) {
          let v = 0;
          let k = 1;
          while (k <= 3 && (b[this.pos + k] ?? 0) >= 0x30 && (b[this.pos + k] ?? 0) <= 0x37) {
            v = v * 8 + (b[this.pos + k]! - 0x30);
            k += 1;
          }
          out.push(v & 0xff);
          this.pos += k;
        } else if (n === 0x0d) {
          this.pos += b[this.pos + 2] === 0x0a ? 3 : 2; // a backslash before a line end continues the line
        } else if (n === 0x0a) {
          this.pos += 2;
        } else {
          out.push(n); // an unknown escape stands for the character itself
          this.pos += 2;
        }
        continue;
      }
      if (c === 0x28) depth += 1;
      else if (c === 0x29) {
        depth -= 1;
        if (depth === 0) {
          const raw = b.subarray(start + 1, this.pos);
          this.pos += 1;
          return { kind: 'string', bytes: Buffer.from(out), hex: false, raw, start: this.inFile ? start : null, end: this.inFile ? this.pos : null };
        }
      } else if (c === 0x0d) {
        // An unescaped end of line in a string is a line feed, whichever one was written.
        out.push(0x0a);
        this.pos += b[this.pos + 1] === 0x0a ? 2 : 1;
        continue;
      }
      out.push(c);
      this.pos += 1;
    }
    throw new PdfSyntaxError(`unterminated string at byte ${start}`);
  }
}

/** One value; "N G R" is read as a reference. */
function parseValue(lx: Lexer, depth = 0, first?: Token): PdfValue {
  if (depth > MAX_DEPTH) throw new PdfSyntaxError('objects nested too deeply');
  const tok = first ?? lx.next();
  switch (tok.t) {
    case 'num': {
      if (!tok.int || tok.v < 0) return tok.v;
      const save = lx.pos;
      const t2 = lx.next();
      if (t2.t === 'num' && t2.int && t2.v >= 0) {
        const t3 = lx.next();
        if (t3.t === 'kw' && t3.v === 'R') return { kind: 'ref', num: tok.v, gen: t2.v };
      }
      lx.pos = save;
      return tok.v;
    }
    case 'name':
      return { kind: 'name', name: tok.v };
    case 'str':
      return tok.v;
    case '[': {
      const arr: PdfValue[] = [];
      for (;;) {
        const t = lx.next();
        if (t.t === ']') return arr;
        if (t.t === 'eof') throw new PdfSyntaxError('unterminated array');
        arr.push(parseValue(lx, depth + 1, t));
      }
    }
    case '<<': {
      const entries = new Map<string, PdfValue>();
      for (;;) {
        const k = lx.next();
        if (k.t === '>>') return { kind: 'dict', entries };
        if (k.t !== 'name') throw new PdfSyntaxError(`a dictionary key is not a name (byte ${lx.pos})`);
        const v = parseValue(lx, depth + 1);
        // The first of two equal keys counts, as in most readers; a later one cannot override it.
        if (!entries.has(k.v)) entries.set(k.v, v);
      }
    }
    case 'kw':
      if (tok.v === 'true') return true;
      if (tok.v === 'false') return false;
      if (tok.v === 'null') return null;
      throw new PdfSyntaxError(`unexpected keyword "${tok.v.slice(0, 40)}" at byte ${lx.pos}`);
    default:
      throw new PdfSyntaxError(`unexpected ${tok.t === 'eof' ? 'end of data' : `"${tok.t}"`} at byte ${lx.pos}`);
  }
}

export const isDict = (v: PdfValue | undefined): v is PdfDict => typeof v === 'object' && v !== null && !Array.isArray(v) && v.kind === 'dict';
export const isStream = (v: PdfValue | undefined): v is PdfStream => typeof v === 'object' && v !== null && !Array.isArray(v) && v.kind === 'stream';
export const isRef = (v: PdfValue | undefined): v is PdfRef => typeof v === 'object' && v !== null && !Array.isArray(v) && v.kind === 'ref';
export const isString = (v: PdfValue | undefined): v is PdfString => typeof v === 'object' && v !== null && !Array.isArray(v) && v.kind === 'string';
export const nameOf = (v: PdfValue | undefined): string | null => (typeof v === 'object' && v !== null && !Array.isArray(v) && v.kind === 'name' ? v.name : null);

/** A PDF text string (§7.9.2.2): UTF-16BE with a byte-order mark, UTF-8 with one (PDF 2.0), else PDFDocEncoding (read as Latin-1). */
export function pdfText(s: PdfString): string {
  const b = s.bytes;
  if (b[0] === 0xfe && b[1] === 0xff) {
    const body = Buffer.from(b.subarray(2, 2 + ((b.length - 2) & ~1)));
    return body.swap16().toString('utf16le');
  }
  if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return b.subarray(3).toString('utf8');
  return b.toString('latin1');
}

type XrefEntry = { type: 1; offset: number; gen: number } | { type: 2; stream: number; index: number };

/** A parsed PDF: its trailer and any object by number. */
export class PdfDocument {
  readonly trailer: PdfDict;
  /** Number of cross-reference sections read (more than one: the file had incremental updates). */
  readonly sections: number;
  private readonly xref = new Map<number, XrefEntry>();
  private readonly cache = new Map<number, PdfValue>();
  private readonly loading = new Set<number>();
  private readonly objStreams = new Map<number, { data: Buffer; offsets: Map<number, number>; first: number }>();

  constructor(readonly bytes: Buffer) {
    const start = this.startxref();
    let trailer: PdfDict | null = null;
    const seen = new Set<number>();
    const queue: number[] = [start];
    let sections = 0;
    while (queue.length > 0) {
      const at = queue.shift()!;
      if (seen.has(at)) continue;
      if (seen.size >= MAX_XREF_SECTIONS) throw new PdfSyntaxError('too many cross-reference sections');
      seen.add(at);
      const section = this.readXrefSection(at);
      sections += 1;
      trailer ??= section.trailer;
      // Hybrid files: the table's own entries first, then its xref stream, then older sections.
      const stm = section.trailer.entries.get('XRefStm');
      if (typeof stm === 'number') queue.unshift(stm);
      const prev = section.trailer.entries.get('Prev');
      if (typeof prev === 'number') queue.push(prev);
    }
    if (!trailer) throw new PdfSyntaxError('no trailer');
    this.trailer = trailer;
    this.sections = sections;
  }

  /** The offset after the last "startxref" in the file's final kilobytes (§7.5.5). */
  private startxref(): number {
    const b = this.bytes;
    const from = Math.max(0, b.length - 2048);
    const at = b.lastIndexOf('startxref', b.length);
    if (at < from) throw new PdfSyntaxError('no "startxref" at the end of the file (not a PDF, or cut short)');
    const lx = new Lexer(b, at + 'startxref'.length, true);
    const t = lx.next();
    if (t.t !== 'num' || !t.int || t.v < 0 || t.v >= b.length) throw new PdfSyntaxError('"startxref" does not give an offset inside the file');
    return t.v;
  }

  private readXrefSection(at: number): { trailer: PdfDict } {
    if (!Number.isSafeInteger(at) || at < 0 || at >= this.bytes.length) throw new PdfSyntaxError(`a cross-reference offset (${at}) is outside the file`);
    const lx = new Lexer(this.bytes, at, true);
    const first = lx.next();
    if (first.t === 'kw' && first.v === 'xref') return this.readXrefTable(lx);
    if (first.t === 'num') {
      const { value } = this.readIndirect(at, null);
      if (isStream(value) && nameOf(value.dict.entries.get('Type')) === 'XRef') return this.readXrefStream(value);
    }
    throw new PdfSyntaxError(`no cross-reference section at byte ${at}`);
  }

  /** `entry` null: a free object. Newer sections are read first, so an object already listed (or freed) keeps that entry. */
  private add(num: number, entry: XrefEntry | null): void {
    if (!this.xref.has(num)) this.xref.set(num, entry ?? { type: 1, offset: -1, gen: 0 });
  }

  private readXrefTable(lx: Lexer): { trailer: PdfDict } {
    for (;;) {
      const t = lx.next();
      if (t.t === 'kw' && t.v === 'trailer') break;
      if (t.t !== 'num' || !t.int) throw new PdfSyntaxError(`a cross-reference table is damaged near byte ${lx.pos}`);
      const count = lx.next();
      if (count.t !== 'num' || !count.int || count.v < 0) throw new PdfSyntaxError(`a cross-reference table is damaged near byte ${lx.pos}`);
      for (let i = 0; i < count.v; i += 1) {
        const off = lx.next();
        const gen = lx.next();
        const kind = lx.next();
        if (off.t !== 'num' || gen.t !== 'num' || kind.t !== 'kw' || (kind.v !== 'n' && kind.v !== 'f')) throw new PdfSyntaxError(`a cross-reference entry is damaged near byte ${lx.pos}`);
        this.add(t.v + i, kind.v === 'n' ? { type: 1, offset: off.v, gen: gen.v } : null);
      }
    }
    const trailer = parseValue(lx);
    if (!isDict(trailer)) throw new PdfSyntaxError('the trailer is not a dictionary');
    return { trailer };
  }

  private readXrefStream(stream: PdfStream): { trailer: PdfDict } {
    const d = stream.dict.entries;
    const w = d.get('W');
    if (!Array.isArray(w) || w.length !== 3 || !w.every((x) => typeof x === 'number' && Number.isInteger(x) && x >= 0 && x <= 8)) throw new PdfSyntaxError('an xref stream has a bad /W');
    const [w0, w1, w2] = w as number[];
    const size = d.get('Size');
    const index = d.get('Index') ?? [0, typeof size === 'number' ? size : 0];
    if (!Array.isArray(index) || index.length % 2 || !index.every((x) => typeof x === 'number' && Number.isInteger(x) && x >= 0)) throw new PdfSyntaxError('an xref stream has a bad /Index');
    const data = this.decode(stream);
    const row = w0! + w1! + w2!;
    const field = (at: number, width: number, dflt: number): number => {
      if (width === 0) return dflt;
      let v = 0;
      for (let k = 0; k < width; k += 1) v = v * 256 + data[at + k]!;
      return v;
    };
    let p = 0;
    for (let s = 0; s < index.length; s += 2) {
      const [startNum, count] = [index[s] as number, index[s + 1] as number];
      for (let i = 0; i < count; i += 1) {
        if (p + row > data.length) throw new PdfSyntaxError('an xref stream is shorter than its /Index says');
        const type = field(p, w0!, 1);
        const f2 = field(p + w0!, w1!, 0);
        const f3 = field(p + w0! + w1!, w2!, 0);
        p += row;
        if (type === 1) this.add(startNum + i, { type: 1, offset: f2, gen: f3 });
        else if (type === 2) this.add(startNum + i, { type: 2, stream: f2, index: f3 });
        else this.add(startNum + i, null);
      }
    }
    return { trailer: stream.dict };
  }

  /** "N G obj VALUE [stream…] endobj" at `at`; checks the number when one is expected. */
  private readIndirect(at: number, expect: number | null): { num: number; value: PdfValue } {
    const b = this.bytes;
    if (!Number.isSafeInteger(at) || at < 0 || at >= b.length) throw new PdfSyntaxError(`object ${expect ?? '?'} is said to start outside the file (byte ${at})`);
    const lx = new Lexer(b, at, true);
    const n = lx.next();
    const g = lx.next();
    const o = lx.next();
    if (n.t !== 'num' || g.t !== 'num' || o.t !== 'kw' || o.v !== 'obj') throw new PdfSyntaxError(`no object ${expect ?? ''} at byte ${at}`.replace('  ', ' '));
    if (expect !== null && n.v !== expect) throw new PdfSyntaxError(`the cross-reference table points object ${expect} at byte ${at}, where object ${n.v} is`);
    const value = parseValue(lx);
    const save = lx.pos;
    const next = lx.next();
    if (isDict(value) && next.t === 'kw' && next.v === 'stream') {
      let p = lx.pos;
      if (b[p] === 0x0d && b[p + 1] === 0x0a) p += 2;
      else if (b[p] === 0x0a || b[p] === 0x0d) p += 1;
      const lenV = value.entries.get('Length');
      const len = isRef(lenV) ? this.get(lenV) : lenV;
      if (typeof len !== 'number' || !Number.isInteger(len) || len < 0 || p + len > b.length) throw new PdfSyntaxError(`object ${n.v}'s stream has no usable /Length`);
      const data = b.subarray(p, p + len);
      const tail = new Lexer(b, p + len, true).next();
      if (tail.t !== 'kw' || tail.v !== 'endstream') throw new PdfSyntaxError(`object ${n.v}'s stream does not end where its /Length says`);
      return { num: n.v, value: { kind: 'stream', dict: value, data } };
    }
    lx.pos = save;
    return { num: n.v, value };
  }

  /** Decoded stream data: no filter or FlateDecode (with PNG predictors, as xref streams use). */
  decode(stream: PdfStream): Buffer {
    const d = stream.dict.entries;
    const filterV = d.get('Filter');
    const filters = filterV === undefined || filterV === null ? [] : Array.isArray(filterV) ? filterV.map(nameOf) : [nameOf(filterV)];
    let data = stream.data;
    if (filters.length > 1) throw new PdfSyntaxError('a stream uses more than one filter');
    if (filters.length === 1) {
      if (filters[0] !== 'FlateDecode') throw new PdfSyntaxError(`a stream uses the unsupported filter ${filters[0] ?? '?'}`);
      try {
        data = inflateSync(data, { maxOutputLength: MAX_DECODED });
      } catch (err) {
        throw new PdfSyntaxError(`a compressed stream cannot be decompressed: ${(err as Error).message}`);
      }
      const parmsV = d.get('DecodeParms');
      const parms = Array.isArray(parmsV) ? parmsV[0] : parmsV;
      if (isDict(parms)) {
        const predictor = parms.entries.get('Predictor');
        if (typeof predictor === 'number' && predictor >= 10) {
          const columns = parms.entries.get('Columns');
          data = unpredictPng(data, typeof columns === 'number' && columns > 0 ? columns : 1);
        } else if (typeof predictor === 'number' && predictor > 1) throw new PdfSyntaxError(`unsupported predictor ${predictor}`);
      }
    }
    return data;
  }

  /** Follow a reference (any number of them) to its value; other values are returned as they are. */
  resolve(v: PdfValue | undefined): PdfValue | undefined {
    let cur = v;
    for (let i = 0; i < 32 && isRef(cur); i += 1) cur = this.get(cur);
    if (isRef(cur)) throw new PdfSyntaxError('a chain of references does not end');
    return cur;
  }

  get(ref: PdfRef): PdfValue {
    const { num } = ref;
    if (this.cache.has(num)) return this.cache.get(num)!;
    const entry = this.xref.get(num);
    if (!entry || (entry.type === 1 && entry.offset < 0)) return null; // a missing or free object is null (§7.3.10)
    if (this.loading.has(num)) throw new PdfSyntaxError(`object ${num} refers to itself while being read`);
    this.loading.add(num);
    try {
      const value = entry.type === 1 ? this.readIndirect(entry.offset, num).value : this.fromObjectStream(entry.stream, entry.index, num);
      this.cache.set(num, value);
      return value;
    } finally {
      this.loading.delete(num);
    }
  }

  private fromObjectStream(streamNum: number, index: number, num: number): PdfValue {
    let os = this.objStreams.get(streamNum);
    if (!os) {
      const s = this.get({ kind: 'ref', num: streamNum, gen: 0 });
      if (!isStream(s) || nameOf(s.dict.entries.get('Type')) !== 'ObjStm') throw new PdfSyntaxError(`object ${num} is said to be in object stream ${streamNum}, which is not one`);
      const n = s.dict.entries.get('N');
      const first = s.dict.entries.get('First');
      if (typeof n !== 'number' || typeof first !== 'number') throw new PdfSyntaxError(`object stream ${streamNum} lacks /N or /First`);
      const data = this.decode(s);
      const lx = new Lexer(data, 0, false);
      const offsets = new Map<number, number>();
      for (let i = 0; i < n; i += 1) {
        const on = lx.next();
        const oo = lx.next();
        if (on.t !== 'num' || oo.t !== 'num') throw new PdfSyntaxError(`object stream ${streamNum} has a damaged header`);
        if (!offsets.has(on.v)) offsets.set(on.v, first + oo.v);
      }
      os = { data, offsets, first };
      this.objStreams.set(streamNum, os);
    }
    void index; // the header gives each object's offset; the index is only a hint
    const at = os.offsets.get(num);
    if (at === undefined || at >= os.data.length) throw new PdfSyntaxError(`object ${num} is not in object stream ${streamNum}`);
    return parseValue(new Lexer(os.data, at, false));
  }
}

/** Undo PNG row predictors (§7.4.4.4), as used by xref streams. */
function unpredictPng(data: Buffer, columns: number): Buffer {
  const rowLen = columns + 1;
  const rows = Math.floor(data.length / rowLen);
  const out = Buffer.alloc(rows * columns);
  let prev = Buffer.alloc(columns);
  for (let r = 0; r < rows; r += 1) {
    const type = data[r * rowLen]!;
    const row = data.subarray(r * rowLen + 1, (r + 1) * rowLen);
    const cur = out.subarray(r * columns, (r + 1) * columns);
    for (let i = 0; i < columns; i += 1) {
      const left = i > 0 ? cur[i - 1]! : 0;
      const up = prev[i]!;
      const upLeft = i > 0 ? prev[i - 1]! : 0;
      let v = row[i]!;
      if (type === 1) v += left;
      else if (type === 2) v += up;
      else if (type === 3) v += (left + up) >> 1;
      else if (type === 4) {
        const p = left + up - upLeft;
        const pa = Math.abs(p - left);
        const pb = Math.abs(p - up);
        const pc = Math.abs(p - upLeft);
        v += pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft;
      } else if (type !== 0) throw new PdfSyntaxError(`unknown PNG predictor ${type} in an xref stream`);
      cur[i] = v & 0xff;
    }
    prev = cur;
  }
  return out;
}
