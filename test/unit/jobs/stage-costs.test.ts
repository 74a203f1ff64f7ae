/**
 * What the SpEAT and WER stages are costed by (src/main/audits/progress.ts): the quantities
 * their time was measured to go with, not the counts of resamples alone. The measured
 * proportions below are figures printed by the timing runs of 3 December 2026 (a speat-only
 * audit of the demo's recordings; werComparisonMdes on the demo's recognition data copied to
 * more speakers), written here as numbers: nothing in this file times anything.
 */
import { describe, expect, it } from 'vitest';
import type { AuditPlanConfig } from '../../../src/shared/plan';
import { parsePlan } from '../../../src/main/audits/plans';
import type { ModelManifest } from '../../../src/main/inference';
import { auditStages, estimatedSeconds, speatComparisonCost, werCost, type WerGroupFacts, type WorkFacts } from '../../../src/main/audits/progress';

const speat = (over: Partial<Parameters<typeof speatComparisonCost>[1]> = {}) => ({ permutations: 10_000, bootstrap: 0, sampleSizes: [2, 4, 6, 8, 10], grid: false, ...over });
/** Shown / measured of two settings' costs: 1 when the estimate keeps the measured proportion. */
const against = (estimated: number, measured: number) => estimated / measured;

describe('SpEAT is costed by permutations × stimuli per group', () => {
  it('scales with the stimuli per group at a fixed number of sampled permutations', () => {
    const big = speatComparisonCost(24, speat({ permutations: 2_000_000 }));
    const small = speatComparisonCost(12, speat({ permutations: 2_000_000 }));
    // The permutation draws are most of it: twice the stimuli, nearly twice the cost.
    expect(big / small).toBeGreaterThan(1.8);
    expect(big / small).toBeLessThan(2);
  });

  it('costs an enumerated test by its splits, whatever the permutation budget', () => {
    // C(12, 6) = 924 splits: enumerated at 200,000 and at 2,000,000 permutations alike.
    expect(speatComparisonCost(6, speat({ permutations: 200_000 }))).toBe(speatComparisonCost(6, speat({ permutations: 2_000_000 })));
  });

  it('keeps the proportions of a measured run: section time at 2·10⁶ permutations, one model, one test', () => {
    // Measured (s): 24 stimuli 0.225, 12 stimuli 0.139; 12 stimuli and 1,000 permutations 0.005.
    const stage = (k: number, permutations: number) => 10 + speatComparisonCost(k, speat({ permutations }));
    expect(against(stage(24, 2_000_000) / stage(12, 2_000_000), 0.225 / 0.139)).toBeGreaterThan(0.7);
    expect(against(stage(24, 2_000_000) / stage(12, 2_000_000), 0.225 / 0.139)).toBeLessThan(1.5);
    // 2·10⁶ permutations against 10³ over 12 stimuli: measured 28 times as long; the estimate says a tenth of that or more.
    expect(stage(12, 2_000_000) / stage(12, 1000)).toBeGreaterThan(0.1 * (0.139 / 0.005));
  });

  it('counts bootstrap resamples by the pairs they draw', () => {
    const none = speatComparisonCost(12, speat());
    const tenK = speatComparisonCost(12, speat({ bootstrap: 10_000 }));
    const hundredK = speatComparisonCost(12, speat({ bootstrap: 100_000 }));
    // Sizes 2…10 and the compared 12: 42 pairs a resample.
    expect(hundredK - none).toBeCloseTo(10 * (tenK - none), 10);
    expect(tenK - none).toBeCloseTo((10_000 * 42 * 2.5) / 1e6, 10);
  });
});

describe('WER is costed by its power simulations', () => {
  const groups = (n: number, utterances: number, speakers: number): WerGroupFacts[] => Array.from({ length: n }, (_, i) => ({ group: `g${i}`, utterances, speakers }));
  // Measured with a reference group (k − 1 comparisons), as the measured runs compared.
  const w = (mdeSimulations: number) => ({ bootstrap: 1000, permutations: 10_000, mdeSimulations, referenceGroup: 'g0' });

  it('refits the mixed model per simulated audit when the groups have five speakers or more', () => {
    const mixed = werCost(144, w(200), groups(3, 48, 12));
    const few = werCost(48, w(200), groups(3, 16, 4));
    // Measured: 144 utterances with 12 speakers a group, 200 simulations, 2.4 s; 48 with 4 speakers, 0.03 s.
    expect(mixed / few).toBeGreaterThan(20);
    expect(werCost(144, w(0), groups(3, 48, 12))).toBeLessThan(mixed / 5);
  });

  it('keeps the proportions of measured runs (simulations, utterances, groups)', () => {
    // Measured (ms) werComparisonMdes: 144 utterances / 3 groups 1014 (50 simulations), 2420 (200); 480 / 5 groups 17778 (200).
    expect(against(werCost(144, w(200), groups(3, 48, 12)) / werCost(144, w(50), groups(3, 48, 12)), 2420 / 1014)).toBeGreaterThan(0.7);
    expect(against(werCost(144, w(200), groups(3, 48, 12)) / werCost(144, w(50), groups(3, 48, 12)), 2420 / 1014)).toBeLessThan(1.5);
    expect(against(werCost(480, w(200), groups(5, 96, 24)) / werCost(144, w(200), groups(3, 48, 12)), 17778 / 2420)).toBeGreaterThan(0.7);
    expect(against(werCost(480, w(200), groups(5, 96, 24)) / werCost(144, w(200), groups(3, 48, 12)), 17778 / 2420)).toBeLessThan(1.5);
  });

  it('a named reference group with few speakers makes every comparison a permutation test', () => {
    const g = [...groups(2, 40, 10), { group: 'ref', utterances: 40, speakers: 3 }];
    expect(werCost(120, { ...w(200), referenceGroup: 'ref' }, g)).toBeCloseTo(werCost(120, w(200), groups(3, 40, 3)), 10);
  });

  it('every pair (also a plan without a reference) costs k(k − 1)/2 comparisons', () => {
    const one = (s: number) => werCost(160, w(200), groups(2, 80, s)) - werCost(160, w(0), groups(2, 80, s));
    const all = (s: number, referenceGroup?: { kind: 'every-pair' }) => werCost(320, { ...w(200), referenceGroup }, groups(4, 80, s)) - werCost(320, { ...w(0), referenceGroup }, groups(4, 80, s));
    // Four groups: 6 pairs against 3 comparisons with a reference; each simulation's cost scales with the utterances (twice as many).
    expect(all(3, { kind: 'every-pair' })).toBeCloseTo(6 * one(3), 10);
    expect(all(3)).toBeCloseTo(6 * one(3), 10);
    expect(all(12, { kind: 'every-pair' })).toBeCloseTo(6 * 2 * one(12), 10);
  });
});

