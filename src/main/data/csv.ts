/**
 * RFC 4180 CSV/TSV parsing with the quirks auditors' spreadsheets bring: a byte order mark,
 * CRLF, LF or CR (older Mac programs) line ends, ';' with decimal commas (Excel where the comma is the decimal mark), quoted fields holding delimiters, quotes ("") and newlines.
 * Every record carries the 1-based line where it starts so errors can name it.
 */
import { showInvisible } from '../../shared/visible-text';
import { quoteUserList, quoteUserText } from '../../shared/quote';

export interface CsvRecord {
  /** 1-based physical line where the record starts (the header is line 1). */
  line: number;
  fields: string[];
}

export interface CsvTable {
  header: string[];
  /** Data records, header excluded; each keyed by header name. */
  rows: { line: number; values: Record<string, string> }[];
  delimiter: string;
}

export class CsvError extends Error {
  constructor(message: string, readonly line?: number, readonly field?: string) {
    super(message);
    this.name = 'CsvError';
  }
}

export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Guess the delimiter from the header line: tab, comma or semicolon. */
export function sniffDelimiter(text: string): string {
  const firstLine = stripBom(text).split(/\r\n|\r|\n/, 1)[0] ?? '';
  const counts = ['\t', ',', ';'].map((d) => [d, firstLine.split(d).length - 1] as const);
  counts.sort((a, b) => b[1] - a[1]);
  return counts[0]![1] > 0 ? counts[0]![0] : ',';
}

/**
 * An RFC 4180 record reader fed in pieces (a manifest read in chunks never sits in
 * memory whole): push() returns the records completed so far, end() the last one.
 * A chunk may end anywhere, even inside a quoted field or between \r and \n.
 */
export class CsvRecordReader {
  private field = '';
  private fields: string[] = [];
  private line = 1;
  private recordLine = 1;
  private inQuotes = false;
  private quotedField = false;
  /** A quote (inside quotes) or \r that ended a chunk: its meaning depends on the next character. */
  private pending: '"' | '\r' | null = null;
  private started = false;

  constructor(private readonly delimiter = ',') {}

  private endField(): void {
    this.fields.push(this.field);
    this.field = '';
    this.quotedField = false;
  }

  private endRecord(out: CsvRecord[]): void {
    this.endField();
    // A blank line is not a record.
    if (!(this.fields.length === 1 && this.fields[0] === '')) out.push({ line: this.recordLine, fields: this.fields });
    this.fields = [];
  }

  push(chunk: string): CsvRecord[] {
    let text = chunk;
    if (!this.started && text.length > 0) {
      this.started = true;
      text = stripBom(text);
    }
    if (this.pending !== null) {
      text = this.pending + text;
      this.pending = null;
    }
    const out: CsvRecord[] = [];
    const n = text.length;
    const d = this.delimiter;
    let i = 0;
    while (i < n) {
      const c = text[i]!;
      if (this.inQuotes) {
        if (c === '"') {
          if (i + 1 >= n) {
            this.pending = '"';
            break;
          }
          if (text[i + 1] === '"') {
            this.field += '"';
            i += 2;
            continue;
          }
          this.inQuotes = false;
          i += 1;
          continue;
        }
        // Copy a run of ordinary characters at once.
        let j = i;
        while (j < n && text[j] !== '"') {
          if (text[j] === '\n') this.line += 1;
          j += 1;
        }
        this.field += text.slice(i, j);
        i = j;
        continue;
      }
      if (c === '"' && this.field === '' && !this.quotedField) {
        this.inQuotes = true;
        this.quotedField = true;
        i += 1;
        continue;
      }
      if (c === d) {
        this.endField();
        i += 1;
        continue;
      }
      if (c === '\r' || c === '\n') {
        if (c === '\r' && i + 1 >= n) {
          this.pending = '\r';
          break;
        }
        this.endRecord(out);
        if (c === '\r' && text[i + 1] === '\n') i += 1;
        i += 1;
        this.line += 1;
        this.recordLine = this.line;
        continue;
      }
      let j = i;
      while (j < n && text[j] !== d && text[j] !== '\r' && text[j] !== '\n' && text[j] !== '"') j += 1;
      if (j === i) {
        this.field += c; // a quote inside an unquoted field is a literal character
        i += 1;
      } else {
        this.field += text.slice(i, j);
        i = j;
      }
    }
    return out;
  }

  end(): CsvRecord[] {
    const out: CsvRecord[] = [];
    if (this.pending === '"') {
      // A closing quote at the very end of the input.
      this.pending = null;
      this.inQuotes = false;
    } else if (this.pending === '\r') {
      this.pending = null;
      this.endRecord(out);
      return out;
    }
    if (this.inQuotes) throw new CsvError(`unterminated quoted field starting on line ${this.recordLine}`, this.recordLine);
    if (this.field !== '' || this.fields.length > 0) this.endRecord(out);
    return out;
  }
}

export function parseCsvRecords(input: string, delimiter = ','): CsvRecord[] {
  const reader = new CsvRecordReader(delimiter);
  return [...reader.push(input), ...reader.end()];
}

/** A decimal number as written in a cell: "0.75", "-1e-3"; not Number()'s looser forms ("0x10", "Infinity", " "). */
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
const DECIMAL_COMMA = /^[+-]?(\d+,\d*|,\d+)(e[+-]?\d+)?$/i;

/**
 * A number in a cell of a table with `delimiter`, or a sentence saying why it is none. Where
 * the delimiter is not a comma (Excel in much of Europe saves ';' and writes 0,75), a decimal
 * comma is read as a point; in a comma-separated file "1,234" may be a thousands separator, so
 * a comma is refused there with a message that says so.
 */
