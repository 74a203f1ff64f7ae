/**
 * Turn each kind of import source (CSV/TSV manifest, folder of group subfolders,
 * Common Voice release) into one table of rows with a path column, so a single import
 * pipeline handles them all.
 *
 * Manifests and Common Voice splits are streamed: a first pass reads the file in 1 MB
 * chunks to check it (its encoding, header, field counts) and count and hash it, and rows()
 * reads it again, one row at a time. Memory stays flat however many rows there are.
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, readdirSync, readSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { ColumnMapping, ImportSource, SkippedFiles, SourceKind } from '../../shared/api/datasets';
import { UserError } from '../../shared/errors';
import { checkInputFileSync, checkInputFolder, inputExists, openInputFileSync } from '../security/input-file';
import { quoteUserList, quoteUserText } from '../../shared/quote';
import { dataFolderProblem } from '../security/path-policy';
import { suggestColumns, type ColumnSuggestion } from './column-suggestions';
import { checkHeader, CsvError, CsvRecordReader, parseCsvTable, recordToRow, sniffDelimiter, type CsvRecord } from './csv';
import { findByNormalisedName, isOsLitter } from './file-names';
import { isReadRefusal, unreadableReason } from './unreadable';
import { isEqualOrInside, samePath } from '../paths/same-path';
import { detectEncoding, EncodingProblem, ENCODING_NAMES, spreadsheetDecoder, type DetectedEncoding } from './text-encoding';

export interface SourceRow {
  /** 1-based data row (manifest row, or position in the sorted file list). */
  rowIndex: number;
  /** Physical line in the manifest, when there is one (for messages). */
  line: number | null;
  values: Record<string, string>;
}

export interface SourceTable {
  kind: SourceKind;
  /** Canonical path of the manifest file or folder: with the role, it identifies the dataset on re-import. */
  sourcePath: string;
  /** Relative paths resolve against this folder. */
  baseDir: string;
  /** Clips must lie inside this folder, both as written and after resolving symlinks. */
  rootDir: string;
  header: string[];
  /** Number of data rows. */
  rowCount: number;
  /** The rows in order, read afresh from the source on each call (one row in memory at a time for manifests). */
  rows(): Iterable<SourceRow>;
  sha256: string;
  defaultMapping: ColumnMapping | null;
  /** Why each column of defaultMapping was chosen (manifests only: the Data step shows them). */
  suggestions?: ColumnSuggestion[];
  /** The manifest's delimiter (manifests only). */
  delimiter?: string;
  /** The text encoding the manifest (or Common Voice split, or metadata.csv) was read in (text-encoding.ts). */
  encoding?: DetectedEncoding;
  /** Files a folder import did not take as recordings (file-names.ts: what operating systems leave, hidden files). */
  skipped?: SkippedFiles;
}

/** A regular file within the manifest size limit, or a message naming it and what it is (security/input-file.ts). */
function checkFile(file: string, what: string): void {
  if (!existsSync(file) && !inputExists(file)) throw new UserError(`${what} ${file} does not exist`, 'manifest');
  checkInputFileSync(file, 'manifest', 'manifest');
}

/** A whole text file in the encoding it is in (text-encoding.ts), and the hash of its bytes. */
function readText(file: string, what: string): { text: string; sha256: string; encoding: DetectedEncoding } {
  checkFile(file, what);
  let text = '';
  let last: TextChunk | null = null;
  for (const chunk of textChunks(file)) {
    text += chunk.text;
    last = chunk;
  }
  return { text, sha256: last!.hash.digest('hex'), encoding: last!.encoding };
}

/** Index of the first byte that is not part of a valid UTF-8 sequence (bytes.length when all are valid). */
function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    const len = b < 0x80 ? 1 : b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
    if (len === 0 || i + len > bytes.length) return i;
    let ok = true;
    for (let k = 1; k < len; k += 1) if ((bytes[i + k]! & 0xc0) !== 0x80) ok = false;
    if (ok && len > 1) {
      try {
        new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(i, i + len));
      } catch {
        ok = false; // overlong form or surrogate
      }
    }
    if (!ok) return i;
    i += len;
  }
  return i;
}