describe('the own-data audit of bench:eta is costed as it runs', () => {
  const model = (alias: string): ModelManifest => ({ id: alias, alias, name: alias, task: 'embedding' }) as unknown as ModelManifest;
  const models = new Map(['acoustic-baseline', 'speech-embedding'].map((a) => [a, model(a)]));
  // bench/eta.ts's own-data plan: 24 recordings, 12 women and 12 men, 3 accents of 4 speakers.
  const config: AuditPlanConfig = parsePlan({
    title: 'own data',
    sections: ['speat', 'wer'],
    models: ['acoustic-baseline', 'speech-embedding'],
    speat: { attributeDataset: 'a', attributePerSpeaker: 5, permutations: 200_000, bootstrap: 10_000, tests: [{ id: 't1', name: 'f vs m', targetDataset: 't', x: { label: 'Gender', value: 'female' }, y: { label: 'Gender', value: 'male' } }] },
    wer: { dataset: 't', groupBy: ['Accent'], referenceGroup: 'us', bootstrap: 5000, permutations: 20_000, hypotheses: { source: 'column' } },
  });
  const facts: WorkFacts = {
    datasetName: () => 'clips.csv',
    toEmbed: () => 0,
    clips: () => 24,
    groupClips: () => 12,
    werGroups: () => groups3,
  };
  const groups3: WerGroupFacts[] = ['us', 'uk', 'scotland'].map((group) => ({ group, utterances: 8, speakers: 4 }));

  it('SpEAT and WER at a tenth of a second each at the build machine’s speeds (they took 0.07–0.08 and 0.06 s), not 2–20 s', () => {
    const stages = auditStages(config, models, facts);
    const seconds = estimatedSeconds(stages, {});
    const at = (key: string) => seconds[stages.findIndex((s) => s.key === key)]!;
    expect(at('speat')).toBeGreaterThan(0.03);
    expect(at('speat')).toBeLessThan(0.3);
    expect(at('wer')).toBeGreaterThan(0.02);
    expect(at('wer')).toBeLessThan(0.3);
  });

  it('without group facts (the demo before its import) half the dataset per group stands in', () => {
    const { groupClips: _g, werGroups: _w, ...plain } = facts;
    const stages = auditStages(config, models, plain);
    expect(stages.find((s) => s.key === 'speat')!.cost).toBeCloseTo(auditStages(config, models, facts).find((s) => s.key === 'speat')!.cost, 10);
  });
});

describe('reading recordings is costed by their length', () => {
  const m = { id: 'speech-embedding', alias: 'speech-embedding', name: 'speech-embedding', task: 'embedding' } as unknown as ModelManifest;
  const config = parsePlan({
    title: 'lengths',
    sections: ['speat'],
    models: ['speech-embedding'],
    speat: { attributeDataset: 'attribute', attributePerSpeaker: 5, tests: [{ id: 't', name: 't', targetDataset: 'verification', x: { label: 'g', value: 'a' }, y: { label: 'g', value: 'b' } }] },
  });
  const facts = (meanSeconds?: (id: string) => number | null): WorkFacts => ({ datasetName: (id) => id, toEmbed: () => 60, clips: () => 60, ...(meanSeconds ? { meanSeconds } : {}) });
  const embedCosts = (f: WorkFacts) => auditStages(config, new Map([['speech-embedding', m]]), f).filter((s) => s.key.startsWith('embed/')).map((s) => s.cost);

  it('keeps the measured proportion of the demo’s datasets (2.67 s and 2.25 s a recording: 0.090 and 0.064 s a recording read)', () => {
    const [attribute, verification] = embedCosts(facts((id) => (id === 'attribute' ? 2.67 : 2.25)));
    expect(against(attribute! / verification!, 0.09 / 0.064)).toBeGreaterThan(0.7);
    expect(against(attribute! / verification!, 0.09 / 0.064)).toBeLessThan(1.5);
  });

  it('counts recordings as they are when their length is not known', () => {
    expect(embedCosts(facts())).toEqual([60, 60]);
    expect(embedCosts(facts(() => null))).toEqual([60, 60]);
  });
});
