/**
 * The reproduce recipe with group names a spreadsheet would read as formulas (issue 33
 * item 8): the report's CSVs write "=A" as "'=A" (formula guard), and `stats wer
 * --reference-group =A` then found no group "=A". The `stats` commands now take the guard
 * off again, and the recipe passes the name inline (`--reference-group=-C` is a value, not
 * an option). The WER section and the FDI grouping are made by the audit's own code from
 * the demo corpus's recogniser output (accents renamed) and seeded trials; the recipe's
 * steps are run on the files the report attaches (evidenceFiles, as report extract writes them).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AuditResults } from '../../../src/shared/results';
import { runCli } from '../../../src/main/cli';
import { parseCsvTable } from '../../../src/main/data/csv';
import { analyseWer, type FdiItems, type WerRow } from '../../../src/main/stats';
import { fdiGrouping } from '../../../src/main/audits/fdi-grouping';
import { equalErrorThreshold } from '../../../src/main/audits/fdi-audit';
import { werSectionFrom } from '../../../src/main/audits/wer-section';
import { evidenceFiles } from '../../../src/main/report';
import { unitSeed } from '../../../src/main/audits/units';

const base = JSON.parse(readFileSync(join(__dirname, '../../fixtures/report/results.sample.json'), 'utf8')) as AuditResults;
/** Accents renamed to names that start with each character the CSV writer guards. */
const RENAME: Record<string, string> = { us: '=A', uk: '+B', scotland: '-C', caribbean: '@D', 'west-midlands': '--E' };

let dir: string;
let results: AuditResults;

function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = { out: '', err: '', stdout(s: string) { io.out += s; }, stderr(s: string) { io.err += s; } };
  return runCli(args, io).then((code) => ({ code, out: io.out, err: io.err }));
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'equivox-recipe-groups-'));
  process.env.EQUIVOX_HOME = join(dir, 'cli-home');
  const corpus = parseCsvTable(readFileSync(join(__dirname, '../../../resources/demo/asr.csv'), 'utf8'), { requiredColumns: ['path', 'speaker', 'accent', 'transcript', 'hypothesis'] });
  const rows: WerRow[] = corpus.rows.map(({ values }) => ({ id: values.path!, group: RENAME[values.accent!]!, speaker: values.speaker!, reference: values.transcript!, hypothesis: values.hypothesis! }));
  const analysis = analyseWer(rows, { normalize: 'basic', referenceGroup: '=A', bootstrap: 100, permutations: 200, by: 'speaker', nAGQ: 1, seed: unitSeed(base.audit.seed, 'wer/accent') });
  const wer = werSectionFrom(rows, analysis, { hypotheses: 'model', asrModel: 'pocketsphinx en-us', groupBy: ['accent'], alpha: 0.05, nAGQ: 1, datasetId: base.datasets[0]!.id });
  // FDI: 200 seeded trials in groups "=A" and "-C".
  let state = 11;
  const rand = (): number => {
    state = (state * 1664525 + 1013904223) % 4294967296;
    return state / 4294967296;
  };
  const names = Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? '=A' : '-C'));
  const labels = Int8Array.from({ length: 200 }, (_, i) => (i % 4 < 2 ? 1 : 0));
  const items: FdiItems = { groups: names, labels, scores: Float64Array.from(names, (g, i) => (labels[i] ? 0.65 : 0.35) + (g === '-C' ? 0.05 : 0) + 0.3 * (rand() - 0.5)) };
  const f = base.fdi!;
  const tau = equalErrorThreshold(items.scores, items.labels);
  const grouping = fdiGrouping(items, ['accent'], tau, null, { alpha: f.config.alpha, orientation: f.config.orientation, bootstrap: 100, nullPermutations: 100 }, unitSeed(base.audit.seed, 'fdi/accent'));
  results = { ...base, wer, speat: undefined, fdi: { ...f, config: { ...f.config, threshold: tau, thresholdRule: 'equal-error-rate' as const, bootstrap: 100, nullPermutations: 100 }, groupings: [grouping] } };
  for (const file of evidenceFiles(results)) writeFileSync(join(dir, file.name), file.data);
});

describe('the reproduce recipe with group names that start with = + - @', () => {
  it('the attached CSVs carry the formula guard, and the WER step reproduces the report with the reference group "=A"', async () => {
    const csv = readFileSync(join(dir, 'wer-utterances.csv'), 'utf8');
    expect(csv).toContain(",'=A,");
    expect(csv).toContain(",'--E,");
    const recipe = JSON.parse(readFileSync(join(dir, 'reproduce.json'), 'utf8')) as { steps: { section: string; argv: string[] }[] };
    const step = recipe.steps.find((s) => s.section === 'wer')!;
    expect(step.argv).toContain('--reference-group==A');
    const rerun = await cli(step.argv.map((a) => (a.endsWith('.csv') ? join(dir, a) : a)));
    expect(rerun.code, rerun.err).toBe(0);
    const again = JSON.parse(rerun.out) as { referenceGroup: string; groups: Record<string, { wer: number; errors: number; referenceWords: number; ci95: [number, number] }>; comparisons: { group: string; permutationPValue: number }[] };
    expect(again.referenceGroup).toBe('=A');
    expect(Object.keys(again.groups).sort()).toEqual(Object.keys(results.wer!.groups).sort());
    expect(Object.keys(again.groups).sort()).toEqual(['+B', '--E', '-C', '=A', '@D']);
    for (const [g, v] of Object.entries(results.wer!.groups)) {
      expect(again.groups[g]!.errors, g).toBe(v.errors);
      expect(again.groups[g]!.referenceWords, g).toBe(v.referenceWords);
      expect(again.groups[g]!.wer, g).toBe(v.wer);
      expect(again.groups[g]!.ci95, g).toEqual(v.ci95);
    }
    for (const c of results.wer!.comparisons) expect(again.comparisons.find((x) => x.group === c.group)!.permutationPValue, c.group).toBe(c.permutationPValue);
  });

  it('the FDI step reads its groups back as the report names them', async () => {
    const recipe = JSON.parse(readFileSync(join(dir, 'reproduce.json'), 'utf8')) as { steps: { section: string; argv: string[] }[] };
    const step = recipe.steps.find((s) => s.section === 'fdi')!;
    const rerun = await cli(step.argv.map((a) => (a.endsWith('.csv') ? join(dir, a) : a)));
    expect(rerun.code, rerun.err).toBe(0);
    const again = JSON.parse(rerun.out) as { fdi: number; groups: Record<string, { fpr: number; fnr: number }> };
    const g = results.fdi!.groupings[0]!;
    expect(Object.keys(again.groups).sort()).toEqual(['-C', '=A']);
    expect(again.fdi).toBe(g.fdi);
    for (const [name, m] of Object.entries(g.groups)) expect([again.groups[name]!.fpr, again.groups[name]!.fnr], name).toEqual([m.fpr, m.fnr]);
  });
});
