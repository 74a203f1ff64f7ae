/**
 * Labels that mean one person or group are one (issue 32.5, METHODS.md § "The unit of
 * inference", Labels), and names from Macs (issue 35.6), through the real importer:
 * - the comparison rules (NFC and trimming without asking; case, spaces, invisible
 *   characters and compatibility forms as variants to decide), case by case;
 * - a spreadsheet with "Female"/"female"/"female ", NFC and NFD "Zoë" and speaker ids
 *   differing by case and a zero-width space: the import refuses to start until each set
 *   is decided, then stores the labels as decided, keeps the decision, reuses it on a
 *   re-import and re-derives every row when it changes;
 * - NFD file and folder names on disk (made here with the bytes macOS writes): an NFC
 *   manifest cell finds an NFD file and the reverse, a folder import's NFD group labels
 *   equal the same labels typed in a spreadsheet, metadata.csv rows match, and what
 *   operating systems leave in folders is skipped and counted.
 * Expected counts are counted from the fixture's rows here, independently of the importer.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSourceLabels, importDataset } from '../../../src/main/data/import';
import { canonicalLabel, variantKey } from '../../../src/main/data/labels';
import { datasetFacts, getDataset, listClips, listDatasets } from '../../../src/main/data/repository';
import { loadSource } from '../../../src/main/data/sources';
import { openDatabase } from '../../../src/main/store/open';
import { projectMigrations } from '../../../src/main/store/schema';
import type { LabelChoice } from '../../../src/shared/api/datasets';
import { visibleSpelling } from '../../../src/shared/label-text';
import { writeVariantManifest, ZOE_NFC, ZOE_NFD, ZWSP, type VariantManifest } from '../../fixtures/data/label-variants';

let dir: string;
let fixture: VariantManifest;
const DEMO = resolve('resources/demo');

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'equivox-labels-'));
  fixture = writeVariantManifest(dir);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const count = (rows: Record<string, string>[], col: string, value: string) => rows.filter((r) => r[col] === value).length;
const mapping = { path: 'path', speaker: 'speaker', groups: ['gender', 'accent'], ignore: [] };
const source = () => ({ kind: 'manifest' as const, manifest: fixture.file });

describe('the comparison rules', () => {
  it.each([
    ['female ', 'female'],
    [' female\t', 'female'],
    [`\uFEFFfemale`, 'female'],
    [ZOE_NFD, ZOE_NFC],
    [`  ${ZOE_NFD} `, ZOE_NFC],
  ])('%j is stored as %j without asking (NFC, trimmed)', (raw, stored) => {
    expect(canonicalLabel(raw)).toBe(stored);
  });

  it.each([
    ['Female', 'female', 'case'],
    ['FEMALE', 'female', 'case'],
    ['Straße', 'STRASSE', 'case (full folding)'],
    [`spk${ZWSP}1`, 'spk1', 'zero-width space'],
    ['spk\u200D1', 'spk1', 'zero-width joiner'],
    ['spk\u200C1', 'spk1', 'zero-width non-joiner'],
    ['spk\u20601', 'spk1', 'word joiner'],
    ['spk\uFEFF1', 'spk1', 'byte order mark inside'],
    ['spk\u00AD1', 'spk1', 'soft hyphen'],
    ['spk\u034F1', 'spk1', 'combining grapheme joiner'],
    ['spk\u202E1', 'spk1', 'bidi override'],
    ['African  American', 'African American', 'doubled space'],
    ['African\u00A0American', 'African American', 'no-break space'],
    ['African\tAmerican', 'African American', 'tab'],
    ['\uFF26emale', 'Female', 'full-width letter'],
  ])('%j and %j are variants for the auditor to decide (%s)', (a, b) => {
    expect(canonicalLabel(a)).not.toBe(canonicalLabel(b));
    expect(variantKey(canonicalLabel(a))).toBe(variantKey(canonicalLabel(b)));
  });

  it.each([
    ['female', 'male'],
    ['spk1', 'spk2'],
    ['Zoe', ZOE_NFC],
    ['Zoë', 'Zoé'],
    ['ıi', 'İi'],
  ])('%j and %j stay different labels', (a, b) => {
    expect(variantKey(canonicalLabel(a))).not.toBe(variantKey(canonicalLabel(b)));
  });

  it('shows what cannot be seen', () => {
    expect(visibleSpelling(`spk${ZWSP}1`)).toBe('spk<U+200B>1');
    expect(visibleSpelling('female ')).toBe('female␣');
    expect(visibleSpelling('African  American')).toBe('African␣␣American');
    expect(visibleSpelling('African\u00A0American')).toBe('African<U+00A0>American');
    expect(visibleSpelling('a\u200Db')).toBe('a<U+200D>b');
    expect(visibleSpelling('African American')).toBe('African American');
  });
});

describe('a spreadsheet whose labels split people and groups', () => {
  it('the check shows each set side by side with its counts, and the labels unified without asking', () => {
    const rows = fixture.rows;
    const check = checkSourceLabels(null, loadSource(source()), { role: 'target' }, mapping).check;
    const female = count(rows, 'gender', 'female') + count(rows, 'gender', 'female ');
    expect([count(rows, 'gender', 'Female'), count(rows, 'gender', 'female'), count(rows, 'gender', 'female ')]).toEqual([20, 3, 1]);
    expect(check.setsTotal).toBe(2);
    expect(check.undecided).toBe(2);
    const gender = check.sets.find((s) => s.column === 'gender')!;
    expect(gender).toMatchObject({ kind: 'group', differences: ['case'], decision: null });
    expect(gender.spellings).toEqual([
      { value: 'Female', count: count(rows, 'gender', 'Female'), written: [] },
      { value: 'female', count: female, written: [{ text: 'female', count: count(rows, 'gender', 'female') }, { text: 'female ', count: count(rows, 'gender', 'female ') }] },
    ]);
    const speaker = check.sets.find((s) => s.column === 'speaker')!;
    expect(speaker).toMatchObject({ kind: 'speaker', differences: ['invisible', 'case'], invisible: ['U+200B zero-width space'], decision: null });
    expect(speaker.spellings.map((s) => [s.value, s.count])).toEqual([
      ['spk1', count(rows, 'speaker', 'spk1')],
      ['SPK1', count(rows, 'speaker', 'SPK1')],
      [`spk${ZWSP}1`, count(rows, 'speaker', `spk${ZWSP}1`)],
    ]);
    // NFD and NFC "Zoë" need no question: one speaker, recorded as unified.
    const zoe = check.unified.find((u) => u.column === 'speaker')!;
    expect(zoe).toEqual({
      column: 'speaker',
      kind: 'speaker',
      value: ZOE_NFC,
      count: 4,
      written: [
        { text: ZOE_NFC, count: count(rows, 'speaker', ZOE_NFC) },
        { text: ZOE_NFD, count: count(rows, 'speaker', ZOE_NFD) },
      ],
      how: ['composed'],
    });
    expect(check.unified.find((u) => u.column === 'gender')).toMatchObject({ value: 'female', how: ['trimmed'] });
    expect(check.unifiedTotal).toBe(2);
  });

  it('refuses to import until every set is decided, stores the labels as decided, keeps the decision, and re-derives when it changes', async () => {
    const db = openDatabase(join(dir, 'project.sqlite'), projectMigrations);
    try {
      // No word from the auditor: nothing is read, no dataset is made.
      await expect(importDataset(db, { source: source(), role: 'target', mapping })).rejects.toMatchObject({ code: 'user', field: 'labelChoices', message: expect.stringMatching(/^2 sets of labels that differ only in letter case, spaces or invisible characters are undecided .*gender: “Female” \(20\), “female” \(4\)/) });
      // One set decided is not enough.
      const genderOnly: LabelChoice[] = [{ column: 'gender', spellings: ['Female', 'female'], into: 'Female' }];
      await expect(importDataset(db, { source: source(), role: 'target', mapping, labelChoices: genderOnly })).rejects.toMatchObject({ field: 'labelChoices', message: expect.stringMatching(/^one set of labels that differ only in letter case, spaces or invisible characters is undecided .*speaker: “spk1” \(2\), “SPK1” \(1\), “spk<U\+200B>1” \(1\)/) });
      expect(listDatasets(db)).toEqual([]);

      // Gender merged, the speaker ids kept apart (the auditor's call).
      const first = await importDataset(db, { source: source(), role: 'target', mapping, labelChoices: [...genderOnly, { column: 'speaker', spellings: ['spk1', 'SPK1', `spk${ZWSP}1`], keep: true }] });
      expect(first.processed).toBe(fixture.rows.length);
      const facts = datasetFacts(db, first.datasetId);
      expect(facts.groups.filter((g) => g.label === 'gender').map((g) => [g.value, g.clips])).toEqual([
        ['Female', 24],
        ['male', 4],
      ]);
      const speakers = new Set(fixture.rows.map((r) => canonicalLabel(r.speaker!)));
      expect(speakers.size).toBe(9); // 7 people: Zoë once, spk1 three ways
      expect(facts.totals.speakers).toBe(9);
      const clips = listClips(db, first.datasetId);
      expect(clips.filter((c) => c.speaker === ZOE_NFC)).toHaveLength(4);
      expect(clips.some((c) => c.speaker === ZOE_NFD || c.groups.gender === 'female' || c.groups.gender === 'female ')).toBe(false);
      // The record: each set with its counts and decision, the unified labels.
      const record = getDataset(db, first.datasetId).labels;
      expect(record.sets.map((s) => [s.column, s.decision])).toEqual([
        ['gender', { into: 'Female', by: 'set' }],
        ['speaker', { keep: true, by: 'set' }],
      ]);
      expect(record.unifiedTotal).toBe(2);
      expect(first.labels).toEqual(record);

      // A re-import with no choices reuses the stored ones: nothing asked, no row read again.
      const again = await importDataset(db, { source: source(), role: 'target', mapping });
      expect(again).toMatchObject({ datasetId: first.datasetId, processed: 0 });

      // Another decision re-derives every row: the three spellings of one person become one speaker.
      const merged = await importDataset(db, { source: source(), role: 'target', mapping, labelChoices: [{ column: 'speaker', every: 'most-common' }] });
      expect(merged).toMatchObject({ datasetId: first.datasetId, processed: fixture.rows.length });
      expect(datasetFacts(db, first.datasetId).totals.speakers).toBe(7);
      expect(listClips(db, first.datasetId).filter((c) => c.speaker === 'spk1')).toHaveLength(4);
      expect(getDataset(db, first.datasetId).labels.sets.map((s) => [s.column, s.decision])).toEqual([
        ['gender', { into: 'Female', by: 'set' }],
        ['speaker', { into: 'spk1', by: 'every' }],
      ]);
    } finally {
      db.close();
    }
  }, 120_000);

  it('a choice naming a set in NFD or with spaces at the ends decides it; one naming spellings not in the data decides nothing', () => {
    const table = loadSource(source());
    const r = checkSourceLabels(null, table, {
      role: 'target',
      labelChoices: [
        { column: 'gender', spellings: ['Female ', ' female'], into: 'female' },
        { column: 'speaker', spellings: ['spk1', 'SPK1'], into: 'spk1' },
        { column: 'accent', spellings: ['us', 'US'], keep: true },
      ],
    }, mapping);
    expect(r.check.sets.find((s) => s.column === 'gender')!.decision).toEqual({ into: 'female', by: 'set' });
    // A choice must name every spelling of the set: the zero-width-space spelling was left out.
    expect(r.check.sets.find((s) => s.column === 'speaker')!.decision).toBeNull();
    expect(r.check.unusedChoices).toEqual([
      { column: 'speaker', spellings: ['spk1', 'SPK1'], into: 'spk1' },
      { column: 'accent', spellings: ['us', 'US'], keep: true },
    ]);
  });
});

/** A demo clip copied to `to` (folders made). */
function clip(name: string, to: string): void {
  mkdirSync(join(to, '..'), { recursive: true });
  cpSync(join(DEMO, 'target', name), to);
}

