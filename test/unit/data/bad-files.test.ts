import { copyFileSync, mkdtempSync, rmSync, symlinkSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importDataset } from '../../../src/main/data/import';
import { datasetFacts, listClips } from '../../../src/main/data/repository';
import { openDatabase } from '../../../src/main/store/open';
import { projectMigrations } from '../../../src/main/store/schema';
import type { ImportResult } from '../../../src/shared/api/datasets';
import { makeSilence, makeTone } from '../../fixtures/data/make-audio';

let dir: string;
let data: string;
let db: Database.Database;
let first: ImportResult;

const csv = (rows: string[][]) => rows.map((r) => r.map((c) => (/[",\n]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c)).join(',')).join('\r\n') + '\r\n';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'equivox-bad-'));
  data = join(dir, 'corpus');
  makeTone(join(data, 'good1.wav'), { freq: 300 });
  makeTone(join(data, 'good2.flac'), { freq: 500, seconds: 1.5 });
  makeTone(join(data, 'good3.mp3'), { freq: 700, rate: 44100, channels: 2 });
  makeTone(join(data, 'good4.opus'), { freq: 900, rate: 48000, args: ['-c:a', 'libopus', '-b:a', '24k'] });
  makeTone(join(data, 'good5.m4a'), { freq: 1100, rate: 44100, args: ['-c:a', 'aac'] });
  makeTone(join(data, 'quoted.wav'), { freq: 1300 });
  makeTone(join(data, 'long.wav'), { freq: 400, seconds: 2, rate: 44100 });
  writeFileSync(join(data, 'truncated.wav'), readFileSync(join(data, 'long.wav')).subarray(0, 20_000));
  writeFileSync(join(data, 'zero.wav'), '');
  writeFileSync(join(data, 'text.wav'), 'this is not audio, it is a text file\n');
  makeTone(join(data, 'six.wav'), { freq: 600, rate: 44100, channels: 6 });
  makeTone(join(data, 'phone.wav'), { freq: 350, rate: 8000 });
  copyFileSync(join(data, 'good1.wav'), join(data, 'dup.wav'));
  makeTone(join(dir, 'outside.wav'), { freq: 800 });
  symlinkSync(join(dir, 'outside.wav'), join(data, 'link.wav'));
  makeSilence(join(data, 'silent.wav'));
  makeTone(join(data, 'clipped.wav'), { freq: 200, amplitude: 4 });
  makeTone(join(data, 'short.wav'), { seconds: 0.1 });
  writeFileSync(
    join(data, 'manifest.csv'),
    csv([
      ['file', 'speaker', 'gender', 'transcript', 'notes'],
      ['good1.wav', 's1', 'female', 'one', 'n1'],
      ['good2.flac', 's2', 'male', 'two', ''],
      ['good3.mp3', 's3', 'female', 'three', ''],
      ['sub/../good4.opus', 's4', 'male', 'four', ''],
      ['good5.m4a', 's5', 'female', 'five', ''],
      ['truncated.wav', 's6', 'male', 'six', ''],
      ['zero.wav', 's7', 'female', 'seven', ''],
      ['text.wav', 's8', 'male', 'eight', ''],
      ['six.wav', 's9', 'female', 'nine', ''],
      ['phone.wav', 's10', 'male', 'ten', ''],
      ['missing.wav', 's11', 'female', 'eleven', ''],
      ['dup.wav', 's12', 'male', 'twelve', ''],
      ['../outside.wav', 's13', 'female', 'thirteen', ''],
      ['quoted.wav', 's14', 'male', 'Hello, world\nsecond "line"', 'has, comma'],
      ['link.wav', 's15', 'female', 'fifteen', ''],
      ['silent.wav', 's16', 'male', 'sixteen', ''],
      ['clipped.wav', 's17', 'female', 'seventeen', ''],
      ['short.wav', 's18', 'male', 'eighteen', ''],
      ['good1.wav', '', 'female', 'nineteen', ''],
      ['long.wav', 's20', '', 'twenty', ''],
    ]),
  );
  db = openDatabase(join(dir, 'project.sqlite'), projectMigrations);
  first = await importDataset(db, {
    source: { kind: 'manifest', manifest: join(data, 'manifest.csv') },
    role: 'asr',
    mapping: { path: 'file', speaker: 'speaker', groups: ['gender'], transcript: 'transcript', ignore: [] },
  });
});

afterAll(() => {
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('import of a manifest with bad files', () => {
  it('keeps every row and gives each bad one the right reason', () => {
    const clips = listClips(db, first.datasetId, { includeExcluded: true });
    expect(clips).toHaveLength(20);
    const byRow = new Map(clips.map((c) => [c.rowIndex, c]));
    const codes = (row: number) => byRow.get(row)!.issues.map((i) => i.code).sort();
    const status = (row: number) => byRow.get(row)!.status;
    for (const row of [1, 2, 3, 4, 5, 14]) {
      expect(status(row), `row ${row}: ${JSON.stringify(byRow.get(row)!.issues)}`).toBe(row === 3 ? 'ok' : 'ok');
    }
    expect(codes(3)).toEqual(['downmixed']); // stereo mp3 averaged to mono: a note, not a problem
    expect(codes(6)).toContain('truncated');
    expect(status(6)).toBe('excluded');
    expect(codes(7)).toEqual(['empty_file']);
    expect(codes(8)).toEqual(['not_audio']);
    expect(codes(9)).toEqual(['downmixed']);
    expect(status(9)).toBe('ok');
    expect(byRow.get(9)!.channels).toBe(6);
    expect(byRow.get(9)!.sampleRate).toBe(44100);
    expect(codes(10)).toEqual(['narrowband']);
    expect(status(10)).toBe('warning');
    expect(byRow.get(10)!.sampleRate).toBe(8000);
    expect(codes(11)).toEqual(['missing_file']);
    expect(codes(12)).toEqual(['duplicate']);
    expect(byRow.get(12)!.issues[0]!.message).toContain('row 1');
    expect(codes(13)).toEqual(['outside_folder']);
    expect(codes(15)).toEqual(['outside_folder']);
    expect(byRow.get(15)!.issues[0]!.message).toContain('symbolic link');
    expect(codes(16)).toEqual(['silent']);
    expect(codes(17)).toEqual(['clipped']);
    expect(status(17)).toBe('warning');
    expect(codes(18)).toEqual(['too_short']);
    expect(codes(19)).toEqual(['duplicate', 'missing_metadata']);
    expect(codes(20)).toEqual(['missing_label']);
    expect(status(20)).toBe('warning');
  });

  it('reads decoded facts and the quoted transcript correctly', () => {
    const clips = listClips(db, first.datasetId, { includeExcluded: true });
    const row = (n: number) => clips.find((c) => c.rowIndex === n)!;
    expect(row(1).durationS).toBeCloseTo(1, 3);
    expect(row(1).rms).toBeCloseTo(0.5 / Math.SQRT2, 2);
    expect(row(2).durationS).toBeCloseTo(1.5, 2);
    expect(row(4).durationS).toBeGreaterThan(0.95);
    expect(row(4).codec).toBe('opus');
    expect(row(1).sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(row(12).sha256).toBe(row(1).sha256);
    expect(row(14).transcript).toBe('Hello, world\nsecond "line"');
    expect(row(14).metadata).toEqual({ notes: 'has, comma' });
    expect(row(14).groups).toEqual({ gender: 'male' });
    expect(row(14).speaker).toBe('s14');
  });

  it('reports failed rows (excluded) and warnings by name', () => {
    const failed = new Map(first.failed.map((f) => [f.row, f.code]));
    expect(Object.fromEntries(failed)).toEqual({
      6: 'truncated',
      7: 'empty_file',
      8: 'not_audio',
      11: 'missing_file',
      12: 'duplicate',
      13: 'outside_folder',
      15: 'outside_folder',
      16: 'silent',
      18: 'too_short',
      19: expect.stringMatching(/duplicate|missing_metadata/),
    });
    expect(first.imported).toBe(10);
    const warned = first.warnings.filter((w) => w.row !== undefined).map((w) => `${w.row}:${w.code}`).sort();
    expect(warned).toEqual(['10:narrowband', '17:clipped', '20:missing_label', '3:downmixed', '9:downmixed'].sort());
    expect(first.failed.find((f) => f.row === 11)!.path).toBe('missing.wav');
  });

  it('does not duplicate clips when the import runs again', async () => {
    const again = await importDataset(db, {
      source: { kind: 'manifest', manifest: join(data, 'manifest.csv') },
      role: 'asr',
      mapping: { path: 'file', speaker: 'speaker', groups: ['gender'], transcript: 'transcript', ignore: [] },
    });
    expect(again.datasetId).toBe(first.datasetId);
    expect(again.processed).toBe(0);
    expect(again.imported).toBe(10);
    expect((db.prepare('SELECT COUNT(*) AS n FROM clips').get() as { n: number }).n).toBe(20);
    expect((db.prepare('SELECT COUNT(*) AS n FROM datasets').get() as { n: number }).n).toBe(1);
  });

  it('gives facts per group from usable clips only', () => {
    const facts = datasetFacts(db, first.datasetId);
    expect(facts.totals.clips).toBe(20);
    expect(facts.totals.usable).toBe(10);
    const female = facts.groups.find((g) => g.label === 'gender' && g.value === 'female')!;
    // rows 1, 3, 5, 9, 17 are usable and female
    expect(female.clips).toBe(5);
    expect(female.speakers).toBe(5);
    expect(female.totalDurationS).toBeCloseTo(5, 1);
    expect(facts.report.map((r) => r.row).sort((a, b) => a - b)).toEqual([3, 6, 7, 8, 9, 10, 11, 12, 13, 15, 16, 17, 18, 19, 20]);
    expect(facts.warnings.some((w) => w.code === 'small_group')).toBe(true);
  });
});
