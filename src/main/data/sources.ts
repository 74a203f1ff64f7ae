/**
 * Turn each kind of import source (CSV/TSV manifest, folder of group subfolders,
 * Common Voice release) into one table of rows with a path column, so a single import
 * pipeline handles them all.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { ColumnMapping, ImportSource, SourceKind } from '../../shared/api/datasets';
import { UserError } from '../../shared/errors';
import { dataFolderProblem } from '../security/path-policy';
import { CsvError, parseCsvTable } from './csv';

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
  rows: SourceRow[];
  sha256: string;
  defaultMapping: ColumnMapping | null;
  /** The manifest's delimiter (manifests only). */
  delimiter?: string;
}

function readText(file: string, what: string): string {
  if (!existsSync(file)) throw new UserError(`${what} ${file} does not exist`, 'manifest');
  if (!statSync(file).isFile()) throw new UserError(`${what} ${file} is not a file`, 'manifest');
  return decodeUtf8(readFileSync(file), file);
}

/**
 * Manifests must be UTF-8. Decoding other bytes leniently would turn "Québec" into
 * "Qu\ufffdbec" and silently rename a speaker group, so a file that is not valid UTF-8 is
 * refused with the line and byte where it fails and what the byte is in Latin-1 /
 * Windows-1252, the usual culprit (spreadsheets' "CSV" export on Windows).
 */
export function decodeUtf8(bytes: Buffer, file: string): string {
  try {
    // ignoreBOM keeps a BOM in the text, as readFileSync did: the manifest's hash must not change.
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    // Find the first invalid byte: decode growing prefixes is quadratic, so walk the sequences.
    let i = 0;
    while (i < bytes.length) {
      const b = bytes[i]!;
      const len = b < 0x80 ? 1 : b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
      if (len === 0 || i + len > bytes.length) break;
      let ok = true;
      for (let k = 1; k < len; k += 1) if ((bytes[i + k]! & 0xc0) !== 0x80) ok = false;
      if (ok && len > 1) {
        try {
          new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(i, i + len));
        } catch {
          ok = false; // overlong form or surrogate
        }
      }
      if (!ok) break;
      i += len;
    }
    const before = bytes.subarray(0, i);
    let line = 1;
    for (const c of before) if (c === 0x0a) line += 1;
    const bad = bytes[i] ?? 0;
    const latin1 = new TextDecoder('windows-1252').decode(bytes.subarray(i, i + 1));
    throw new UserError(
      `${file} is not UTF-8 text: line ${line} has the byte 0x${bad.toString(16).padStart(2, '0').toUpperCase()} ("${latin1}" in Latin-1/Windows-1252). ` +
        'Save the file as UTF-8 (in a spreadsheet: "CSV UTF-8") and import it again.',
      'manifest',
    );
  }
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

/** Guess a mapping from column names (the wizard pre-fills it; the CLI uses it when no --map is given). */
export function suggestMapping(header: string[]): ColumnMapping | null {
  const find = (...names: string[]) => header.find((h) => names.includes(h.toLowerCase()));
  const path = find('path', 'file', 'filename', 'file_name', 'audio', 'wav', 'audio_path', 'filepath');
  if (!path) return null;
  const speaker = find('speaker', 'speaker_id', 'client_id', 'spk', 'speakerid');
  const transcript = find('transcript', 'sentence', 'text', 'reference', 'ref', 'transcription');
  const valence = find('valence', 'rating', 'valence_rating');
  const hypothesis = find('hypothesis', 'hyp', 'asr', 'prediction');
  const groupNames = ['gender', 'sex', 'age', 'age_band', 'accent', 'accents', 'dialect', 'ability', 'variant', 'group', 'race', 'ethnicity', 'rate', 'region', 'language', 'l1'];
  const groups = header.filter((h) => groupNames.includes(h.toLowerCase()));
  return {
    path,
    groups,
    ignore: [],
    ...(speaker ? { speaker } : {}),
    ...(transcript ? { transcript } : {}),
    ...(valence ? { valence } : {}),
    ...(hypothesis ? { hypothesis } : {}),
  };
}

export function loadManifest(manifest: string, delimiter?: string): SourceTable {
  const file = resolve(manifest);
  const text = readText(file, 'the manifest');
  const table = parseTable(text, file, delimiter);
  const real = realpathSync(file);
  return {
    kind: 'manifest',
    sourcePath: real,
    baseDir: dirname(file),
    rootDir: dirname(file),
    header: table.header,
    rows: table.rows.map((r, i) => ({ rowIndex: i + 1, line: r.line, values: r.values })),
    sha256: sha(text),
    defaultMapping: suggestMapping(table.header),
    delimiter: table.delimiter,
  };
}

function listFiles(dir: string, rel = ''): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(dir, rel), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (entry.name.startsWith('.')) continue;
    const r = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...listFiles(dir, r));
    else out.push(r);
  }
  return out;
}

