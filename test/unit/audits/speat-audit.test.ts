/**
 * SpEAT pipeline on a fixture project: stored embeddings → designTests → runSpeat.
 * Expected d, exact permutation p and adjusted p come from test/golden/audit_speat.py
 * (regenerate: python3 test/golden/audit_speat.py > test/golden/audit_speat.json).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { designTests, runSpeat } from '../../../src/main/audits/speat-audit';
import { adjustPValues } from '../../../src/main/stats';
import { buildContext, fakeManifest, fixtureProject, insertDataset, insertEmbedding, type FakeModel } from './fixture';

interface Golden {
  dims: number[];
  attribute: { speaker: string; valence: number; mean: number[][]; min: number[][]; max: number[][] }[];
  targets: { mean: number[][]; min: number[][]; max: number[][] }[];
  associations: number[];
  tests: { id: string; label: string; x: number[]; y: number[]; d: number; count: number; total: number; p: number; pAdjusted: { bonferroni: number; holm: number; bh: number } }[];
}

const golden = JSON.parse(readFileSync('test/golden/audit_speat.json', 'utf8')) as Golden;
const MODEL: FakeModel = { id: 'f'.repeat(64), settingsKey: 'v1|fixture|hf-states|chunk=30s', dims: golden.dims };

/** Label value of target clip i under each test's split. */
function targetGroups(i: number): Record<string, string> {
  return Object.fromEntries(golden.tests.map((t) => [t.label, t.x.includes(i) ? 'x' : 'y']));
}

function speatFixture(options: { bootstrap?: number; extraTargets?: boolean } = {}) {
  const { db, store } = fixtureProject('SpEAT fixture');
  const attr = insertDataset(db, 'attribute', golden.attribute.map((a) => ({ speaker: a.speaker, valence: a.valence })));
  const target = insertDataset(db, 'target', golden.targets.map((_, i) => ({ speaker: `t${i}`, groups: targetGroups(i) })));
  golden.attribute.forEach((a, i) => insertEmbedding(db, MODEL, attr.shas[i]!, a));
  golden.targets.forEach((t, i) => insertEmbedding(db, MODEL, target.shas[i]!, t));
  const models = new Map([['fixture', fakeManifest(MODEL)]]);
  const plan = {
    title: 'SpEAT fixture',
    sections: ['speat' as const],
    models: ['fixture'],
    speat: {
      attributeDataset: attr.id,
      attributePerSpeaker: 2,
      temporal: 'mean' as const,
      layer: 'last' as const,
      permutations: 1000,
      bootstrap: options.bootstrap ?? 0,
      sampleSizes: [2, 4],
      tests: golden.tests.map((t) => ({ id: t.id, name: `Test ${t.label}`, targetDataset: target.id, x: { label: t.label, value: 'x' }, y: { label: t.label, value: 'y' } })),
    },
  };
  return { db, store, attr, target, models, plan, ...buildContext(db, plan, models) };
}

