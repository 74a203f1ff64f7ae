/**
 * Spreadsheets as Windows and macOS programs save them (issue 35.9): UTF-16 LE and BE with
 * a byte order mark (Excel's "Unicode Text"), Windows-1252 (Excel's plain "CSV" on a Western
 * European Windows), UTF-8 with a BOM ("CSV UTF-8"), ';' with decimal commas, CRLF and lone
 * CR line ends. Each is read to the same table as the UTF-8 original; what cannot be read
 * without guessing (two encodings mixed, a byte no encoding here defines, UTF-16 with no
 * BOM) is refused naming the file, the line and the byte; exported CSVs start with a BOM.
 *
 * The bytes are written by Node's own encoders (Buffer 'utf16le', 'latin1'), independent of
 * the TextDecoder the reader uses, with the Windows-1252 letters outside Latin-1 (€ “ ” Œ)
 * written as their bytes from the code page's table; checked against Python's codec:
 *   python3 -c "print('€“”Œ'.encode('cp1252').hex())"   → 809394 8c
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseCsvTable, parseDecimal, sniffDelimiter, toCsv } from '../../../src/main/data/csv';
import { loadManifest, loadSource } from '../../../src/main/data/sources';
import { decodeSpreadsheetBytes, detectBufferEncoding } from '../../../src/main/data/text-encoding';

const root = mkdtempSync(join(tmpdir(), 'equivox-encodings-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The table every file below holds. */
const HEADER = ['path', 'speaker', 'accent', 'note'];
const ROWS = [
  ['clips/a.wav', 'Zoë', 'Québec', 'prix 5 €'],
  ['clips/b.wav', 'Œdipe', 'Île-de-France', '“quoted; text”'],
  ['clips/c.wav', 'Jürgen', 'Köln', 'plain'],
];

function csvText(delimiter: string, eol: string): string {
  const cell = (s: string) => (s.includes(delimiter) || s.includes('"') ? `"${s.replace(/"/g, '""')}"` : s);
  return [HEADER, ...ROWS].map((r) => r.map(cell).join(delimiter)).join(eol) + eol;
}

const CP1252_BEYOND_LATIN1: Record<string, number> = { '€': 0x80, '“': 0x93, '”': 0x94, Œ: 0x8c };

/** Windows-1252 bytes of `text` (every character here is in the code page). */
function cp1252(text: string): Buffer {
  const bytes = [...text].map((ch) => CP1252_BEYOND_LATIN1[ch] ?? ch.charCodeAt(0));
  if (bytes.some((b) => b > 0xff)) throw new Error(`a character of ${JSON.stringify(text)} is not in Windows-1252`);
  return Buffer.from(bytes);
}

const utf16be = (text: string) => Buffer.from(text, 'utf16le').swap16();

function write(name: string, bytes: Buffer): string {
  const file = join(root, name);
  writeFileSync(file, bytes);
  return file;
}

function tableOf(file: string) {
  const t = loadManifest(file);
  return { header: t.header, rows: [...t.rows()].map((r) => HEADER.map((h) => r.values[h])), encoding: t.encoding, delimiter: t.delimiter, lines: [...t.rows()].map((r) => r.line) };
}

describe('manifests as spreadsheet programs save them', () => {
  const cases: [string, Buffer, string, boolean, string][] = [
    ['UTF-8', Buffer.from(csvText(',', '\n'), 'utf8'), 'utf-8', false, ','],
    ['UTF-8 with a BOM, CRLF ("CSV UTF-8")', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(csvText(',', '\r\n'), 'utf8')]), 'utf-8', true, ','],
    ['UTF-16 LE with a BOM, tabs, CRLF ("Unicode Text")', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(csvText('\t', '\r\n'), 'utf16le')]), 'utf-16le', true, '\t'],
    ['UTF-16 BE with a BOM', Buffer.concat([Buffer.from([0xfe, 0xff]), utf16be(csvText(',', '\n'))]), 'utf-16be', true, ','],
    ['Windows-1252, ";" and CRLF (Excel "CSV" in Europe)', cp1252(csvText(';', '\r\n')), 'windows-1252', false, ';'],
    ['Windows-1252 with lone CR line ends (older Mac programs)', cp1252(csvText(',', '\r')), 'windows-1252', false, ','],
  ];
  for (const [what, bytes, encoding, bom, delimiter] of cases) {
    it(`reads ${what} to the same table`, () => {
      const t = tableOf(write(`${encoding}-${bom}-${delimiter.charCodeAt(0)}-${bytes.length}.csv`, bytes));
      expect(t.header).toEqual(HEADER);
      expect(t.rows).toEqual(ROWS);
      expect(t.encoding).toEqual({ encoding, bom });
      expect(t.delimiter).toBe(delimiter);
      expect(t.lines).toEqual([2, 3, 4]);
    });
  }

  it('keeps the hash of the bytes as saved (a dataset is known by it on re-import)', () => {
    const bytes = cp1252(csvText(',', '\r\n'));
    const t = loadSource({ kind: 'manifest', manifest: write('hash.csv', bytes) });
    expect(t.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
  });

  it('names the line of a bad row in a UTF-16 file and in a CR-only file', () => {
    const ragged = `${csvText(',', '\r\n')}clips/d.wav,x,y\r\n`;
    const a = write('ragged16.csv', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(ragged, 'utf16le')]));
    expect(() => loadManifest(a)).toThrow(/ragged16\.csv: line 5: expected 4 fields, found 3/);
    const b = write('raggedcr.csv', cp1252(ragged.replace(/\r\n/g, '\r')));
    expect(() => loadManifest(b)).toThrow(/raggedcr\.csv: line 5: expected 4 fields, found 3/);
  });
});

