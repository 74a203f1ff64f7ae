/**
 * The WER pipeline with a secondary normaliser: per-group WER under whisper-english, the
 * words each rule family changed per group and every utterance's normalised texts, from
 * the audit through results into the report data. Expected values from Whisper's own
 * Python: /usr/bin/python3 test/golden/wer_whisper.py --whisper WHISPER/whisper/normalizers > test/golden/wer_whisper.json
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AuditResults } from '../../../src/shared/results';
import { runWer } from '../../../src/main/audits/wer-audit';
import { parseCsvTable } from '../../../src/main/data/csv';
import { writeExports } from '../../../src/main/report';
import { werTables } from '../../../src/main/report/tables';
import { analyseWer } from '../../../src/main/stats';
import { buildContext, fixtureProject, insertDataset } from './fixture';

interface Golden {
  utterances: { speaker: string; group: string; reference: string; hypothesis: string; normalisedReference: string; normalisedHypothesis: string; errors: number }[];
  groups: Record<string, { utterances: number; referenceWords: number; errors: number; referenceCharacters: number; characterErrors: number; wer: number; cer: number }>;
  ruleChanges: Record<string, { referenceWords: number; hypothesisWords: number; reference: Record<string, number>; hypothesis: Record<string, number> }>;
}
const golden = JSON.parse(readFileSync('test/golden/wer_whisper.json', 'utf8')) as Golden;

function fixture(wer: { normalize?: 'basic' | 'whisper-english' | 'whisper-basic'; secondaryNormalize?: 'basic' | 'whisper-english' | 'whisper-basic' }) {
  const { db, store } = fixtureProject('WER normalisers');
  const ds = insertDataset(db, 'asr', golden.utterances.map((u) => ({ speaker: u.speaker, groups: { dialect: u.group }, transcript: u.reference, hypothesis: u.hypothesis })));
  const b = buildContext(db, { title: 'WER normalisers', sections: ['wer'], wer: { dataset: ds.id, groupBy: ['dialect'], referenceGroup: 'general', bootstrap: 200, permutations: 200, ...wer } });
  return { store, ...b };
}

describe('WER with a secondary normaliser, through the pipeline', () => {
  it('reports per-group WER under whisper-english beside basic, rule counts per group and the normalised utterances', async () => {
    const f = fixture({ normalize: 'basic', secondaryNormalize: 'whisper-english' });
    const wer = await runWer(f.ctx);
    expect(wer.config.normalize).toBe('basic');
    expect(wer.config.secondaryNormalize).toBe('whisper-english');
    expect(wer.secondary!.normalize).toBe('whisper-english');
    for (const [g, want] of Object.entries(golden.groups)) {
      const got = wer.secondary!.groups[g]!;
      expect(got.utterances).toBe(want.utterances);
      expect(got.referenceWords).toBe(want.referenceWords);
      expect(got.errors).toBe(want.errors);
      expect(got.wer).toBeCloseTo(want.wer, 14);
      expect(got.cer).toBeCloseTo(want.cer, 14);
      expect(got.absoluteDelta).toBeCloseTo(want.wer - golden.groups.general!.wer, 14);
      expect(got.ci95).toHaveLength(2);
      expect(got.ci95![0]).toBeLessThanOrEqual(got.ci95![1]);
    }
    // The secondary normaliser changes the numbers: basic counts "$20" against "twenty dollars" as errors.
    expect(Object.entries(golden.groups).filter(([g, want]) => wer.groups[g]!.errors !== want.errors).map(([g]) => g)).toEqual(['aave', 'british', 'general']);
    // The verdicts still come from the primary normaliser only.
    expect(wer.comparisons.map((c) => c.referenceGroup)).toEqual(['general', 'general']);
    expect(wer.ruleChanges!.families).toEqual(['brackets', 'fillers', 'contractions', 'abbreviations', 'numbers', 'spellings', 'diacritics']);
    for (const [g, want] of Object.entries(golden.ruleChanges)) {
      const got = wer.ruleChanges!.groups[g]!;
      expect(got.referenceWords).toBe(want.referenceWords);
      expect(got.hypothesisWords).toBe(want.hypothesisWords);
      expect(got.reference).toEqual(want.reference);
      expect(got.hypothesis).toEqual(want.hypothesis);
    }
    // A rule that hits one dialect: contractions change 8 reference words for aave, 2 elsewhere.
    expect(wer.ruleChanges!.groups.aave!.reference.contractions).toBeGreaterThan(wer.ruleChanges!.groups.general!.reference.contractions);
    const byText = new Map(wer.utterances!.map((u) => [u.secondaryReference, u]));
    for (const u of golden.utterances) {
      const got = byText.get(u.normalisedReference)!;
      expect(got.group).toBe(u.group);
      expect(got.secondaryHypothesis).toBe(u.normalisedHypothesis);
    }

    // The report data: tables in the PDF and a CSV of utterances that `stats wer --normalize none` re-reads.
    const results = JSON.parse(readFileSync('test/fixtures/report/results.sample.json', 'utf8')) as AuditResults;
    results.wer = wer;
    results.datasets = [...results.datasets, { id: wer.datasetId, name: 'WER normalisers', role: 'asr', manifestSha256: null, clips: 15, excluded: 0, groups: [], synthetic: false }];
    const tables = werTables(results);
    const second = tables.find((t) => t.id === 'wer-secondary-normaliser')!;
    expect(second.rows.map((r) => [r[0], r[2]])).toEqual(Object.keys(golden.groups).sort().map((g) => [g, wer.secondary!.groups[g]!.wer]));
    const rules = tables.find((t) => t.id === 'wer-rule-changes')!;
    expect(rules.rows.find((r) => r[0] === 'aave' && r[1] === 'reference')!.slice(2)).toEqual([38, 0, 2, 8, 0, 8, 0, 0]);
    const dir = mkdtempSync(join(tmpdir(), 'equivox-wer-norm-'));
    const files = writeExports(results, dir);
    expect(files).toContain(join(dir, 'wer-utterances.csv'));
    expect(files).toContain(join(dir, 'wer-rule-changes.csv'));
    const csv = parseCsvTable(readFileSync(join(dir, 'wer-utterances.csv'), 'utf8'), { requiredColumns: ['id', 'group', 'speaker', 'reference', 'hypothesis', 'secondary_reference', 'secondary_hypothesis'] });
    expect(csv.rows).toHaveLength(golden.utterances.length);
    const rows = csv.rows.map(({ values }) => ({ id: values.id!, group: values.group!, speaker: values.speaker!, reference: values.reference!, hypothesis: values.hypothesis! }));
    const again = analyseWer(rows, { normalize: 'none', referenceGroup: 'general', bootstrap: 200, permutations: 200, seed: 1 });
    for (const g of Object.keys(golden.groups)) {
      expect(again.groups[g]!.errors).toBe(wer.groups[g]!.errors);
      expect(again.groups[g]!.referenceWords).toBe(wer.groups[g]!.referenceWords);
      expect(again.groups[g]!.wer).toBe(wer.groups[g]!.wer);
    }
    const secondaryAgain = analyseWer(
      csv.rows.map(({ values }) => ({ id: values.id!, group: values.group!, speaker: values.speaker!, reference: values.secondary_reference!, hypothesis: values.secondary_hypothesis! })),
      { normalize: 'none', referenceGroup: 'general', bootstrap: 10, permutations: 10 },
    );
    for (const [g, want] of Object.entries(golden.groups)) expect(secondaryAgain.groups[g]!.errors).toBe(want.errors);
    f.store.close();
  });

  it('whisper-english as the primary normaliser gives the Python WER, and whisper-basic as secondary', async () => {
    const f = fixture({ normalize: 'whisper-english', secondaryNormalize: 'whisper-basic' });
    const wer = await runWer(f.ctx);
    expect(wer.config.normalize).toBe('whisper-english');
    for (const [g, want] of Object.entries(golden.groups)) {
      const got = wer.groups[g]!;
      expect(got.referenceWords).toBe(want.referenceWords);
      expect(got.errors).toBe(want.errors);
      expect(got.referenceCharacters).toBe(want.referenceCharacters);
      expect(got.characterErrors).toBe(want.characterErrors);
      expect(got.wer).toBeCloseTo(want.wer, 14);
    }
    expect(wer.ruleChanges!.groups.british!.reference.spellings).toBe(golden.ruleChanges.british!.reference.spellings);
    expect(wer.utterances!.map((u) => u.reference).sort()).toEqual(golden.utterances.map((u) => u.normalisedReference).sort());
    expect(wer.utterances!.every((u) => u.secondaryReference !== undefined)).toBe(true);
    f.store.close();
  });

  it('without a secondary normaliser or whisper-english there is no secondary block and no rule table', async () => {
    const f = fixture({});
    const wer = await runWer(f.ctx);
    expect(wer.secondary).toBeUndefined();
    expect(wer.ruleChanges).toBeUndefined();
    expect(wer.config.secondaryNormalize).toBeUndefined();
    expect(wer.utterances).toHaveLength(golden.utterances.length);
    expect(wer.utterances![0]!.secondaryReference).toBeUndefined();
    f.store.close();
  });
});