describe('SpEAT audit pipeline', () => {
  it('chooses A/B per speaker and X/Y per test as the plan says', () => {
    const f = speatFixture();
    const tests = designTests(f.ctx);
    const idOf = (ds: { clipIds: string[] }, rows: number[]) => rows.map((r) => ds.clipIds[r]!).sort();
    // Per speaker the two highest ratings form A, the two lowest B.
    const high = golden.attribute.flatMap((a, i) => (a.valence > 5 ? [i] : []));
    const low = golden.attribute.flatMap((a, i) => (a.valence < 5 ? [i] : []));
    for (const [k, t] of tests.entries()) {
      expect(t.A.map((c) => c.id).sort()).toEqual(idOf(f.attr, high));
      expect(t.B.map((c) => c.id).sort()).toEqual(idOf(f.attr, low));
      expect(t.design.X.map((c) => c.id).sort()).toEqual(idOf(f.target, golden.tests[k]!.x));
      expect(t.design.Y.map((c) => c.id).sort()).toEqual(idOf(f.target, golden.tests[k]!.y));
      expect(t.summary.x.n).toBe(5);
    }
    f.store.close();
  });

  it('gives d, the exact permutation p and Bonferroni/Holm/BH adjusted p of the golden values', async () => {
    const f = speatFixture();
    const section = await runSpeat(f.ctx, designTests(f.ctx));
    expect(section.results).toHaveLength(golden.tests.length);
    for (const [k, g] of golden.tests.entries()) {
      const r = section.results[k]!;
      expect(r.testId).toBe(g.id);
      expect(r.modelId).toBe(MODEL.id);
      expect(r.exact).toBe(true);
      expect(r.permutations).toBe(252);
      expect(Math.abs(r.effectSize - g.d)).toBeLessThan(1e-10);
      expect(r.pValue).toBe(g.count / g.total);
      expect(Math.abs(r.pAdjusted.bonferroni - g.pAdjusted.bonferroni)).toBeLessThan(1e-12);
      expect(Math.abs(r.pAdjusted.holm - g.pAdjusted.holm)).toBeLessThan(1e-12);
      expect(Math.abs(r.pAdjusted.bh - g.pAdjusted.bh)).toBeLessThan(1e-12);
      // Associations are reported per stimulus: the multiset must match the golden one.
      const want = [...g.x.map((i) => golden.associations[i]!)].sort();
      const got = [...r.associations.X].sort();
      got.forEach((v, i) => expect(Math.abs(v - want[i]!)).toBeLessThan(1e-12));
    }
    // The first test was built with an effect; its direction must survive.
    expect(section.results[0]!.effectSize).toBeGreaterThan(0.8);
    expect(section.config.layer).toBe('last');
    f.store.close();
  });

  it('gives the two-sided p behind verdicts (brute force over the golden associations), its adjustment, the favoured group, the SE at the compared stimuli and the MDE', async () => {
    const f = speatFixture({ bootstrap: 200 });
    const section = await runSpeat(f.ctx, designTests(f.ctx));
    // Brute force, written here: every 5-subset of the 10 associations, |mean in − mean out| ≥ |observed|.
    const all = golden.associations;
    const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
    const subsets = (n: number, k: number): number[][] => (k === 0 ? [[]] : n < k ? [] : [...subsets(n - 1, k - 1).map((c) => [...c, n - 1]), ...subsets(n - 1, k)]);
    const twoSided = golden.tests.map((g) => {
      const split = (xs: number[]) => Math.abs(mean(xs.map((i) => all[i]!)) - mean(all.map((_, i) => i).filter((i) => !xs.includes(i)).map((i) => all[i]!)));
      const observed = split(g.x);
      const splits = subsets(all.length, g.x.length);
      return splits.filter((c) => split(c) >= observed - 1e-12).length / splits.length;
    });
    const adjusted = { bonferroni: adjustPValues(twoSided, 'bonferroni'), holm: adjustPValues(twoSided, 'holm'), bh: adjustPValues(twoSided, 'bh') };
    for (const [k, g] of golden.tests.entries()) {
      const r = section.results[k]!;
      expect(r.pTwoSided).toBe(twoSided[k]);
      expect(r.pValue).toBe(g.count / g.total); // the paper's one-sided p, unchanged
      expect(r.pTwoSidedAdjusted!.bonferroni).toBeCloseTo(adjusted.bonferroni[k]!, 14);
      expect(r.pTwoSidedAdjusted!.holm).toBeCloseTo(adjusted.holm[k]!, 14);
      expect(r.pTwoSidedAdjusted!.bh).toBeCloseTo(adjusted.bh[k]!, 14);
      expect(r.favoured).toBe(r.effectSize > 0 ? 'x' : 'y');
      // 5 stimuli compared, not among the plan's sizes (2, 4): its own bootstrap point.
      expect(r.standardErrorAtCompared).toBeGreaterThan(0);
      expect(r.standardErrorAtCompared!).toBeLessThan(r.standardErrors.find((p) => p.size === 4)!.standardError);
      // 5 per group with 3 tests: alpha 0.05 / 3 against the smallest two-sided p 2/252; an MDE exists.
      expect(r.mde!.alpha).toBeCloseTo(0.05 / 3, 15);
      expect(r.mde!.stimuli).toBe(5);
      expect(r.mde!.d).toBeGreaterThan(1);
    }
    f.store.close();
  });

  it('stores each test as a unit and returns the same numbers from the store', async () => {
    const f = speatFixture({ bootstrap: 50 });
    const first = await runSpeat(f.ctx, designTests(f.ctx));
    expect(f.ctx.units.count()).toBe(golden.tests.length);
    // Corrupt the cache: if the second run recomputed, it would still match; so check
    // that it reads the stored unit by replacing one stored value.
    const key = `speat/${MODEL.id}/${golden.tests[0]!.id}/mean/last`;
    const stored = f.ctx.units.get<{ effectSize: number }>(key)!;
    f.ctx.units.put(key, 'speat', { ...stored, effectSize: 123 });
    const second = await runSpeat(f.ctx, designTests(f.ctx));
    expect(second.results[0]!.effectSize).toBe(123);
    expect(second.results[1]).toEqual(first.results[1]);
    expect(first.results[0]!.standardErrors.map((s) => s.size)).toEqual([2, 4]);
    f.store.close();
  });
});