export function parseDecimal(cell: string, delimiter: string): { ok: true; value: number } | { ok: false; why: string } {
  const text = cell.trim();
  if (text === '') return { ok: false, why: 'is empty' };
  if (DECIMAL.test(text)) {
    const value = Number(text);
    return Number.isFinite(value) ? { ok: true, value } : { ok: false, why: 'is too large' };
  }
  if (DECIMAL_COMMA.test(text)) {
    if (delimiter === ',') return { ok: false, why: 'has a comma, which in a comma-separated file cannot be told from a thousands separator: write it with a point (0.75), or save the file with ";" between columns' };
    const value = Number(text.replace(',', '.'));
    return Number.isFinite(value) ? { ok: true, value } : { ok: false, why: 'is too large' };
  }
  return { ok: false, why: 'is not a number' };
}

/**
 * Longest column name accepted. A header cell of megabytes is not a name (a file without
 * a header row, or not a table at all); echoing it back made a 58 MB preview.
 */
export const MAX_COLUMN_NAME = 1000;
/** A spreadsheet holds at most 16,384 columns (Excel, LibreOffice); a manifest has a handful. */
export const MAX_COLUMNS = 16_384;

/** The header of a table: names trimmed and in NFC, none empty, none twice, none absurdly long. */
export function checkHeader(record: CsvRecord | undefined, requiredColumns: readonly string[] = []): string[] {
  if (!record) throw new CsvError('the file is empty: expected a header row', 1);
  if (record.fields.length > MAX_COLUMNS) {
    throw new CsvError(`the header has ${record.fields.length.toLocaleString('en')} columns, more than a spreadsheet holds (${MAX_COLUMNS.toLocaleString('en')}): is this file a table with a header row?`, 1);
  }
  // NFC: a header saved on a Mac may spell "Geschlecht (männlich/weiblich)" decomposed; column names are compared as typed elsewhere.
  const header = record.fields.map((h) => h.trim().normalize('NFC'));
  const seen = new Set<string>();
  header.forEach((h, index) => {
    if (h === '') throw new CsvError(`column ${index + 1} of the header has no name`, 1);
    if (h.length > MAX_COLUMN_NAME) {
      throw new CsvError(
        `column ${index + 1} of the header is ${h.length.toLocaleString('en')} characters long ("${quoteUserText(h, 60)}"); a column name has at most ${MAX_COLUMN_NAME.toLocaleString('en')}: does the file start with a header row?`,
        1,
      );
    }
    if (seen.has(h)) throw new CsvError(`the header names column "${quoteUserText(h)}" twice`, 1, quoteUserText(h));
    seen.add(h);
  });
  for (const col of requiredColumns) {
    if (!seen.has(col)) throw new CsvError(`missing column "${quoteUserText(col)}" (found: ${quoteUserList(header)})`, 1, col);
  }
  return header;
}

/** One data record as a row keyed by the header; a wrong number of fields is an error naming the line. */
export function recordToRow(header: readonly string[], record: CsvRecord): { line: number; values: Record<string, string> } {
  if (record.fields.length !== header.length) {
    throw new CsvError(`line ${record.line}: expected ${header.length} fields, found ${record.fields.length}`, record.line);
  }
  const values: Record<string, string> = {};
  header.forEach((h, k) => {
    values[h] = record.fields[k]!;
  });
  return { line: record.line, values };
}

/**
 * Parse a table with a header row. Duplicate or empty header names and rows with
 * the wrong number of fields are errors that name the line.
 */
export function parseCsvTable(input: string, options: { delimiter?: string; requiredColumns?: string[] } = {}): CsvTable {
  const delimiter = options.delimiter ?? sniffDelimiter(input);
  const records = parseCsvRecords(input, delimiter);
  const header = checkHeader(records[0], options.requiredColumns);
  const rows = records.slice(1).map((record) => recordToRow(header, record));
  return { header, rows, delimiter };
}

/**
 * Quote a value for CSV output, neutralising spreadsheet formula injection; bidi and other
 * invisible characters are written as visible "<U+202E>" so a name cannot reorder the row.
 */
export function csvCell(value: unknown): string {
  let s = showInvisible(value === null || value === undefined ? '' : String(value));
  if (/^[=+\-@\t\r]/.test(s) && !/^-?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(s)) s = `'${s}`;
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/**
 * The inverse of csvCell's formula guard, for reading Equivox's own exports back (the
 * reproduce recipe's `stats` commands): a cell written as `'=A` (a leading apostrophe is
 * also a spreadsheet's own "this is text" mark) reads as `=A`. Invisible characters
 * written as `<U+…>` stay as written.
 */
export function fromCsvCell(text: string): string {
  return /^'[=+\-@\t\r]/.test(text) ? text.slice(1) : text;
}

/**
 * The byte order mark every CSV the app writes starts with: without it Excel reads UTF-8 as
 * the computer's legacy code page and shows "Québec" as "QuÃ©bec". Every reader of these
 * files (CsvRecordReader, Python's csv with encoding="utf-8-sig", pandas, R's read.csv with
 * fileEncoding="UTF-8-BOM") skips it.
 */
export const UTF8_BOM = '\ufeff';

/** A whole CSV file: the UTF-8 BOM, the header and the rows, CRLF line ends. */
export function toCsv(header: string[], rows: unknown[][]): string {
  return UTF8_BOM + [header, ...rows].map((r) => r.map(csvCell).join(',')).join('\r\n') + '\r\n';
}
