/**
 * A pull parser for large JSON files, read in 1 MiB chunks: embeddings files of tens or
 * hundreds of megabytes never exist as one string (V8 caps strings near 512 MiB) and the
 * numbers go straight into typed arrays. Errors name the file, the byte offset and the
 * JSON path the caller gives.
 */
import { closeSync, readSync } from 'node:fs';
import { UserError } from '../../shared/errors';
import { openInputFileSync } from '../security/input-file';

const CHUNK = 1 << 20;

const isSpace = (b: number) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
const isNumberByte = (b: number) => (b >= 0x30 && b <= 0x39) || b === 0x2d || b === 0x2b || b === 0x2e || b === 0x65 || b === 0x45;

export class JsonStream {
  private buf = Buffer.alloc(CHUNK);
  private start = 0;
  private end = 0;
  /** File offset of buf[0]. */
  private base = 0;
  private eof = false;
  private readonly fd: number;

  constructor(readonly file: string) {
    // Refuses a FIFO, a device or a folder before reading (security/input-file.ts).
    this.fd = openInputFileSync(file, 'ser-input', 'input').fd;
  }

  close(): void {
    closeSync(this.fd);
  }

  fail(message: string, path: string): never {
    throw new UserError(`${this.file}, byte ${this.base + this.start}${path ? ` (${path})` : ''}: ${message}`, path || 'input');
  }

  /** Make at least `n` unread bytes available unless the file ends first; false at the end. */
  private fill(n: number): boolean {
    if (this.end - this.start >= n) return true;
    if (this.eof) return this.end - this.start >= n;
    // Keep the unread tail, then read behind it.
    if (this.start > 0) {
      this.buf.copy(this.buf, 0, this.start, this.end);
      this.base += this.start;
      this.end -= this.start;
      this.start = 0;
    }
    while (this.end - this.start < n && !this.eof) {
      if (this.end === this.buf.length) {
        const bigger = Buffer.alloc(this.buf.length * 2);
        this.buf.copy(bigger, 0, 0, this.end);
        this.buf = bigger;
      }
      const got = readSync(this.fd, this.buf, this.end, this.buf.length - this.end, null);
      if (got === 0) this.eof = true;
      this.end += got;
    }
    return this.end - this.start >= n;
  }

  /** The next non-space byte, not consumed; -1 at the end of the file. */
  peek(): number {
    for (;;) {
      if (!this.fill(1)) return -1;
      const b = this.buf[this.start]!;
      if (!isSpace(b)) return b;
      this.start += 1;
    }
  }

  expect(ch: string, path: string): void {
    const b = this.peek();
    if (b !== ch.charCodeAt(0)) this.fail(`expected "${ch}" but found ${b < 0 ? 'the end of the file' : `"${String.fromCharCode(b)}"`}`, path);
    this.start += 1;
  }

  /** Consume `ch` if it is next. */
  accept(ch: string): boolean {
    if (this.peek() !== ch.charCodeAt(0)) return false;
    this.start += 1;
    return true;
  }

  readString(path: string): string {
    this.expect('"', path);
    // Find the closing quote, growing the window for long strings.
    let i = this.start;
    for (;;) {
      if (i >= this.end) {
        const consumed = i - this.start;
        if (!this.fill(consumed + 1)) this.fail('unterminated string', path);
        i = this.start + consumed;
        continue;
      }
      const b = this.buf[i]!;
      if (b === 0x5c) {
        i += 2;
        continue;
      }
      if (b === 0x22) break;
      i += 1;
    }
    const raw = this.buf.toString('utf8', this.start - 1, i + 1);
    this.start = i + 1;
    try {
      return JSON.parse(raw) as string;
    } catch {
      return this.fail('malformed string', path);
    }
  }

  readNumber(path: string): number {
    this.peek();
    let i = this.start;
    for (;;) {
      if (i >= this.end) {
        const consumed = i - this.start;
        if (!this.fill(consumed + 1)) break;
        i = this.start + consumed;
        continue;
      }
      if (!isNumberByte(this.buf[i]!)) break;
      i += 1;
    }
    const text = this.buf.toString('latin1', this.start, i);
    const first = text.charCodeAt(0);
    // Number() is lenient where JSON is not ("1.", ".5"); harmless for data, so only the start is checked here.
    const v = Number(text);
    if (text === '' || !(first === 0x2d || (first >= 0x30 && first <= 0x39)) || Number.isNaN(v)) {
      const b = this.peek();
      if (text === '' && b >= 0) {
        const word = this.buf.toString('latin1', this.start, Math.min(this.end, this.start + 8)).split(/[,\]\}\s]/)[0];
        this.fail(`expected a number, found ${word === '' ? `"${String.fromCharCode(b)}"` : word!.startsWith('"') ? word : JSON.stringify(word)}`, path);
      }
      this.fail(`expected a number, found ${text === '' ? 'the end of the file' : JSON.stringify(text)}`, path);
    }
    this.start = i;
    if (!Number.isFinite(v)) this.fail(`${text} is not a finite number`, path);
    return v;
  }

  /** Skip any JSON value (for keys the reader does not use). */
  skipValue(path: string): void {
    const b = this.peek();
    if (b === 0x22) {
      this.readString(path);
      return;
    }
    if (b === 0x7b || b === 0x5b) {
      const close = b === 0x7b ? '}' : ']';
      this.start += 1;
      if (this.accept(close)) return;
      do {
        if (b === 0x7b) {
          this.readString(path);
          this.expect(':', path);
        }
        this.skipValue(path);
      } while (this.accept(','));
      this.expect(close, path);
      return;
    }
    for (const word of ['true', 'false', 'null']) {
      if (this.fill(word.length) && this.buf.toString('latin1', this.start, this.start + word.length) === word) {
        this.start += word.length;
        return;
      }
    }
    this.readNumber(path);
  }

  /** Iterate an object's keys; `onKey` must consume the value. */
  readObject(path: string, onKey: (key: string) => void): void {
    this.expect('{', path);
    if (this.accept('}')) return;
    do {
      const key = this.readString(path);
      this.expect(':', path);
      onKey(key);
    } while (this.accept(','));
    this.expect('}', path);
  }

  /** Iterate an array; `onItem` must consume each element. */
  readArray(path: string, onItem: (index: number) => void): number {
    this.expect('[', path);
    if (this.accept(']')) return 0;
    let n = 0;
    do {
      onItem(n);
      n += 1;
    } while (this.accept(','));
    this.expect(']', path);
    return n;
  }

  /** After the top-level value: only whitespace may follow. */
  assertEnd(): void {
    const b = this.peek();
    if (b >= 0) this.fail(`unexpected "${String.fromCharCode(b)}" after the end of the document`, '');
  }
}