/** Line ends in decoded text: CRLF, LF or a lone CR (classic Mac) each end one line. */
function countLineEnds(text: string): number {
  return text.match(/\r\n|\r|\n/g)?.length ?? 0;
}

const CHUNK_BYTES = 1 << 16;

interface TextChunk {
  text: string;
  hash: ReturnType<typeof createHash>;
  encoding: DetectedEncoding;
}

/**
 * The file's text in chunks, decoded in the encoding it is in (text-encoding.ts: UTF-8,
 * UTF-16 with a byte order mark, or Windows-1252; detected unless `known`), with the running
 * SHA-256 of its bytes. A file that is none of them stops with the line and the byte.
 */
function* textChunks(file: string, known?: DetectedEncoding): Generator<TextChunk> {
  // Opened without blocking and checked on the descriptor (security/input-file.ts): a FIFO
  // swapped in after checkFile cannot hang the import.
  const { fd } = openInputFileSync(file, 'manifest', 'manifest');
  try {
    let encoding: DetectedEncoding;
    try {
      encoding = known ?? detectEncoding(fd);
    } catch (err) {
      if (err instanceof EncodingProblem) throw new UserError(`${file}: ${err.message}`, 'manifest');
      throw err;
    }
    // The BOM stays in the text, as readFileSync kept it: the manifest's hash is of its bytes, and the CSV reader skips it.
    const decoder = spreadsheetDecoder(encoding.encoding);
    const hash = createHash('sha256');
    const buf = Buffer.alloc(CHUNK_BYTES);
    let lines = 1;
    for (;;) {
      const n = readSync(fd, buf, 0, CHUNK_BYTES, null);
      const bytes = buf.subarray(0, n);
      hash.update(bytes);
      let text: string;
      try {
        text = decoder.decode(bytes, { stream: n > 0 });
      } catch {
        // Only when the file changed since its encoding was read, or a BOM promised UTF-16 the bytes are not.
        throw new UserError(`${file}: after line ${lines} the bytes are not ${ENCODING_NAMES[encoding.encoding]} text. Save the file as UTF-8 (in a spreadsheet: "CSV UTF-8") and import it again.`, 'manifest');
      }
      lines += countLineEnds(text);
      yield { text, hash, encoding };
      if (n === 0) return;
    }
  } finally {
    closeSync(fd);
  }
}

/** The records of a CSV/TSV file, streamed; the delimiter is sniffed from the first chunk when not given. */
function* csvRecords(
  file: string,
  delimiter: string | undefined,
  onDelimiter?: (d: string) => void,
  known?: DetectedEncoding,
): Generator<CsvRecord, { sha256: string; encoding: DetectedEncoding }> {
  let reader: CsvRecordReader | null = null;
  let hash: ReturnType<typeof createHash> | null = null;
  let encoding: DetectedEncoding = known ?? { encoding: 'utf-8', bom: false };
  for (const chunk of textChunks(file, known)) {
    hash = chunk.hash;
    encoding = chunk.encoding;
    if (!reader) {
      if (chunk.text === '' && delimiter === undefined) continue;
      const d = delimiter ?? sniffDelimiter(chunk.text);
      onDelimiter?.(d);
      reader = new CsvRecordReader(d);
    }
    yield* reader.push(chunk.text);
  }
  if (reader) yield* reader.end();
  return { sha256: hash!.digest('hex'), encoding };
}

function csvFailure(err: unknown, file: string): never {
  if (err instanceof CsvError) throw new UserError(`${file}: ${err.message}`, 'manifest');
  throw err;
}

function parseTable(text: string, file: string, delimiter?: string) {
  try {
    return parseCsvTable(text, delimiter ? { delimiter } : {});
  } catch (err) {
    if (err instanceof CsvError) throw new UserError(`${file}: ${err.message}`, 'manifest');
    throw err;
  }
}

