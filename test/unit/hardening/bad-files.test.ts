/**
 * Broken and hostile files (issue 9). The corpus is generated at test time by
 * scripts/make-bad-fixtures.mjs into a temp folder (nothing binary is committed). Each bad
 * file must get a clear error naming the file, row or field, and the rest of the work
 * must go on: a manifest mixing good and bad rows imports the good ones, a corrupt model
 * leaves the model store as it was, a damaged report verifies as invalid with a reason.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toErrorShape } from '../../../src/main/api';
import { csvCell, parseCsvRecords, toCsv } from '../../../src/main/data/csv';
import { importDataset } from '../../../src/main/data/import';
import { collectImportReport, listClips, type Clip } from '../../../src/main/data/repository';
import { loadSource } from '../../../src/main/data/sources';
import { importModel, listImportedModels, modelsDir } from '../../../src/main/inference/models';
import { verifyReport, writeExports } from '../../../src/main/report';
import { openDatabase } from '../../../src/main/store/open';
import { projectMigrations } from '../../../src/main/store/schema';
import type { ColumnMapping, ImportResult } from '../../../src/shared/api/datasets';
import type { AuditResults } from '../../../src/shared/results';

interface FixtureIndex {
  root: string;
  audio: string;
  csv: string;
  models: string;
  report: string;
}

const HOSTILE = ["=cmd|' /C calc'!A0", '+SUM(1,2)', '-2+3', '@SUM(A1)', '\t=1+1', '\r=1+1', '=HYPERLINK("http://x","y")'];
/** What a spreadsheet would run as a formula: a leading = + - @ TAB or CR that is not a plain number. */
const isFormula = (cell: string) => /^[=+\-@\t\r]/.test(cell) && !/^-?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(cell);

let fx: FixtureIndex;
let work: string;
let db: Database.Database;
let mixed: ImportResult;
let clips: Clip[];

const MAPPING: ColumnMapping = { path: 'file', speaker: 'speaker', transcript: 'transcript', valence: 'valence', groups: ['gender'], ignore: [] };

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'equivox-hardening-'));
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/make-bad-fixtures.mjs', join(work, 'bad')], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`make-bad-fixtures failed: ${r.stderr}`);
  fx = JSON.parse(r.stdout) as FixtureIndex;
  db = openDatabase(join(work, 'project.sqlite'), projectMigrations);
  mixed = await importDataset(db, { source: { kind: 'manifest', manifest: join(fx.csv, 'mixed.csv') }, role: 'target', mapping: MAPPING });
  clips = listClips(db, mixed.datasetId, { includeExcluded: true });
}, 180_000);

afterAll(() => db?.close());

const byRow = (row: number) => clips.find((c) => c.rowIndex === row)!;
const codes = (row: number) => byRow(row).issues.map((i) => i.code).sort();

