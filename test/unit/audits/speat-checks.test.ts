/**
 * The SpEAT paper's extra checks: valence of the attribute speech by speaker gender
 * (Welch t) and on speaker age (OLS), and the two-way ANOVA of d by model family × test.
 * Golden values from scipy 1.17 / numpy (commands beside each value).
 */
import { describe, expect, it } from 'vitest';
import { attributeChecks, familyAnova } from '../../../src/main/audits/speat-audit';
import { buildContext, fixtureProject, insertDataset } from './fixture';

const VAL_F = [4.5, 3.9, 2.1, 1.5, 4.8, 2.2];
const VAL_M = [3.1, 2.4, 4.0, 1.1, 3.3];
const AGES = [21, 34, 45, 52, 29, 61, 38, 44, 27, 50, 33];

function context(withLabels: boolean) {
  const { db } = fixtureProject('SpEAT checks');
  const clips = [...VAL_F.map((v) => ({ g: 'female', v })), ...VAL_M.map((v) => ({ g: 'male', v }))].map((c, i) => ({
    speaker: `s${i % 4}`,
    valence: c.v,
    groups: (withLabels ? { gender: c.g, age: String(AGES[i]) } : {}) as Record<string, string>,
  }));
  const attr = insertDataset(db, 'attribute', clips);
  const target = insertDataset(db, 'target', [{ groups: { g: 'x' } }, { groups: { g: 'y' } }]);
  return buildContext(db, {
    title: 'checks',
    sections: ['speat'],
    models: ['m'],
    speat: { attributeDataset: attr.id, tests: [{ id: 't', name: 't', targetDataset: target.id, x: { label: 'g', value: 'x' }, y: { label: 'g', value: 'y' } }] },
  }).ctx;
}

describe('SpEAT attribute confound checks', () => {
  it('tests valence by gender (Welch) and on age (OLS) as scipy does', () => {
    const checks = attributeChecks(context(true));
    // python3 -c "import scipy.stats as st; r=st.ttest_ind([4.5,3.9,2.1,1.5,4.8,2.2],[3.1,2.4,4.0,1.1,3.3],equal_var=False); print(r.statistic, r.pvalue, r.df)"
    expect(checks.valenceByGender?.groups).toEqual(['female', 'male']);
    expect(checks.valenceByGender?.t).toBeCloseTo(0.512522300261495, 10);
    expect(checks.valenceByGender?.p).toBeCloseTo(0.6206463516136754, 10);
    expect(checks.valenceByGender?.df).toBeCloseTo(8.984969103517704, 8);
    expect(checks.valenceByGender?.n).toEqual([6, 5]);
    // python3 -c "import scipy.stats as st; l=st.linregress([21,34,45,52,29,61,38,44,27,50,33],[4.5,3.9,2.1,1.5,4.8,2.2,3.1,2.4,4.0,1.1,3.3]); print(l.slope, l.slope/l.stderr, l.pvalue)"
    expect(checks.valenceByAge?.slope).toBeCloseTo(-0.08870727159726537, 12);
    expect(checks.valenceByAge?.t).toBeCloseTo(-5.395144630778791, 9);
    expect(checks.valenceByAge?.p).toBeCloseTo(0.0004357656552410793, 12);
    expect(checks.valenceByAge?.df).toBe(9);
    expect(checks.notes).toEqual([]);
  });

  it('says why a check could not run when the labels are missing', () => {
    const checks = attributeChecks(context(false));
    expect(checks.valenceByGender).toBeNull();
    expect(checks.valenceByAge).toBeNull();
    expect(checks.notes.join(' ')).toMatch(/no gender label.*no numeric age/s);
  });
});

describe('two-way ANOVA of d by model family × test', () => {
  const unit = (modelId: string, testId: string, effectSize: number) => ({
    testId, modelId, temporal: 'mean' as const, layer: 'sum' as const, effectSize, pValue: 0.5, exact: false, permutations: 100, standardErrors: [], associations: { X: [], Y: [] },
  });
  const d: Record<string, number[]> = { m1: [0.5, 0.2, -0.1], m2: [0.7, 0.1, 0.0], m3: [0.1, -0.3, 0.4], m4: [0.3, -0.1, 0.2] };
  const results = Object.entries(d).flatMap(([m, ds]) => ds.map((v, t) => unit(m, `t${t}`, v)));
  const families = new Map([['m1', 'wav2vec2'], ['m2', 'wav2vec2'], ['m3', 'hubert'], ['m4', 'hubert']]);

  it('matches the balanced-design sums of squares and F tests (numpy/scipy)', () => {
    const anova = familyAnova(results, families);
    expect(anova.note).toBeNull();
    // numpy: SS_A = n_tests·n_rep·Σ(ȳ_a − ȳ)², SS_B, SS_AB, SS_E; p = scipy.stats.f.sf(F, df, 6)
    const [a, b, ab, res] = anova.rows!;
    expect(a).toMatchObject({ source: 'model family', df: 1 });
    expect(a!.sumSq).toBeCloseTo(0.0533333333333333, 12);
    expect(a!.f).toBeCloseTo(3.555555555555554, 9);
    expect(a!.pValue).toBeCloseTo(0.1083081161974282, 10);
    expect(b!.sumSq).toBeCloseTo(0.3716666666666667, 12);
    expect(b!.f).toBeCloseTo(12.388888888888891, 9);
    expect(b!.pValue).toBeCloseTo(0.007408699368723893, 10);
    expect(ab!.sumSq).toBeCloseTo(0.3516666666666667, 12);
    expect(ab!.pValue).toBeCloseTo(0.00846142789013749, 10);
    expect(res).toMatchObject({ source: 'Residual', df: 6, f: null, pValue: null });
    expect(res!.sumSq).toBeCloseTo(0.09, 12);
  });

  it('refuses a design without replication and says why', () => {
    const one = results.filter((r) => r.modelId === 'm1' || r.modelId === 'm3');
    expect(familyAnova(one, families)).toEqual({ rows: null, note: expect.stringMatching(/replication/) });
  });
});