const sha = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');

/** Guess a mapping from column names alone (column-suggestions.ts; the wizard pre-fills it; the CLI uses it when no --map is given). */
export function suggestMapping(header: string[]): ColumnMapping | null {
  return suggestColumns(header).mapping;
}

/** Rows the content rules of the column suggestions read. */
const SAMPLE_ROWS = 20;

/** Whether a manifest cell names an audio file inside the manifest's folder (clips must lie there; nothing outside it is probed). */
function audioInside(root: string): (value: string) => boolean {
  return (value) => {
    const abs = resolve(root, value.replace(/\\/g, '/'));
    if (samePath(abs, root) || !isEqualOrInside(abs, root)) return false;
    const onDisk = findByNormalisedName(abs);
    if (onDisk === null) return false;
    try {
      return statSync(onDisk).isFile();
    } catch {
      return false;
    }
  };
}

/**
 * A CSV/TSV manifest, checked whole before anything is imported: its encoding (one pass
 * over its bytes unless a BOM names it, text-encoding.ts), then in one streaming pass its
 * header and the field count of every row (errors name the line); then read again row by
 * row by rows().
 */
export function loadManifest(manifest: string, delimiter?: string): SourceTable {
  const file = resolve(manifest);
  checkFile(file, 'the manifest');
  let header: string[] = [];
  let found = delimiter ?? ',';
  let rowCount = 0;
  let sha256 = '';
  let encoding: DetectedEncoding = { encoding: 'utf-8', bom: false };
  try {
    const records = csvRecords(file, delimiter, (d) => (found = d));
    for (let r = records.next(); ; r = records.next()) {
      if (r.done) {
        sha256 = r.value.sha256;
        encoding = r.value.encoding;
        break;
      }
      if (rowCount === 0 && header.length === 0) header = checkHeader(r.value);
      else {
        recordToRow(header, r.value);
        rowCount += 1;
      }
    }
    if (header.length === 0) checkHeader(undefined);
  } catch (err) {
    csvFailure(err, file);
  }
  const real = realpathSync(file);
  const delim = found;
  // Names first, then the first rows' values for the columns whose names say nothing.
  const suggested = () => {
    const sample: Record<string, string>[] = [];
    let first = true;
    for (const record of csvRecords(file, delim, undefined, encoding)) {
      if (first) {
        first = false;
        continue;
      }
      sample.push(recordToRow(header, record).values);
      if (sample.length >= SAMPLE_ROWS) break;
    }
    const s = suggestColumns(header, sample, { audioExists: audioInside(dirname(file)) });
    return { defaultMapping: s.mapping, suggestions: s.suggestions };
  };
  return {
    kind: 'manifest',
    sourcePath: real,
    baseDir: dirname(file),
    rootDir: dirname(file),
    header,
    rowCount,
    *rows() {
      let first = true;
      let rowIndex = 0;
      try {
        for (const record of csvRecords(file, delim, undefined, encoding)) {
          if (first) {
            first = false;
            continue;
          }
          const row = recordToRow(header, record);
          rowIndex += 1;
          yield { rowIndex, line: row.line, values: row.values };
        }
      } catch (err) {
        csvFailure(err, file);
      }
    },
    sha256,
    ...suggested(),
    delimiter: delim,
    encoding,
  };
}

/** Files in a folder tree, in name order, relative to it; what the OS left there (file-names.ts) goes to `skipped`, folders with a slash. */
function listFiles(dir: string, skipped: string[], rel = ''): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(dir, rel), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const r = rel ? `${rel}/${entry.name}` : entry.name;
    if (isOsLitter(entry.name, entry.isDirectory())) {
      skipped.push(entry.isDirectory() ? `${r}/` : r);
      continue;
    }
    if (entry.isDirectory()) out.push(...listFiles(dir, skipped, r));
    else out.push(r);
  }
  return out;
}