describe('files that cannot be read without guessing', () => {
  it('refuses a file that mixes UTF-8 and Windows-1252, naming both lines', () => {
    const bytes = Buffer.concat([Buffer.from('path,accent\r\nclips/a.wav,Zoë\r\n', 'utf8'), Buffer.from('clips/b.wav,Qu\xe9bec\r\n', 'latin1')]);
    expect(() => loadManifest(write('mixed-enc.csv', bytes))).toThrow(
      /mixed-enc\.csv: the file mixes two encodings: line 2 has UTF-8 text \("ë"\) but line 3 has the byte 0xE9 \("é" in Windows-1252\), which is not UTF-8.*Save the file as UTF-8/,
    );
  });

  it('refuses a byte Windows-1252 does not define, naming its line beyond the first read chunk', () => {
    const line = `${'x'.repeat(99)}.wav,s1\n`;
    const before = 1000; // 108 kB: past the 64 kB a read takes
    const bytes = Buffer.concat([Buffer.from('path,speaker\n'), Buffer.from(line.repeat(before)), Buffer.from([0x61, 0x81, 0x2c, 0x62, 0x0a])]);
    expect(() => loadManifest(write('undefined-byte.csv', bytes))).toThrow(new RegExp(`line ${before + 2} has the byte 0x81, which is neither UTF-8 nor Windows-1252 text`));
  });

  it('counts CRLF split across two read chunks as one line end, and names a mixing byte past the first chunk', () => {
    // The first CR is the last byte of the first 64 kB read, its LF the first of the next.
    const head = 'path,speaker\r\n';
    const line = 'clips/x.wav,s1\r\n';
    const lines = Math.floor((65_536 - head.length) / line.length);
    const pad = 65_537 - head.length - lines * line.length; // extra bytes in the last line, so its CR is byte 65,535
    const first = `${head}${line.repeat(lines - 1)}clips/${'y'.repeat(pad)}x.wav,s1\r\n`;
    expect(Buffer.byteLength(first)).toBe(65_537);
    const bytes = Buffer.concat([Buffer.from(`${first}clips/é.wav,s2\r\n${line.repeat(10)}`, 'utf8'), Buffer.from('clips/\xe9.wav,s3\r\n', 'latin1')]);
    expect(bytes[65_535]).toBe(0x0d);
    expect(() => loadManifest(write('split-crlf.csv', bytes))).toThrow(new RegExp(`line ${lines + 2} has UTF-8 text \\("é"\\) but line ${lines + 13} has the byte 0xE9`));
  });

  it('refuses UTF-16 without a byte order mark rather than read it as something else', () => {
    expect(() => loadManifest(write('nobom16.csv', Buffer.from(csvText(',', '\r\n'), 'utf16le')))).toThrow(/nobom16\.csv: the file looks like UTF-16 text without a byte order mark/);
  });

  it('refuses a UTF-16 BOM followed by bytes that are not UTF-16 (an unpaired surrogate)', () => {
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('path,x\r\n', 'utf16le'), Buffer.from([0x00, 0xd8, 0x41, 0x00])]);
    expect(() => loadManifest(write('bad16.csv', bytes))).toThrow(/bad16\.csv: .*not UTF-16 \(little-endian/);
  });

  it('decodes a whole buffer the same way (FDI scores, the stats commands)', () => {
    expect(decodeSpreadsheetBytes(cp1252('a;b\r\n€;1,5\r\n'))).toEqual({ text: 'a;b\r\n€;1,5\r\n', encoding: { encoding: 'windows-1252', bom: false } });
    expect(detectBufferEncoding(Buffer.from('plain ascii\n'))).toEqual({ encoding: 'utf-8', bom: false });
  });
});

describe('numbers with decimal commas', () => {
  it('reads a decimal comma where the delimiter is not a comma, and says why not where it is', () => {
    expect(parseDecimal('0,75', ';')).toEqual({ ok: true, value: 0.75 });
    expect(parseDecimal(' -1,5e-3 ', '\t')).toEqual({ ok: true, value: -0.0015 });
    expect(parseDecimal('0.75', ';')).toEqual({ ok: true, value: 0.75 });
    expect(parseDecimal('0.75', ',')).toEqual({ ok: true, value: 0.75 });
    expect(parseDecimal('1,234', ',')).toMatchObject({ ok: false, why: expect.stringMatching(/thousands separator/) });
    expect(parseDecimal('1.234,5', ';')).toEqual({ ok: false, why: 'is not a number' });
    for (const loose of ['0x10', 'Infinity', 'NaN', '', '1e999']) expect(parseDecimal(loose, ';').ok).toBe(false);
  });

  it('sniffs ";" from a header with CR-only line ends', () => {
    expect(sniffDelimiter('a;b;c\r1,5;2,5;x\r')).toBe(';');
    expect(parseCsvTable('a;b\r1,5;2\r').rows[0]!.values).toEqual({ a: '1,5', b: '2' });
  });
});

describe('CSVs the app writes', () => {
  it('start with a UTF-8 BOM, so Excel shows "Québec", and read back unchanged', () => {
    const text = toCsv(['accent', 'n'], [['Québec', 3]]);
    const file = write('export.csv', Buffer.from(text, 'utf8'));
    const bytes = readFileSync(file);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(parseCsvTable(decodeSpreadsheetBytes(bytes).text).rows[0]!.values).toEqual({ accent: 'Québec', n: '3' });
  });
});
