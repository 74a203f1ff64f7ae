/**
 * SpEAT pipeline on a fixture project: stored embeddings → designTests → runSpeat.
 * Expected d, exact permutation p and adjusted p come from test/golden/audit_speat.py
 * (regenerate: python3 test/golden/audit_speat.py > test/golden/audit_speat.json).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { designTests, runSpeat } from '../../../src/main/audits/speat-audit';
import { adjustPValues, BootstrapPlan } from '../../../src/main/stats';
import { unitSeed } from '../../../src/main/audits/units';
import { speatTables } from '../../../src/main/report/tables';
import { speatVerdict } from '../../../src/shared/verdicts';
import type { AuditResults } from '../../../src/shared/results';
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

function speatFixture(options: { bootstrap?: number; extraTargets?: boolean; speaker?: (i: number) => string } = {}) {
  const { db, store } = fixtureProject('SpEAT fixture');
  const attr = insertDataset(db, 'attribute', golden.attribute.map((a) => ({ speaker: a.speaker, valence: a.valence })));
  const target = insertDataset(db, 'target', golden.targets.map((_, i) => ({ speaker: options.speaker ? options.speaker(i) : `t${i}`, groups: targetGroups(i) })));
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
      // No bootstrap in the plan: no SE and no CI of d.
      expect(r.ci95AtCompared).toBeNull();
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
      // One clip per speaker: the clip is the speaker, and no second, clip-level test is kept.
      expect(r.unit).toBe('clip');
      expect(r.clipLevel).toBeUndefined();
      expect(r.pTwoSidedAdjusted!.bonferroni).toBeCloseTo(adjusted.bonferroni[k]!, 14);
      expect(r.pTwoSidedAdjusted!.holm).toBeCloseTo(adjusted.holm[k]!, 14);
      expect(r.pTwoSidedAdjusted!.bh).toBeCloseTo(adjusted.bh[k]!, 14);
      expect(r.favoured).toBe(r.effectSize > 0 ? 'x' : 'y');
      // 5 stimuli compared, not among the plan's sizes (2, 4): its own bootstrap point.
      expect(r.standardErrorAtCompared).toBeGreaterThan(0);
      expect(r.standardErrorAtCompared!).toBeLessThan(r.standardErrors.find((p) => p.size === 4)!.standardError);
      // d's 95% CI: the percentiles of the very resamples behind that SE (matched pairs, the unit's seed, stream 1500).
      const again = new BootstrapPlan(r.associations.X, r.associations.Y, { resamples: 200, seed: unitSeed(f.ctx.seed, `speat/${r.modelId}/${r.testId}/mean/last`), design: { kind: 'paired' }, sizeIndexOffset: 500 }).point(5, 0, true);
      expect(again.standardError).toBe(r.standardErrorAtCompared);
      expect(r.ci95AtCompared).toEqual(again.ci95);
      expect(r.ci95AtCompared![0]).toBeLessThan(r.ci95AtCompared![1]);
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

  it('targets with several clips per speaker: the speaker is the unit of the verdict\'s p (brute force over speaker-consistent splits), the paper\'s clip-level p beside it, bootstrap and MDE by speaker', async () => {
    // Speakers p0..p4 with two clips each, (0, 1), (2, 3), …: depending on each test's split a
    // speaker lies in one group or is recorded in both (t-g2 is a within-speaker design).
    const speaker = (i: number) => `p${Math.floor(i / 2)}`;
    const f = speatFixture({ bootstrap: 300, speaker });
    const section = await runSpeat(f.ctx, designTests(f.ctx));
    const all = golden.associations;
    const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
    for (const [k, g] of golden.tests.entries()) {
      const r = section.results[k]!;
      // Brute force, written here: every subset of the 10 clips that keeps each speaker's clips
      // as the observed split groups them (a one-group speaker's clips together, as many such
      // speakers in X as observed; a speaker in both groups gives X exactly its X clips or
      // exactly its Y clips), |mean in − mean out| against the observed.
      const inX = (i: number) => g.x.includes(i);
      const speakers = [...new Set(all.map((_, i) => speaker(i)))];
      const clipsOf = (p: string) => all.map((_, i) => i).filter((i) => speaker(i) === p);
      const kinds = speakers.map((p) => {
        const c = clipsOf(p);
        return c.every(inX) ? 'x' : c.some(inX) ? 'both' : 'y';
      });
      const diff = (xs: number[]) => mean(xs.map((i) => all[i]!)) - mean(all.map((_, i) => i).filter((i) => !xs.includes(i)).map((i) => all[i]!));
      const observed = diff(g.x);
      let total = 0;
      let one = 0;
      let two = 0;
      for (let mask = 0; mask < 1 << all.length; mask += 1) {
        const xs = all.map((_, i) => i).filter((i) => mask & (1 << i));
        const valid = speakers.every((p, j) => {
          const c = clipsOf(p);
          const taken = c.filter((i) => xs.includes(i));
          if (kinds[j] === 'both') return taken.length === c.filter(inX).length && (taken.every(inX) || taken.every((i) => !inX(i)));
          return taken.length === 0 || taken.length === c.length;
        });
        const oneGroupInX = speakers.filter((p, j) => kinds[j] !== 'both' && clipsOf(p).every((i) => xs.includes(i))).length;
        if (!valid || oneGroupInX !== kinds.filter((x) => x === 'x').length) continue;
        total += 1;
        const d = diff(xs);
        if (d >= observed - 1e-12) one += 1;
        if (Math.abs(d) >= Math.abs(observed) - 1e-12) two += 1;
      }
      expect(r.unit, g.id).toBe('speaker');
      expect(r.exact).toBe(true);
      expect(r.permutations, g.id).toBe(total);
      expect(r.pValue, g.id).toBe(one / total);
      expect(r.pTwoSided, g.id).toBe(two / total);
      expect(r.speakers, g.id).toEqual({ onlyX: kinds.filter((x) => x === 'x').length, onlyY: kinds.filter((x) => x === 'y').length, both: kinds.filter((x) => x === 'both').length });
      // The paper's test, clips as independent: the golden one-sided p (test/golden/audit_speat.py), unchanged.
      expect(r.clipLevel!.pValue).toBe(g.count / g.total);
      expect(r.clipLevel!.permutations).toBe(252);
      expect(Math.abs(r.effectSize - g.d)).toBeLessThan(1e-10);
      // The report's attachment carries speakers as pseudonyms, never the dataset's ids.
      expect(r.associations.speakersX!.every((p) => /^s\d+$/.test(p))).toBe(true);
      expect(new Set([...r.associations.speakersX!, ...r.associations.speakersY!]).size).toBe(5);
      // Bootstrap sizes are speakers per group: the plan's 2 and 4 up to the smaller group's speakers.
      const perGroup = Math.min(r.speakers!.onlyX + r.speakers!.both, r.speakers!.onlyY + r.speakers!.both);
      expect(r.standardErrors.map((p) => p.size)).toEqual([2, 4].filter((x) => x <= perGroup));
      expect(r.standardErrorAtCompared).toBeGreaterThan(0);
      expect(r.ci95AtCompared![0]).toBeLessThan(r.ci95AtCompared![1]);
      expect(r.mde!.unit).toBe('speaker');
      expect(r.mde!.speakers).toEqual(r.speakers);
    }
    // t-g2 pairs every speaker with itself (X even rows, Y odd): 2^5 flips.
    expect(section.results[1]!.speakers).toEqual({ onlyX: 0, onlyY: 0, both: 5 });
    // t-g1 has 12 speaker splits: its smallest two-sided p, 2/12, cannot reach 0.05 / 3, so
    // there is no MDE and the sentence says the design cannot detect a difference.
    const first = section.results[0]!;
    expect(first.mde!.d).toBeNull();
    const v = speatVerdict(first, section.tests[0]!, section);
    expect(v.unit).toBe('speaker');
    expect(v.unlikely).toBe(false);
    expect(v.phrase).toMatch(/^could be chance \(two-sided p = [0-9.]+, adjusted for 3 tests, Holm\), comparing speakers rather than single recordings$/);
    expect(v.power).toBe('; with 3 and 3 speakers (1 recorded in both groups) no effect of any size could reach significance, so this design cannot detect a difference however large it is (more speakers are needed, not more recordings per speaker)');
    // The report's tables: the unit beside each p, and the paper's clip-level test apart.
    const tables = speatTables({ speat: section, datasets: [], models: [] } as unknown as AuditResults);
    const results = tables.find((t) => t.id === 'speat-results')!;
    const unitColumn = results.columns.findIndex((c) => c.title === 'Unit');
    expect(results.rows.map((r) => r[unitColumn])).toEqual(['speaker', 'speaker', 'speaker']);
    const paper = tables.find((t) => t.id === 'speat-paper-test')!;
    expect(paper.title).toMatch(/^The SpEAT paper's test \(clips as independent\)/);
    expect(paper.rows.map((r) => r[3])).toEqual(golden.tests.map((g) => g.count / g.total));
    expect(tables.find((t) => t.id === 'speat-attributes')!.title).toMatch(/balanced per speaker by design/);
    // The verdict's p and its adjustment are the speaker-level two-sided ones.
    const holm = adjustPValues(section.results.map((r) => r.pTwoSided!), 'holm');
    section.results.forEach((r, k) => expect(r.pTwoSidedAdjusted!.holm).toBeCloseTo(holm[k]!, 14));
    f.store.close();
  });
});