/**
 * A folder with one subfolder per group; every file below a subfolder is a clip of
 * that group. An optional metadata.csv at the top (a path/file column plus any other
 * columns) adds metadata, matched by relative path or by file name.
 */
export function loadFolder(folder: string, groupLabel = 'group'): SourceTable {
  const root = resolve(folder);
  if (!existsSync(root) || !statSync(root).isDirectory()) throw new UserError(`${root} is not a folder`, 'folder');
  const files = listFiles(root).filter((f) => f !== 'metadata.csv');
  const metaFile = join(root, 'metadata.csv');
  let metaHeader: string[] = [];
  const meta = new Map<string, Record<string, string>>();
  let metaText = '';
  if (existsSync(metaFile)) {
    metaText = readText(metaFile, 'the metadata file');
    const t = parseTable(metaText, metaFile);
    const key = t.header.find((h) => ['path', 'file', 'filename', 'file_name'].includes(h.toLowerCase()));
    if (!key) throw new UserError(`${metaFile} needs a column named path or file to match rows to audio files (found: ${t.header.join(', ')})`, 'folder');
    metaHeader = t.header.filter((h) => h !== key && h !== 'path' && h !== groupLabel);
    for (const r of t.rows) {
      const p = r.values[key]!.replace(/\\/g, '/');
      meta.set(p, r.values);
      if (!meta.has(`name:${basename(p)}`)) meta.set(`name:${basename(p)}`, r.values);
    }
  }
  const header = ['path', groupLabel, ...metaHeader];
  const rows: SourceRow[] = files.map((f, i) => {
    const slash = f.indexOf('/');
    const values: Record<string, string> = { path: f, [groupLabel]: slash > 0 ? f.slice(0, slash) : '' };
    const m = meta.get(f) ?? meta.get(`name:${basename(f)}`);
    for (const h of metaHeader) values[h] = m?.[h] ?? '';
    return { rowIndex: i + 1, line: null, values };
  });
  return {
    kind: 'folder',
    sourcePath: realpathSync(root),
    baseDir: root,
    rootDir: root,
    header,
    rows,
    sha256: sha(`${files.join('\n')}\n--\n${metaText}`),
    defaultMapping: { path: 'path', groups: [groupLabel], ignore: [] },
  };
}

/**
 * A Common Voice release folder: a split TSV (validated.tsv by default) whose `path`
 * column names files in clips/. client_id → speaker, sentence → transcript; age,
 * gender, accents (or accent) and variant → group labels.
 */
export function loadCommonVoice(folder: string, split = 'validated.tsv'): SourceTable {
  const root = resolve(folder);
  const tsv = join(root, split);
  if (!existsSync(tsv)) {
    const candidates = existsSync(root) ? readdirSync(root).filter((f) => f.endsWith('.tsv')) : [];
    throw new UserError(`${root} does not look like a Common Voice release: no ${split}${candidates.length ? ` (found ${candidates.join(', ')})` : ''}`, 'folder');
  }
  const text = readText(tsv, 'the Common Voice split');
  // Common Voice TSVs are not RFC 4180: quotes are literal characters inside sentences.
  const lines = text.replace(/^\ufeff/, '').split(/\r?\n/);
  const header = lines[0]!.split('\t').map((h) => h.trim());
  for (const col of ['client_id', 'path', 'sentence']) {
    if (!header.includes(col)) throw new UserError(`${tsv}: missing column "${col}" (found: ${header.join(', ')})`, 'folder');
  }
  const rows: SourceRow[] = [];
  for (let i = 1; i < lines.length; i += 1) {
    const line = lines[i]!;
    if (line === '') continue;
    const fields = line.split('\t');
    const values: Record<string, string> = {};
    header.forEach((h, k) => (values[h] = fields[k] ?? ''));
    rows.push({ rowIndex: rows.length + 1, line: i + 1, values });
  }
  const groups = ['age', 'gender', header.includes('accents') ? 'accents' : 'accent', 'variant'].filter((g) => header.includes(g));
  return {
    kind: 'common-voice',
    sourcePath: realpathSync(tsv),
    baseDir: join(root, 'clips'),
    rootDir: root,
    header,
    rows,
    sha256: sha(text),
    defaultMapping: { path: 'path', speaker: 'client_id', transcript: 'sentence', groups, ignore: [] },
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
  | { ok: false; path: string; code: 'missing_file' | 'outside_folder' | 'empty_file'; message: string };

function inside(root: string, p: string): boolean {
  const r = relative(root, p);
  return r === '' || (r !== '..' && !r.startsWith(`..${sep}`) && !isAbsolute(r));
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
  if (!existsSync(abs)) return { ok: false, path: abs, code: 'missing_file', message: `file not found: ${abs}` };
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