describe('names from Macs', () => {
  it('an NFC manifest cell finds an NFD file on disk, and an NFD cell an NFC file, folders included', async () => {
    const root = join(dir, 'mac-files');
    const chloeNfc = 'Chlo\u00E9';
    const chloeNfd = 'Chloe\u0301';
    // Zoë's folder and file copied from a Mac (NFD on disk), Chloé's made here (NFC on disk).
    clip('tg-us-f1-1.opus', join(root, ZOE_NFD, `${ZOE_NFD}-1.opus`));
    clip('tg-us-f1-2.opus', join(root, chloeNfc, `${chloeNfc}-2.opus`));
    // The bytes on disk are what was written: one folder in each form.
    expect(readdirSync(root).sort()).toEqual([ZOE_NFD, chloeNfc].sort());
    writeFileSync(join(root, 'clips.csv'), `path,speaker\r\n${ZOE_NFC}/${ZOE_NFC}-1.opus,a\r\n${chloeNfd}/${chloeNfd}-2.opus,b\r\n`);
    const db = openDatabase(join(dir, 'mac-files.sqlite'), projectMigrations);
    try {
      const r = await importDataset(db, { source: { kind: 'manifest', manifest: join(root, 'clips.csv') }, role: 'target', mapping: { path: 'path', speaker: 'speaker', groups: [], ignore: [] } });
      expect(r.failed).toEqual([]);
      const clips = listClips(db, r.datasetId);
      expect(clips.map((c) => c.path)).toEqual([join(root, ZOE_NFD, `${ZOE_NFD}-1.opus`), join(root, chloeNfc, `${chloeNfc}-2.opus`)]);
      expect(clips.every((c) => c.sha256 !== null && c.durationS! > 0)).toBe(true);
    } finally {
      db.close();
    }
  }, 60_000);

  it('a folder import: NFD folder names are the labels a spreadsheet types, metadata rows match, OS litter is skipped and counted', async () => {
    const root = join(dir, 'mac-folder');
    clip('tg-us-f1-1.opus', join(root, ZOE_NFD, `${ZOE_NFD}-1.opus`));
    clip('tg-us-f1-2.opus', join(root, ZOE_NFD, `${ZOE_NFD}-2.opus`));
    clip('tg-us-m2-1.opus', join(root, 'Ana', 'ana-1.opus'));
    // What Windows and macOS leave behind, and a zip made on a Mac.
    writeFileSync(join(root, 'Thumbs.db'), 'x');
    writeFileSync(join(root, 'Ana', 'desktop.ini'), '[.ShellClassInfo]');
    writeFileSync(join(root, '.DS_Store'), 'x');
    writeFileSync(join(root, ZOE_NFD, `._${ZOE_NFD}-1.opus`), 'x');
    mkdirSync(join(root, '__MACOSX', ZOE_NFD), { recursive: true });
    writeFileSync(join(root, '__MACOSX', ZOE_NFD, `._${ZOE_NFD}-1.opus`), 'x');
    // The metadata typed on Windows: NFC paths.
    writeFileSync(join(root, 'metadata.csv'), `path,age\r\n${ZOE_NFC}/${ZOE_NFC}-1.opus,34\r\n${ZOE_NFC}-2.opus,35\r\nAna/ana-1.opus,41\r\n`);
    // The same people in a spreadsheet typed elsewhere (NFC).
    const sheet = join(root, '..', 'mac-sheet');
    clip('tg-us-f1-3.opus', join(sheet, 'a.opus'));
    writeFileSync(join(sheet, 'clips.csv'), `path,group\r\na.opus,${ZOE_NFC}\r\n`);

    const db = openDatabase(join(dir, 'mac-folder.sqlite'), projectMigrations);
    try {
      const folder = await importDataset(db, { source: { kind: 'folder', folder: root, groupLabel: 'group' }, role: 'target' });
      expect(folder.failed).toEqual([]);
      expect(folder.labels.skippedFiles).toEqual({ count: 5, examples: ['.DS_Store', 'Ana/desktop.ini', 'Thumbs.db', `${ZOE_NFD}/._${ZOE_NFD}-1.opus`, '__MACOSX/'] });
      const clips = listClips(db, folder.datasetId);
      expect(clips.map((c) => [c.groups.group, c.metadata.age])).toEqual([
        ['Ana', '41'],
        [ZOE_NFC, '34'],
        [ZOE_NFC, '35'],
      ]);
      // Unified without asking, and recorded.
      expect(folder.labels.unified).toEqual([{ column: 'group', kind: 'group', value: ZOE_NFC, count: 2, written: [{ text: ZOE_NFD, count: 2 }], how: ['composed'] }]);
      expect(getDataset(db, folder.datasetId).labels.skippedFiles?.count).toBe(5);

      const typed = await importDataset(db, { source: { kind: 'manifest', manifest: join(sheet, 'clips.csv') }, role: 'target', mapping: { path: 'path', groups: ['group'], ignore: [] } });
      const fromFolder = datasetFacts(db, folder.datasetId).groups.find((g) => g.value.startsWith('Zo'))!.value;
      const fromSheet = datasetFacts(db, typed.datasetId).groups[0]!.value;
      expect(fromFolder).toBe(fromSheet);
      expect(fromSheet).toBe(ZOE_NFC);
    } finally {
      db.close();
    }
  }, 60_000);
});
