/**
 * A stored embedding that holds NaN (cached before embedding checked the model's output,
 * or merged from an older cluster shard) never reaches the statistics: before, the SpEAT
 * section died with `X[16][0] is not a finite number` and named no file. The clip is left
 * out as if it had no embedding, with a warning naming its file, and the section gives
 * exactly what it gives when that embedding is absent. Fixture: the SpEAT golden project
 * (test/golden/audit_speat.py), embeddings stored by the same insert as the pipeline's rows.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { designTests, runSpeat } from '../../../src/main/audits/speat-audit';
import { buildContext, fakeManifest, fixtureProject, insertDataset, insertEmbedding, type FakeModel } from './fixture';

interface Golden {
  dims: number[];
  attribute: { speaker: string; valence: number; mean: number[][]; min: number[][]; max: number[][] }[];
  targets: { mean: number[][]; min: number[][]; max: number[][] }[];
  tests: { id: string; label: string; x: number[]; y: number[] }[];
}

const golden = JSON.parse(readFileSync('test/golden/audit_speat.json', 'utf8')) as Golden;
const MODEL: FakeModel = { id: 'f'.repeat(64), settingsKey: 'v1|fixture|hf-states|chunk=30s', dims: golden.dims };
/** The target stimulus whose embedding is damaged (or missing): the first X of the first test. */
const BAD = golden.tests[0]!.x[0]!;

function fixture(bad: 'nan' | 'missing' | 'none') {
  const { db } = fixtureProject('SpEAT NaN fixture');
  const attr = insertDataset(db, 'attribute', golden.attribute.map((a) => ({ speaker: a.speaker, valence: a.valence })));
  const groups = (i: number) => Object.fromEntries(golden.tests.map((t) => [t.label, t.x.includes(i) ? 'x' : 'y']));
  const target = insertDataset(db, 'target', golden.targets.map((_, i) => ({ speaker: `t${i}`, groups: groups(i) })));
  golden.attribute.forEach((a, i) => insertEmbedding(db, MODEL, attr.shas[i]!, a));
  golden.targets.forEach((t, i) => {
    if (i !== BAD || bad === 'none') insertEmbedding(db, MODEL, target.shas[i]!, t);
    else if (bad === 'nan') insertEmbedding(db, MODEL, target.shas[i]!, { mean: t.mean.map((layer) => layer.map((v, j) => (j === 0 ? Number.NaN : v))), min: t.min, max: t.max });
  });
  const plan = {
    title: 'SpEAT NaN fixture',
    sections: ['speat' as const],
    models: ['fixture'],
    speat: {
      attributeDataset: attr.id,
      attributePerSpeaker: 2,
      temporal: 'mean' as const,
      layer: 'last' as const,
      permutations: 200,
      bootstrap: 0,
      sampleSizes: [2],
      tests: golden.tests.map((t) => ({ id: t.id, name: `Test ${t.label}`, targetDataset: target.id, x: { label: t.label, value: 'x' }, y: { label: t.label, value: 'y' } })),
    },
  };
  return buildContext(db, plan, new Map([['fixture', fakeManifest(MODEL)]]));
}

describe('a stored embedding with NaN', () => {
  it('is left out with a warning naming its file; the section runs as if it were missing', async () => {
    const nan = fixture('nan');
    const section = await runSpeat(nan.ctx, designTests(nan.ctx));
    expect(nan.warnings).toContain(`Model Fixture model: the stored embeddings of 1 recording(s) hold values that are not numbers (NaN or infinite) and were left out: ${BAD + 1}.wav.`);
    expect(nan.warnings.some((w) => /1 stimulus pair\(s\) had no embedding and were left out/.test(w))).toBe(true);
    const missing = fixture('missing');
    const reference = await runSpeat(missing.ctx, designTests(missing.ctx));
    expect(section.results.map((r) => [r.testId, r.effectSize, r.pValue])).toEqual(reference.results.map((r) => [r.testId, r.effectSize, r.pValue]));
    // And the pair really was dropped: with every embedding present the first test has one more stimulus.
    const whole = fixture('none');
    const all = await runSpeat(whole.ctx, designTests(whole.ctx));
    expect(all.results[0]!.associations.X.length).toBe(section.results[0]!.associations.X.length + 1);
    for (const r of section.results) expect(Number.isFinite(r.effectSize)).toBe(true);
  });
});
