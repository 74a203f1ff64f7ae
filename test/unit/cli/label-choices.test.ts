/**
 * Label variants on the command line (issue 32.5), through the real runCli, engine and
 * import job: `datasets preview` and `datasets import` list undecided sets as a
 * `problems` entry (import: exit 1, nothing imported), `--labels FILE.json` passes the
 * auditor's word, which the import honours and `datasets show` prints; a choice that
 * decides nothing is named; a malformed choices file is refused naming the entry.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/main/cli';
import type { DatasetFacts, DatasetSummary } from '../../../src/shared/api/datasets';
import { writeVariantManifest, ZWSP, type VariantManifest } from '../../fixtures/data/label-variants';

let home: string;
let fixture: VariantManifest;
const before = process.env.EQUIVOX_HOME;

async function cli(...argv: string[]): Promise<{ code: number; out: Record<string, unknown>; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, { stdout: (s) => (out += s), stderr: (s) => (err += s) });
  return { code, out: JSON.parse(out) as Record<string, unknown>, err };
}

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'equivox-cli-labels-'));
  process.env.EQUIVOX_HOME = join(home, 'data');
  fixture = writeVariantManifest(join(home, 'sheet'));
  expect((await cli('projects', 'create', '--name', 'labels', '--dir', join(home, 'project'))).code).toBe(0);
});
afterAll(() => {
  if (before === undefined) delete process.env.EQUIVOX_HOME;
  else process.env.EQUIVOX_HOME = before;
  rmSync(home, { recursive: true, force: true });
});

const MAP = 'path=path,speaker=speaker,gender=group,accent=group';
const count = (col: string, ...values: string[]) => fixture.rows.filter((r) => values.includes(r[col]!)).length;

interface Problem {
  code: string;
  message: string;
  sets?: { column: string; kind: string; differences: string[]; invisible?: string[]; spellings: { value: string; shown?: string; count: number; written?: { shown: string; count: number }[] }[] }[];
  toDecide?: { column: string; spellings: string[] }[];
  fix?: string;
  choices?: unknown[];
}

describe('label variants on the command line', () => {
  it('datasets preview lists the sets as a problems entry, side by side with their counts', async () => {
    const r = await cli('datasets', 'preview', '--manifest', fixture.file, '--rows', '0', '--map', MAP);
    expect(r.code).toBe(0);
    const problems = r.out.problems as Problem[];
    expect(problems.map((p) => p.code)).toEqual(['label_variants']);
    expect(problems[0]!.sets).toEqual([
      {
        column: 'gender',
        kind: 'group',
        differences: ['case'],
        spellings: [
          { value: 'Female', count: count('gender', 'Female') },
          { value: 'female', count: count('gender', 'female', 'female '), written: [{ shown: 'female', count: count('gender', 'female') }, { shown: 'female␣', count: count('gender', 'female ') }] },
        ],
      },
      {
        column: 'speaker',
        kind: 'speaker',
        differences: ['invisible', 'case'],
        invisible: ['U+200B zero-width space'],
        spellings: [
          { value: 'spk1', count: 2 },
          { value: 'SPK1', count: 1 },
          { value: `spk${ZWSP}1`, shown: 'spk<U+200B>1', count: 1 },
        ],
      },
    ]);
    expect(problems[0]!.toDecide).toEqual([
      { column: 'gender', spellings: ['Female', 'female'] },
      { column: 'speaker', spellings: ['spk1', 'SPK1', `spk${ZWSP}1`] },
    ]);
    // The suggested mapping is checked when no --map is given (speaker and gender are guessed from their names).
    const suggested = await cli('datasets', 'preview', '--manifest', fixture.file, '--rows', '0');
    expect((suggested.out.problems as Problem[])[0]!.sets!.map((s) => s.column)).toEqual(['gender', 'speaker']);
  }, 60_000);

  it('datasets import without the auditor’s word imports nothing, exits 1, and lists the sets; with --labels it honours and records the choice', async () => {
    const project = join(home, 'project');
    const refused = await cli('datasets', 'import', '--project', project, '--manifest', fixture.file, '--map', MAP);
    expect(refused.code).toBe(1);
    expect(refused.out).toMatchObject({ datasetId: null, imported: 0 });
    expect((refused.out.problems as Problem[]).map((p) => p.code)).toEqual(['label_variants']);
    expect(refused.err).toContain('nothing imported: 2 set(s) of labels differ only in letter case, spaces or invisible characters');
    expect(refused.err).toContain('  gender: “Female” (20), “female” (4) (differ in letter case)');
    expect(refused.err).toContain('  speaker: “spk1” (2), “SPK1” (1), “spk<U+200B>1” (1) (differ in invisible characters, letter case)');
    expect((await cli('datasets', 'list', '--project', project)).out).toEqual([]);

    // The auditor's word, written from "toDecide": gender is one label, the speaker ids are one person; and a choice for a set that is not there.
    const toDecide = (refused.out.problems as Problem[])[0]!.toDecide!;
    const file = join(home, 'labels.json');
    writeFileSync(file, JSON.stringify([{ ...toDecide[0], into: 'Female' }, { ...toDecide[1], into: 'spk1' }, { column: 'accent', spellings: ['us', 'US'], keep: true }]));
    const done = await cli('datasets', 'import', '--project', project, '--manifest', fixture.file, '--map', MAP, '--labels', file);
    expect(done.code, done.err).toBe(0);
    expect(done.out.imported).toBe(fixture.rows.length);
    expect(done.out.problems).toEqual([{ code: 'label_choices_unused', message: expect.stringMatching(/^1 of the label choices given decide no set/), choices: [{ column: 'accent', spellings: ['us', 'US'], keep: true }] }]);
    const labels = done.out.labels as DatasetFacts['dataset']['labels'];
    expect(labels.sets.map((s) => [s.column, s.decision])).toEqual([
      ['gender', { into: 'Female', by: 'set' }],
      ['speaker', { into: 'spk1', by: 'set' }],
    ]);

    // datasets show prints the record, and the groups and speakers as decided.
    const shown = (await cli('datasets', 'show', '--project', project, '--id', String(done.out.datasetId))).out as unknown as DatasetFacts;
    expect(shown.dataset.labels.sets.map((s) => [s.column, s.spellings.map((x) => [x.value, x.count]), s.decision])).toEqual([
      ['gender', [['Female', 20], ['female', 4]], { into: 'Female', by: 'set' }],
      ['speaker', [['spk1', 2], ['SPK1', 1], [`spk${ZWSP}1`, 1]], { into: 'spk1', by: 'set' }],
    ]);
    expect(shown.dataset.labels.unifiedTotal).toBe(2);
    expect(shown.groups.filter((g) => g.label === 'gender').map((g) => [g.value, g.clips])).toEqual([
      ['Female', count('gender', 'Female', 'female', 'female ')],
      ['male', count('gender', 'male')],
    ]);
    expect(shown.totals.speakers).toBe(7);
    expect(((await cli('datasets', 'list', '--project', project)).out as unknown as DatasetSummary[]).length).toBe(1);
  }, 120_000);

  it('a choices file that is not a list of choices is refused, naming the file and the entry', async () => {
    const file = join(home, 'bad-labels.json');
    writeFileSync(file, JSON.stringify([{ column: 'gender', spellings: ['Female', 'female'], into: 'Woman' }]));
    const r = await cli('datasets', 'preview', '--manifest', fixture.file, '--map', MAP, '--labels', file);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`error: the label choices ${file} do not read as a list of choices (entry 1`);
  });
});
