/**
 * RFC 4180 CSV/TSV parsing with the quirks auditors' spreadsheets bring: a UTF-8 BOM,
 * CRLF or LF line ends, quoted fields holding delimiters, quotes ("") and newlines.
 * Every record carries the 1-based line where it starts so errors can name it.
 */
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
  const firstLine = stripBom(text).split(/\r?\n/, 1)[0] ?? '';
  const counts = ['\t', ',', ';'].map((d) => [d, firstLine.split(d).length - 1] as const);
  counts.sort((a, b) => b[1] - a[1]);
  return counts[0]![1] > 0 ? counts[0]![0] : ',';
}

export function parseCsvRecords(input: string, delimiter = ','): CsvRecord[] {
  const text = stripBom(input);
  const records: CsvRecord[] = [];
  let field = '';
  let fields: string[] = [];
  let line = 1;
  let recordLine = 1;
  let inQuotes = false;
  let quotedField = false;
  let i = 0;
  const n = text.length;
  const endField = () => {
    fields.push(field);
    field = '';
    quotedField = false;
  };
  const endRecord = () => {
    endField();
    // A blank line is not a record.
    if (!(fields.length === 1 && fields[0] === '')) records.push({ line: recordLine, fields });
    fields = [];
  };
  while (i < n) {
    const c = text[i]!;
    if (inQuotes) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        inQuotes = false;
        i += 1;
        continue;
      }
      if (c === '\n') line += 1;
      field += c;
      i += 1;
      continue;
    }
    if (c === '"' && field === '' && !quotedField) {
      inQuotes = true;
      quotedField = true;
      i += 1;
      continue;
    }
    if (c === delimiter) {
      endField();
      i += 1;
      continue;
    }
    if (c === '\r' || c === '\n') {
      endRecord();
      if (c === '\r' && text[i + 1] === '\n') i += 1;
      i += 1;
      line += 1;
      recordLine = line;
      continue;
    }
    field += c;
    i += 1;
  }
  if (inQuotes) throw new CsvError(`unterminated quoted field starting on line ${recordLine}`, recordLine);
  if (field !== '' || fields.length > 0) endRecord();
  return records;
}

/**
 * Parse a table with a header row. Duplicate or empty header names and rows with
 * the wrong number of fields are errors that name the line.
 */
export function parseCsvTable(input: string, options: { delimiter?: string; requiredColumns?: string[] } = {}): CsvTable {
  const delimiter = options.delimiter ?? sniffDelimiter(input);
  const records = parseCsvRecords(input, delimiter);
  if (records.length === 0) throw new CsvError('the file is empty: expected a header row', 1);
  const header = records[0]!.fields.map((h) => h.trim());
  const seen = new Set<string>();
  header.forEach((h, index) => {
    if (h === '') throw new CsvError(`column ${index + 1} of the header has no name`, 1);
    if (seen.has(h)) throw new CsvError(`the header names column "${h}" twice`, 1, h);
    seen.add(h);
  });
  for (const col of options.requiredColumns ?? []) {
    if (!seen.has(col)) throw new CsvError(`missing column "${col}" (found: ${header.join(', ')})`, 1, col);
  }
  const rows = records.slice(1).map((record) => {
    if (record.fields.length !== header.length) {
      throw new CsvError(
        `line ${record.line}: expected ${header.length} fields, found ${record.fields.length}`,
        record.line,
      );
    }
    const values: Record<string, string> = {};
    header.forEach((h, k) => {
      values[h] = record.fields[k]!;
    });
    return { line: record.line, values };
  });
  return { header, rows, delimiter };
}

/** Quote a value for CSV output, neutralising spreadsheet formula injection. */
export function csvCell(value: unknown): string {
  let s = value === null || value === undefined ? '' : String(value);
  if (/^[=+\-@\t\r]/.test(s) && !/^-?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(s)) s = `'${s}`;
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function toCsv(header: string[], rows: unknown[][]): string {
  return [header, ...rows].map((r) => r.map(csvCell).join(',')).join('\r\n') + '\r\n';
}
