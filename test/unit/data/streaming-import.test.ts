/**
 * The manifest importer streams: the CSV reader gives the same records however the text
 * is cut into chunks; a file read in 1 MB chunks still names the line of a byte that is
 * not UTF-8; an import's summary carries counts and the first problems only, with every
 * problem in a CSV beside the project database; and a file whose name on disk is not
 * UTF-8 is reported as such, not as "file not found". The memory and time figures for
 * 200,000 rows are printed by bench/import-scale.ts.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CsvRecordReader, csvCell, parseCsvTable } from '../../../src/main/data/csv';
import { importDataset } from '../../../src/main/data/import';
import { loadManifest } from '../../../src/main/data/sources';
import { openDatabase } from '../../../src/main/store/open';
import { projectMigrations } from '../../../src/main/store/schema';
import { IMPORT_SUMMARY_LIMIT, type ImportResult } from '../../../src/shared/api/datasets';
import { makeTone } from '../../fixtures/data/make-audio';

const root = mkdtempSync(join(tmpdir(), 'equivox-stream-'));

describe('CsvRecordReader', () => {
  const field = fc.stringMatching(/^[a-zé,;"\r\n \t]{0,6}$/);
  const records = fc.array(fc.array(field, { minLength: 2, maxLength: 4 }), { minLength: 1, maxLength: 12 });

  it('reads what was written, however the text is cut into chunks (RFC 4180 quoting, CRLF or LF, a BOM)', () => {
    fc.assert(
      fc.property(records, fc.boolean(), fc.boolean(), fc.array(fc.nat(), { maxLength: 8 }), (recs, crlf, bom, cuts) => {
        const quote = (v: string) => (/[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
        const text = (bom ? '\ufeff' : '') + recs.map((r) => r.map(quote).join(',')).join(crlf ? '\r\n' : '\n') + (crlf ? '\r\n' : '\n');
        const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
        const reader = new CsvRecordReader(',');
        const got = [];
        let at = 0;
        for (const p of [...points, text.length]) {
          got.push(...reader.push(text.slice(at, p)));
          at = p;
        }
        got.push(...reader.end());
        expect(got.map((r) => r.fields)).toEqual(recs);
        // Line numbers are those of a reading in one piece.
        const whole = new CsvRecordReader(',');
        expect(got.map((r) => r.line)).toEqual([...whole.push(text), ...whole.end()].map((r) => r.line));
      }),
      { numRuns: 500 },
    );
  });
});

describe('a manifest larger than one read chunk', () => {
  it('names the line of a byte that is neither UTF-8 nor Windows-1252 beyond the first megabyte, and reads a Windows-1252 one', () => {
    const file = join(root, 'big-latin1.csv');
    const line = `${'x'.repeat(99)}.wav,s1\n`; // 108 bytes
    const before = 12_000; // 1.3 MB of good lines
    const bytes = Buffer.concat([Buffer.from('path,speaker\n'), Buffer.from(line.repeat(before)), Buffer.from('Qu\xe9bec.wav,s2\n', 'latin1')]);
    writeFileSync(file, bytes);
    const t = loadManifest(file);
    expect(t.encoding).toEqual({ encoding: 'windows-1252', bom: false });
    expect(t.rowCount).toBe(before + 1);
    writeFileSync(file, Buffer.concat([bytes, Buffer.from('Qu\x9dbec.wav,s3\n', 'latin1')]));
    expect(() => loadManifest(file)).toThrow(new RegExp(`line ${before + 3} has the byte 0x9D, which is neither UTF-8 nor Windows-1252 text`));
  });

  it('counts, previews and streams every row, with the same hash as the bytes', async () => {
    const file = join(root, 'big.csv');
    const rows = 30_000;
    writeFileSync(file, `path,speaker\n${Array.from({ length: rows }, (_, i) => `"c${i},x.wav",s${i % 7}`).join('\r\n')}\r\n`);
    const t = loadManifest(file);
    expect(t.rowCount).toBe(rows);
    let n = 0;
    let last = '';
    for (const r of t.rows()) {
      n += 1;
      last = r.values.path!;
    }
    expect([n, last]).toEqual([rows, `c${rows - 1},x.wav`]);
    const { createHash } = await import('node:crypto');
    expect(t.sha256).toBe(createHash('sha256').update(readFileSync(file)).digest('hex'));
  });
});

describe('an import with thousands of problems', () => {
  const ROWS = 3000;
  const REAL = 10;
  const dir = join(root, 'many');
  let db: Database.Database;
  let first: ImportResult;

  beforeAll(async () => {
    mkdirSync(dir, { recursive: true });
    makeTone(join(dir, 'real0.wav'), { freq: 300, seconds: 0.5 });
    for (let i = 1; i < REAL; i += 1) {
      if (i < REAL - 2) makeTone(join(dir, `real${i}.wav`), { freq: 300 + i * 50, seconds: 0.5 });
      else copyFileSync(join(dir, 'real0.wav'), join(dir, `real${i}.wav`)); // two duplicates
    }
    const lines = ['path,speaker,gender'];
    for (let i = 0; i < ROWS; i += 1) lines.push(i % (ROWS / REAL) === 0 ? `real${i / (ROWS / REAL)}.wav,s${i % 9},${i % 2 ? 'f' : 'm'}` : `missing/m${i}.wav,s${i % 9},${i % 2 ? 'f' : 'm'}`);
    writeFileSync(join(dir, 'manifest.csv'), `${lines.join('\n')}\n`);
    db = openDatabase(join(mkdtempSync(join(root, 'p-')), 'project.sqlite'), projectMigrations);
    first = await importDataset(db, { source: { kind: 'manifest', manifest: join(dir, 'manifest.csv') }, role: 'target', mapping: { path: 'path', speaker: 'speaker', groups: ['gender'], ignore: [] } });
  }, 120_000);

  afterAll(() => db.close());

  it('summarises with counts and the first problems, not every row', () => {
    expect(first.processed).toBe(ROWS);
    expect(first.imported).toBe(REAL - 2);
    expect(first.failedCount).toBe(ROWS - REAL + 2);
    expect(first.failed).toHaveLength(IMPORT_SUMMARY_LIMIT);
    expect(first.failed[0]).toMatchObject({ row: 2, path: 'missing/m1.wav', code: 'missing_file' });
    expect(JSON.stringify(first).length).toBeLessThan(20_000);
    const stored = (db.prepare("SELECT COUNT(*) AS n FROM clips WHERE status = 'excluded'").get() as { n: number }).n;
    expect(stored).toBe(first.failedCount);
  });

  it('writes every problem to a CSV beside the project database, owner-only, matching the database', () => {
    expect(first.problemsFile).toMatch(/imports\/[\w-]+\.problems\.csv$/);
    expect((statSync(first.problemsFile!).mode & 0o777).toString(8)).toBe('600');
    const table = parseCsvTable(readFileSync(first.problemsFile!, 'utf8'));
    expect(table.header).toEqual(['row', 'path', 'status', 'code', 'severity', 'message']);
    const fromDb = (db.prepare('SELECT row_index, issues_json FROM clips ORDER BY row_index').all() as { row_index: number; issues_json: string }[]).flatMap((r) =>
      (JSON.parse(r.issues_json) as { code: string }[]).map((i) => `${r.row_index} ${i.code}`),
    );
    expect(table.rows.map((r) => `${r.values.row} ${r.values.code}`)).toEqual(fromDb);
    expect(table.rows.filter((r) => r.values.code === 'duplicate')).toHaveLength(2);
  });

  it('on a re-run processes nothing and reports the same', async () => {
    const again = await importDataset(db, { source: { kind: 'manifest', manifest: join(dir, 'manifest.csv') }, role: 'target', mapping: { path: 'path', speaker: 'speaker', groups: ['gender'], ignore: [] } });
    expect(again.processed).toBe(0);
    expect({ ...again, processed: ROWS }).toEqual(first);
  });
});

describe('a file whose name on disk is not UTF-8', () => {
  it('is reported as such, from a manifest and from a folder import', async () => {
    const dir = join(root, 'names');
    mkdirSync(join(dir, 'group-a'), { recursive: true });
    const tone = makeTone(join(dir, 'tone.wav'), { seconds: 0.5 });
    // "Québec.wav" with é written as the single Latin-1 byte 0xE9, as old systems did.
    copyFileSync(tone, Buffer.from(join(dir, 'Qu\xe9bec.wav'), 'latin1'));
    copyFileSync(tone, Buffer.from(join(dir, 'group-a', 'caf\xe9.wav'), 'latin1'));
    writeFileSync(join(dir, 'manifest.csv'), `path,speaker\n${csvCell('Québec.wav')},s1\ngone.wav,s2\n`);
    const db = openDatabase(join(mkdtempSync(join(root, 'p-')), 'project.sqlite'), projectMigrations);
    try {
      const m = await importDataset(db, { source: { kind: 'manifest', manifest: join(dir, 'manifest.csv') }, role: 'target', mapping: { path: 'path', speaker: 'speaker', groups: [], ignore: [] } });
      const byPath = Object.fromEntries(m.failed.map((f) => [f.path, f]));
      expect(byPath['Québec.wav']).toMatchObject({ code: 'file_name_not_utf8' });
      expect(byPath['Québec.wav']!.reason).toMatch(/name on disk is not UTF-8 text \("Qu\\xE9bec\.wav", which reads as "Québec\.wav" in Latin-1/);
      expect(byPath['gone.wav']).toMatchObject({ code: 'missing_file' });

      const f = await importDataset(db, { source: { kind: 'folder', folder: join(dir), groupLabel: 'group' }, role: 'target' });
      const bad = f.failed.find((x) => x.path.startsWith('group-a/'));
      expect(bad).toMatchObject({ code: 'file_name_not_utf8' });
      expect(bad!.reason).toMatch(/"caf\\xE9\.wav", which reads as "café\.wav"/);
    } finally {
      db.close();
    }
  });
});