/** Skipped entries shown by name in a folder import's record and messages. */
const SKIPPED_EXAMPLES = 5;

/**
 * A folder with one subfolder per group; every file below a subfolder is a clip of
 * that group. An optional metadata.csv at the top (a path/file column plus any other
 * columns) adds metadata, matched by relative path or by file name, both in NFC (names
 * from Macs are decomposed, a spreadsheet typed elsewhere is not). What operating
 * systems leave in folders (Thumbs.db, .DS_Store, "._" files…) is skipped and counted.
 */
export function loadFolder(folder: string, label = 'group'): SourceTable {
  const groupLabel = label.trim().normalize('NFC');
  const root = resolve(folder);
  checkInputFolder(root, 'folder');
  const skippedNames: string[] = [];
  const files = listFiles(root, skippedNames).filter((f) => f !== 'metadata.csv');
  const metaFile = join(root, 'metadata.csv');
  let metaHeader: string[] = [];
  const meta = new Map<string, Record<string, string>>();
  let metaText = '';
  let metaEncoding: DetectedEncoding | undefined;
  if (existsSync(metaFile)) {
    const read = readText(metaFile, 'the metadata file');
    metaText = read.text;
    metaEncoding = read.encoding;
    const t = parseTable(metaText, metaFile);
    const key = t.header.find((h) => ['path', 'file', 'filename', 'file_name'].includes(h.toLowerCase()));
    if (!key) throw new UserError(`${metaFile} needs a column named path or file to match rows to audio files (found: ${quoteUserList(t.header)})`, 'folder');
    metaHeader = t.header.filter((h) => h !== key && h !== 'path' && h !== groupLabel);
    for (const r of t.rows) {
      const p = r.values[key]!.replace(/\\/g, '/').trim().normalize('NFC');
      meta.set(p, r.values);
      if (!meta.has(`name:${basename(p)}`)) meta.set(`name:${basename(p)}`, r.values);
    }
  }
  const header = ['path', groupLabel, ...metaHeader];
  const rowList: SourceRow[] = files.map((f, i) => {
    const slash = f.indexOf('/');
    const values: Record<string, string> = { path: f, [groupLabel]: slash > 0 ? f.slice(0, slash) : '' };
    const nfc = f.normalize('NFC');
    const m = meta.get(nfc) ?? meta.get(`name:${basename(nfc)}`);
    for (const h of metaHeader) values[h] = m?.[h] ?? '';
    return { rowIndex: i + 1, line: null, values };
  });
  return {
    kind: 'folder',
    sourcePath: realpathSync(root),
    baseDir: root,
    rootDir: root,
    header,
    rowCount: rowList.length,
    rows: () => rowList,
    sha256: sha(`${files.join('\n')}\n--\n${metaText}`),
    defaultMapping: { path: 'path', groups: [groupLabel], ignore: [] },
    skipped: { count: skippedNames.length, examples: skippedNames.slice(0, SKIPPED_EXAMPLES) },
    ...(metaEncoding ? { encoding: metaEncoding } : {}),
  };
}

/**
 * A Common Voice release folder: a split TSV (validated.tsv by default) whose `path`
 * column names files in clips/. client_id → speaker, sentence → transcript; age,
 * gender, accents (or accent) and variant → group labels.
 */