describe('a manifest mixing good, broken and hostile audio (BOM, quotes, newlines, formula cells)', () => {
  it('keeps every row, imports the good ones and gives each bad one its reason', () => {
    expect(clips).toHaveLength(17);
    const expected: Record<number, { status: Clip['status']; codes: string[] }> = {
      1: { status: 'ok', codes: [] },
      2: { status: 'ok', codes: [] },
      3: { status: 'ok', codes: [] },
      4: { status: 'excluded', codes: ['empty_file'] },
      5: { status: 'excluded', codes: ['too_short', 'truncated'] }, // 20 kB of a 44.1 kHz WAV: 0.22 s
      7: { status: 'excluded', codes: ['not_audio'] },
      8: { status: 'excluded', codes: ['not_audio'] },
      9: { status: 'excluded', codes: ['not_audio'] },
      10: { status: 'excluded', codes: ['not_audio'] },
      11: { status: 'excluded', codes: ['truncated'] },
      13: { status: 'ok', codes: ['downmixed'] },
      14: { status: 'warning', codes: ['narrowband'] },
      15: { status: 'excluded', codes: ['too_long'] },
      16: { status: 'excluded', codes: ['missing_file'] },
      17: { status: 'excluded', codes: ['bad_value', 'duplicate', 'missing_metadata', 'missing_metadata'] },
    };
    for (const [row, e] of Object.entries(expected)) {
      expect({ row: Number(row), status: byRow(Number(row)).status, codes: codes(Number(row)) }).toEqual({ row: Number(row), ...e });
    }
    // A FLAC cut to a third: ffmpeg either reads what is there (and the header's length
    // betrays it) or refuses it; either way it is excluded with a reason.
    expect(byRow(6).status).toBe('excluded');
    expect(codes(6).some((c) => c === 'truncated' || c === 'not_audio')).toBe(true);
    // A fmt chunk claiming 4 GB: unreadable or damaged, never a crash or a hang.
    expect(byRow(12).status).toBe('excluded');
    expect(codes(12).some((c) => c === 'truncated' || c === 'not_audio')).toBe(true);
    expect(mixed.imported).toBe(5); // rows 1, 2, 3, 13, 14
  });

  it('names the row, the file and the problem in the import report', () => {
    const failed = new Map(mixed.failed.map((f) => [f.row, f]));
    expect(failed.get(4)).toMatchObject({ path: 'audio/zero.wav', code: 'empty_file', reason: expect.stringContaining('0 bytes') });
    expect(failed.get(7)).toMatchObject({ path: 'audio/text.wav', code: 'not_audio', reason: expect.stringMatching(/^not a readable audio file \(.+\)/) });
    expect(failed.get(11)).toMatchObject({ path: 'audio/huge-header.wav', code: 'truncated', reason: expect.stringMatching(/header declares \d{9,} more bytes/) });
    expect(failed.get(15)).toMatchObject({ path: 'audio/hour.flac', code: 'too_long', reason: expect.stringContaining('3600.00 s') });
    expect(failed.get(16)).toMatchObject({ path: 'audio/missing.wav', code: 'missing_file', reason: expect.stringContaining('missing.wav') });
    expect(failed.get(17)!.reason).toMatch(/valence rating "not a number" in column "valence"/);
    expect(failed.get(17)!.reason).toMatch(/same audio \(SHA-256\) as row 1/);
    expect(mixed.warnings).toContainEqual(expect.objectContaining({ row: 14, code: 'narrowband' }));
    // The report the CLI prints is the same as the stored one.
    expect(collectImportReport(db, mixed.datasetId).failed).toEqual(mixed.failed);
  });

  it('reads BOM, quoted commas and newlines, decimal commas, and stores formula cells verbatim as data', () => {
    const header = loadSource({ kind: 'manifest', manifest: join(fx.csv, 'mixed.csv') }).header;
    expect(header[0]).toBe('file'); // the BOM is not part of the first column's name
    expect(byRow(2).transcript).toBe('Hello, "world"\nsecond line');
    expect(byRow(2).valence).toBe(6.5);
    expect(byRow(3).groups).toEqual({ gender: '+SUM(1,2)' });
    expect(byRow(1).metadata.notes).toBe(HOSTILE[0]);
    expect(byRow(13)).toMatchObject({ channels: 6, sampleRate: 44100 });
    expect(byRow(14).sampleRate).toBe(8000);
    // The hour-long file was measured to the end (levels streamed, not held).
    expect(byRow(15).durationS).toBeCloseTo(3600, 0);
    for (const c of clips.filter((x) => x.status !== 'excluded')) expect(c.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('imports the hour-long file without holding its PCM (peak RSS of a child import < the 230 MB an hour of float32 takes)', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'test/unit/hardening/import-child.ts', join(fx.csv, 'mixed.csv'), join(work, 'child.sqlite'), 'audio/hour.flac'], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { durationS: number; codes: string[]; maxRssKiB: number };
    expect(out.durationS).toBeCloseTo(3600, 0);
    expect(out.codes).toEqual(['too_long']);
    expect(out.maxRssKiB * 1024).toBeLessThan(3600 * 16000 * 4);
  });
});

describe('manifests that cannot be read as a table', () => {
  const load = (name: string) => () => loadSource({ kind: 'manifest', manifest: join(fx.csv, name) });
  it('refuses each with a message naming the file and the line or column', () => {
    expect(load('duplicate-column.csv')).toThrow(/duplicate-column\.csv: the header names column "gender" twice/);
    expect(load('ragged.csv')).toThrow(/ragged\.csv: line 3: expected 2 fields, found 3/);
    expect(load('unterminated.csv')).toThrow(/unterminated\.csv: unterminated quoted field starting on line 2/);
    expect(load('empty.csv')).toThrow(/empty\.csv: the file is empty/);
  });

  it('reads a Windows "CSV" export (Windows-1252) as such, and says so, rather than renaming a group (test/unit/data/spreadsheet-encodings.test.ts refuses what is ambiguous)', () => {
    const t = loadSource({ kind: 'manifest', manifest: join(fx.csv, 'latin1.csv') });
    expect(t.encoding).toEqual({ encoding: 'windows-1252', bom: false });
    expect([...t.rows()].map((r) => r.values.accent)).toEqual(['Ontario', 'Québec']);
  });

  it('names the missing column, and creates no dataset for a manifest it refuses', async () => {
    const before = (db.prepare('SELECT COUNT(*) AS n FROM datasets').get() as { n: number }).n;
    const attempt = (name: string, mapping?: ColumnMapping) =>
      importDataset(db, { source: { kind: 'manifest', manifest: join(fx.csv, name) }, role: 'target', ...(mapping ? { mapping } : {}) });
    await expect(attempt('missing-column.csv')).rejects.toThrow(/no path column could be guessed/);
    await expect(attempt('missing-column.csv', { path: 'file', groups: [], ignore: [] })).rejects.toThrow(/the path column "file" is not in the manifest \(columns: speaker, gender\)/);
    await expect(attempt('ragged.csv')).rejects.toThrow(/line 3/);
    expect((db.prepare('SELECT COUNT(*) AS n FROM datasets').get() as { n: number }).n).toBe(before);
  });
});

describe('CSV exports neutralise formula injection', () => {
  it('csvCell prefixes every formula-like string with a quote and leaves numbers alone', () => {
    for (const h of HOSTILE) {
      const [record] = parseCsvRecords(`${csvCell(h)}\r\n`);
      expect(record!.fields).toEqual([`'${h}`]);
    }
    for (const n of [-1.5, '-1.5', '1e-3', '-2E+5', 0]) expect(csvCell(n)).toBe(String(n));
    const text = toCsv(['=name', 'value'], [[HOSTILE[0], -3], ['plain', '@x']]);
    const records = parseCsvRecords(text);
    expect(records.map((r) => r.fields)).toEqual([["'=name", 'value'], [`'${HOSTILE[0]}`, '-3'], ['plain', "'@x"]]);
  });

  it('writeExports: a group label that is a formula reaches every table only as text', () => {
    const sample = readFileSync('test/fixtures/report/results.sample.json', 'utf8');
    expect(sample).toContain('"female"');
    const results = JSON.parse(sample.replaceAll('"female"', JSON.stringify(HOSTILE[0]))) as AuditResults;
    const dir = join(work, 'exports');
    const files = writeExports(results, dir).filter((f) => f.endsWith('.csv'));
    expect(files.length).toBeGreaterThan(0);
    let seen = 0;
    for (const f of files) {
      for (const r of parseCsvRecords(readFileSync(f, 'utf8'))) {
        for (const cell of r.fields) {
          expect(isFormula(cell), `${f} line ${r.line}: ${cell}`).toBe(false);
          if (cell.includes(HOSTILE[0]!)) seen += 1;
        }
      }
    }
    expect(seen).toBeGreaterThan(0); // the hostile label did reach the exports
  });
});

describe('ONNX files that are corrupt or have the wrong inputs', () => {
  it('each fails with a user error naming the file; the model store keeps what it had and no partial folder', async () => {
    const home = join(work, 'model-home');
    const good = await importModel(home, { file: join(fx.models, 'tiny-valid.onnx') });
    const cases: [string, RegExp][] = [
      ['random.onnx', /random\.onnx is not a readable ONNX model: /],
      ['half.onnx', /half\.onnx is not a readable ONNX model: /],
      ['empty.onnx', /empty\.onnx is empty \(0 bytes\)/],
      ['wrong-rank.onnx', /wrong-rank\.onnx could not be run as a wav2vec2 raw-waveform encoder \(input "input_values" \[1, 1, T\].*Invalid rank/],
      ['wrong-name.onnx', /wrong-name\.onnx: could not tell the model family.*"speech"/],
    ];
    for (const [file, message] of cases) {
      const err = await importModel(home, { file: join(fx.models, file) }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err, file).not.toBeNull();
      const shape = toErrorShape(err);
      expect({ file, code: shape.code }).toEqual({ file, code: 'user' });
      expect(shape.message).toMatch(message);
    }
    expect(listImportedModels(home).map((m) => m.id)).toEqual([good.id]);
    expect(readdirSync(modelsDir(home))).toEqual([good.id]);
  });
});

describe('signed reports that were damaged', () => {
  const verify = (name: string) => verifyReport(readFileSync(join(fx.report, name)));
  it('the undamaged report verifies', () => {
    expect(verify('signed.pdf')).toMatchObject({ valid: true, coversWholeFile: true, problems: [] });
  });

  it('a flipped byte in the signature or the signed range, appended bytes, truncation or junk: invalid with a reason, never a throw', () => {
    const sig = verify('flipped-signature.pdf');
    expect(sig.valid).toBe(false);
    expect(sig.problems).toContain('the RSA signature over the signed attributes does not verify');
    const cert = verify('flipped-certificate.pdf');
    expect(cert.valid).toBe(false);
    expect(cert.problems.length).toBeGreaterThan(0);
    const content = verify('flipped-content.pdf');
    expect(content.valid).toBe(false);
    expect(content.problems).toContain('the document digest does not match the signed digest (the file was changed)');
    const appended = verify('appended.pdf');
    expect(appended.valid).toBe(false);
    expect(appended.problems).toContain('the signed byte range does not cover the whole file except the signature');
    for (const name of ['truncated.pdf', 'zero.pdf', 'not-a-pdf.pdf']) {
      const v = verify(name);
      expect({ name, valid: v.valid }).toEqual({ name, valid: false });
      expect(v.problems.length, name).toBeGreaterThan(0);
    }
    expect(verify('zero.pdf').problems).toEqual([expect.stringMatching(/^not a signed Equivox report: the file cannot be read as a PDF \(no "startxref"/)]);
  });
});
