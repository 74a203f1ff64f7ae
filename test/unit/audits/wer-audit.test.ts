/**
 * WER pipeline on a fixture ASR dataset. Expected per-group WER/CER and the two-group
 * Poisson rate ratio from test/golden/audit_wer.py
 * (regenerate: python3 test/golden/audit_wer.py > test/golden/audit_wer.json).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runWer } from '../../../src/main/audits/wer-audit';
import { buildContext, fixtureProject, insertDataset, type FixtureClip } from './fixture';

interface Golden {
  utterances: { speaker: string; accent: string; reference: string; hypothesis: string }[];
  referenceGroup: string;
  groups: Record<string, { utterances: number; referenceWords: number; errors: number; referenceCharacters: number; characterErrors: number; wer: number; cer: number }>;
  comparison: { group: string; absoluteDelta: number; rateRatio: number; coefficient: number; standardError: number; speakerPermutationExactP: number; speakerSplits: number };
}
const golden = JSON.parse(readFileSync('test/golden/audit_wer.json', 'utf8')) as Golden;

function werFixture() {
  const { db, store } = fixtureProject('WER fixture');
  const clips: FixtureClip[] = [
    ...golden.utterances.map((u) => ({ speaker: u.speaker, groups: { accent: u.accent }, transcript: u.reference, hypothesis: u.hypothesis })),
    // Left out, with warnings: no group label; no hypothesis.
    { speaker: 'z1', groups: {}, transcript: 'no group', hypothesis: 'no group' },
    { speaker: 'z2', groups: { accent: 'us' }, transcript: 'no hypothesis', hypothesis: null },
  ];
  const ds = insertDataset(db, 'asr', clips);
  const b = buildContext(db, { title: 'WER fixture', sections: ['wer'], wer: { dataset: ds.id, groupBy: ['accent'], referenceGroup: 'us', bootstrap: 200, permutations: 200 } });
  return { store, ds, ...b };
}

describe('WER audit pipeline', () => {
  it('gives pooled group WER/CER and the closed-form Poisson rate ratio of the golden values', async () => {
    const f = werFixture();
    const wer = await runWer(f.ctx);
    expect(wer.datasetId).toBe(f.ds.id);
    expect(wer.config.referenceGroup).toBe('us');
    expect(Object.keys(wer.groups).sort()).toEqual(['scot', 'us']);
    for (const [g, want] of Object.entries(golden.groups)) {
      const got = wer.groups[g]!;
      expect(got.utterances).toBe(want.utterances);
      expect(got.referenceWords).toBe(want.referenceWords);
      expect(got.errors).toBe(want.errors);
      expect(got.referenceCharacters).toBe(want.referenceCharacters);
      expect(got.characterErrors).toBe(want.characterErrors);
      expect(got.wer).toBeCloseTo(want.wer, 14);
      expect(got.cer).toBeCloseTo(want.cer, 14);
      expect(got.speakers).toBe(3);
      expect(got.warnings).toHaveLength(1); // below the field guide's floor
      expect(got.ci95![0]).toBeLessThanOrEqual(got.wer!);
      expect(got.ci95![1]).toBeGreaterThanOrEqual(got.wer!);
    }
    expect(wer.comparisons).toHaveLength(1);
    const c = wer.comparisons[0]!;
    expect(c.group).toBe(golden.comparison.group);
    expect(c.referenceGroup).toBe('us');
    expect(c.absoluteDelta).toBeCloseTo(golden.comparison.absoluteDelta, 14);
    expect(c.poisson.rateRatio).toBeCloseTo(golden.comparison.rateRatio, 8);
    expect(c.poisson.coefficient).toBeCloseTo(golden.comparison.coefficient, 8);
    expect(c.poisson.standardError).toBeCloseTo(golden.comparison.standardError, 8);
    // Speaker ids on every utterance: speakers are the resampling unit, and with 3 speakers per
    // group (fewer than 5) there is no verdict (METHODS.md § The unit of inference); the exact
    // speaker-level permutation test stays in the tables.
    expect(wer.config.by).toBe('speaker');
    expect(c.permutationExact).toBe(true);
    expect(c.permutationPValue).toBeCloseTo(golden.comparison.speakerPermutationExactP, 14);
    expect(c.primary).toBeNull();
    // The mixed model is still reported (secondary here), and no overall test claims all groups differ.
    expect(c.mixed).toBeDefined();
    expect(wer.mixed!.speakers).toBe(6);
    expect(wer.overallPrimary).toBeNull();
    expect(wer.config.alpha).toBe(0.05);
    expect(f.warnings.some((w) => /1 utterance\(s\) lack a accent label/.test(w))).toBe(true);
    expect(f.warnings.some((w) => /1 utterance\(s\) lack a reference transcript or a hypothesis/.test(w))).toBe(true);
    f.store.close();
  });

  it('is seeded: the same plan gives the same bootstrap CI and permutation p', async () => {
    const f = werFixture();
    const a = await runWer(f.ctx);
    const again = buildContext(f.ctx.db, f.ctx.plan);
    const b = await runWer(again.ctx);
    expect(b).toEqual(a);
    f.store.close();
  });

  it('refuses model hypotheses from a model that is not in the store with a user error', async () => {
    const f = werFixture();
    const b = buildContext(f.ctx.db, { ...f.ctx.plan, wer: { ...f.ctx.plan.wer!, hypotheses: { source: 'model', modelId: 'x' } } });
    await expect(runWer(b.ctx)).rejects.toThrow(/ASR model x: no model x/);
    f.store.close();
  });
});