export function loadCommonVoice(folder: string, split = 'validated.tsv'): SourceTable {
  const root = checkInputFolder(resolve(folder), 'folder');
  const tsv = join(root, split);
  if (!existsSync(tsv)) {
    const candidates = existsSync(root) ? readdirSync(root).filter((f) => f.endsWith('.tsv')) : [];
    throw new UserError(`${root} does not look like a Common Voice release: no ${split}${candidates.length ? ` (found ${quoteUserList(candidates)})` : ''}`, 'folder');
  }
  checkFile(tsv, 'the Common Voice split');
  // Common Voice TSVs are not RFC 4180: quotes are literal characters inside sentences,
  // so they are read as lines split at tabs, streamed like a manifest.
  let encoding: DetectedEncoding | undefined;
  function* lines(): Generator<{ line: number; text: string }, string> {
    let carry = '';
    let line = 0;
    let hash: ReturnType<typeof createHash> | null = null;
    for (const chunk of textChunks(tsv, encoding)) {
      hash = chunk.hash;
      encoding = chunk.encoding;
      const parts = (carry + chunk.text).split(/\r?\n/);
      carry = parts.pop()!;
      for (const p of parts) yield { line: ++line, text: line === 1 ? p.replace(/^\ufeff/, '') : p };
    }
    if (carry !== '') yield { line: ++line, text: line === 1 ? carry.replace(/^\ufeff/, '') : carry };
    return hash!.digest('hex');
  }
  let header: string[] = [];
  let rowCount = 0;
  let sha256 = '';
  const scan = lines();
  for (let r = scan.next(); ; r = scan.next()) {
    if (r.done) {
      sha256 = r.value;
      break;
    }
    if (r.value.line === 1) header = r.value.text.split('\t').map((h) => h.trim());
    else if (r.value.text !== '') rowCount += 1;
  }
  for (const col of ['client_id', 'path', 'sentence']) {
    if (!header.includes(col)) throw new UserError(`${tsv}: missing column "${quoteUserText(col)}" (found: ${quoteUserList(header)})`, 'folder');
  }
  const groups = ['age', 'gender', header.includes('accents') ? 'accents' : 'accent', 'variant'].filter((g) => header.includes(g));
  return {
    kind: 'common-voice',
    sourcePath: realpathSync(tsv),
    baseDir: join(root, 'clips'),
    rootDir: root,
    header,
    rowCount,
    *rows() {
      let rowIndex = 0;
      for (const { line, text } of lines()) {
        if (line === 1 || text === '') continue;
        const fields = text.split('\t');
        const values: Record<string, string> = {};
        header.forEach((h, k) => (values[h] = fields[k] ?? ''));
        yield { rowIndex: ++rowIndex, line, values };
      }
    },
    sha256,
    defaultMapping: { path: 'path', speaker: 'client_id', transcript: 'sentence', groups, ignore: [] },
    ...(encoding ? { encoding } : {}),
  };
}

export function loadSource(source: ImportSource): SourceTable {
  switch (source.kind) {
    case 'manifest':
      return loadManifest(source.manifest, source.delimiter);
    case 'folder':
      return loadFolder(source.folder, source.groupLabel);
    case 'common-voice':
      return loadCommonVoice(source.folder, source.split);
  }
}

/**
 * The folder a stored dataset's clips must lie in, from what the datasets table keeps
 * (its kind and canonical source path): the manifest's or split TSV's folder, or the
 * imported folder itself. The same folder the importer checked each clip against.
 */
export function datasetRootDir(kind: SourceKind, sourcePath: string): string {
  return kind === 'folder' ? sourcePath : dirname(sourcePath);
}

export type ResolvedPath =
  | { ok: true; path: string }
  | { ok: false; path: string; code: 'missing_file' | 'file_name_not_utf8' | 'unreadable_file' | 'outside_folder' | 'empty_file'; message: string };

/** Per folder (and its modification time): the names in it whose bytes are not UTF-8. Usually none. */
const nonUtf8Names = new Map<string, { mtimeMs: number; names: Buffer[] }>();

function nonUtf8NamesIn(dir: string): Buffer[] {
  const st = statSync(dir, { throwIfNoEntry: false });
  if (!st) return [];
  const mtimeMs = st.mtimeMs;
  const cached = nonUtf8Names.get(dir);
  if (cached && cached.mtimeMs === mtimeMs) return cached.names;
  let names: Buffer[];
  try {
    names = readdirSync(dir, { encoding: 'buffer' }).filter((n) => firstInvalidUtf8(n) < n.length);
  } catch {
    names = []; // not a folder, or unreadable: nothing to suggest
  }
  if (nonUtf8Names.size > 256) nonUtf8Names.clear();
  nonUtf8Names.set(dir, { mtimeMs, names });
  return names;
}

/**
 * Why a file that "does not exist" may in fact be there under a name that is not UTF-8
 * (a Latin-1 name from an old system, or a folder import that could only read it with
 * replacement characters), or null. Node opens files by UTF-8 names, so such a file
 * cannot be reached until it is renamed.
 */
export function nonUtf8NameProblem(abs: string): string | null {
  const want = basename(abs).normalize('NFC');
  for (const raw of nonUtf8NamesIn(dirname(abs))) {
    const lossy = raw.toString('utf8').normalize('NFC');
    const latin1 = new TextDecoder('windows-1252').decode(raw).normalize('NFC');
    if (lossy === want || latin1 === want) {
      const shown = [...raw].map((b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : `\\x${b.toString(16).toUpperCase().padStart(2, '0')}`)).join('');
      return `the file's name on disk is not UTF-8 text ("${shown}", which reads as "${latin1}" in Latin-1/Windows-1252), so it cannot be opened by name; rename the file (its name saved as UTF-8) and import again`;
    }
  }
  return null;
}

/** The error stat gives for `abs` when it is a refusal to look (permissions, macOS privacy), else null. */
function statRefusal(abs: string): unknown {
  try {
    statSync(abs);
    return null;
  } catch (err) {
    return isReadRefusal(err) ? err : null;
  }
}

function inside(root: string, p: string): boolean {
  return isEqualOrInside(p, root);
}

/**
 * Resolve a path cell against the source's folder and check it stays inside, symlinks
 * resolved, and outside `protectedDirs` (the Equivox data folder with its keys).
 */
export function resolveClipPath(table: Pick<SourceTable, 'baseDir' | 'rootDir'>, cell: string, protectedDirs: readonly string[] = []): ResolvedPath {
  let written = cell.trim();
  if (!written) return { ok: false, path: '', code: 'missing_file', message: 'the path cell is empty' };
  let abs = resolve(table.baseDir, written);
  if (!existsSync(abs) && written.includes('\\') && process.platform !== 'win32') {
    written = written.replace(/\\/g, '/');
    abs = resolve(table.baseDir, written);
  }
  if (!inside(table.rootDir, abs)) {
    return { ok: false, path: abs, code: 'outside_folder', message: `the path leads outside the manifest's folder (${table.rootDir})` };
  }
  // A name written in NFC for a file named in NFD on disk (copied from a Mac), or the reverse.
  if (!existsSync(abs)) abs = findByNormalisedName(abs) ?? abs;
  if (!existsSync(abs)) {
    // existsSync says false for a file the system will not let us look at, too: say that instead.
    const refusal = statRefusal(abs);
    if (refusal) return { ok: false, path: abs, code: 'unreadable_file', message: `${abs}: ${unreadableReason(refusal)}` };
    const badName = nonUtf8NameProblem(abs);
    if (badName) return { ok: false, path: abs, code: 'file_name_not_utf8', message: badName };
    return { ok: false, path: abs, code: 'missing_file', message: `file not found: ${abs}` };
  }
  const real = realpathSync(abs);
  if (!inside(realpathSync(table.rootDir), real)) {
    return { ok: false, path: abs, code: 'outside_folder', message: `the path resolves (through a symbolic link) to ${real}, outside the manifest's folder (${table.rootDir})` };
  }
  for (const dir of protectedDirs) {
    const problem = dataFolderProblem(real, dir);
    if (problem) return { ok: false, path: abs, code: 'outside_folder', message: `the path leads into Equivox's own data folder (${dir}), which is never read as a recording` };
  }
  const st = statSync(real);
  if (!st.isFile()) return { ok: false, path: abs, code: 'missing_file', message: `${abs} is not a file` };
  if (st.size === 0) return { ok: false, path: abs, code: 'empty_file', message: 'the file is empty (0 bytes)' };
  return { ok: true, path: abs };
}
