/**
 * FDI pipeline: (a) imported scores → runFdi against test/golden/audit_fdi.py
 * (regenerate: python3 test/golden/audit_fdi.py > test/golden/audit_fdi.json);
 * (b) verification trials from stored embeddings; (c) the equal-error threshold.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { equalErrorThreshold, runFdi, verificationTrials, verifierQualityFromEmbeddings } from '../../../src/main/audits/fdi-audit';
import { buildContext, fakeManifest, fixtureProject, insertDataset, insertEmbedding, tempDir, type FakeModel } from './fixture';

interface GoldenRun {
  fdi: number;
  valueDisagreement: number;
  rankDisagreement: number;
  groups: Record<string, { fpr: number; fnr: number; accuracy: number }>;
}
const golden = JSON.parse(readFileSync('test/golden/audit_fdi.json', 'utf8')) as { rows: { group: string; label: number; score: number }[]; thresholds: Record<string, GoldenRun> };

const verificationGolden = (JSON.parse(readFileSync('test/golden/verification_golden.json', 'utf8')) as { audit_fdi: { eer: Record<string, { eer: number; threshold: number }>; garbe: number; fdr: number } }).audit_fdi;

function scoresCsv(): string {
  const file = join(tempDir('fdi-scores'), 'scores.csv');
  writeFileSync(file, ['group,label,score', ...golden.rows.map((r) => `${r.group},${r.label},${r.score}`)].join('\n') + '\n');
  return file;
}

describe('FDI audit pipeline', () => {
  for (const tau of ['0.5', '0.45']) {
    it(`gives the golden per-group rates, D, R and FDI for imported scores at tau = ${tau}`, async () => {
      const { db, store } = fixtureProject('FDI fixture');
      const b = buildContext(db, { title: 'FDI', sections: ['fdi'], fdi: { source: { kind: 'imported', file: scoresCsv() }, groupings: [['group']], threshold: Number(tau), bootstrap: 0 } });
      const fdi = await runFdi(b.ctx);
      const want = golden.thresholds[tau]!;
      const g = fdi.groupings[0]!;
      expect(fdi.config.thresholdRule).toBe('given');
      expect(g.threshold).toBe(Number(tau));
      expect(Object.keys(g.groups)).toEqual(['a', 'b', 'c', 'd']);
      for (const [name, r] of Object.entries(want.groups)) {
        expect(g.groups[name]!.fpr).toBeCloseTo(r.fpr, 14);
        expect(g.groups[name]!.fnr).toBeCloseTo(r.fnr, 14);
        expect(g.groups[name]!.accuracy).toBeCloseTo(r.accuracy, 14);
      }
      expect(g.valueDisagreement).toBeCloseTo(want.valueDisagreement, 12);
      expect(g.rankDisagreement).toBeCloseTo(want.rankDisagreement, 12);
      expect(g.fdi).toBeCloseTo(want.fdi, 12);
      expect(fdi.trials).toEqual({ genuine: golden.rows.filter((r) => r.label === 1).length, impostor: golden.rows.filter((r) => r.label === 0).length });
      expect(g.fdiCi95).toBeNull();
      if (tau === '0.5') {
        // Per-group EER, GARBE and FDR beside the FDI (test/golden/verification_golden.py, audit_fdi).
        const v = g.verification!;
        for (const [name, e] of Object.entries(verificationGolden.eer)) {
          expect(v.eer[name]!.eer).toBeCloseTo(e.eer, 12);
          expect(v.eer[name]!.threshold).toBe(e.threshold);
          expect(v.eer[name]!.ci95).toBeNull();
        }
        expect(v.eerCi).toBeNull();
        expect(v.garbe.garbe).toBeCloseTo(verificationGolden.garbe, 12);
        expect(v.fdr.fdr).toBeCloseTo(verificationGolden.fdr, 12);
        expect(Object.keys(v.det).sort()).toEqual(['a', 'b', 'c', 'd']);
      }
      store.close();
    });
  }

  it('uses the equal-error threshold when the plan gives none', async () => {
    const { db, store } = fixtureProject('FDI fixture');
    const b = buildContext(db, { title: 'FDI', sections: ['fdi'], fdi: { source: { kind: 'imported', file: scoresCsv() }, groupings: [['group']], bootstrap: 20 } });
    const fdi = await runFdi(b.ctx);
    expect(fdi.config.thresholdRule).toBe('equal-error-rate');
    expect(fdi.config.threshold).toBe(equalErrorThreshold(golden.rows.map((r) => r.score), golden.rows.map((r) => r.label)));
    const [lo, hi] = fdi.groupings[0]!.fdiCi95!;
    expect(lo).toBeLessThanOrEqual(hi);
    store.close();
  });

  it('sweeps the observed score range by default, gates on the verifier and tests the FDI against shuffled labels', async () => {
    const { db, store } = fixtureProject('FDI fixture');
    const scores = golden.rows.map((r) => r.score);
    const labels = golden.rows.map((r) => r.label);
    const b = buildContext(db, { title: 'FDI', sections: ['fdi'], fdi: { source: { kind: 'imported', file: scoresCsv() }, groupings: [['group']], threshold: 0.5, bootstrap: 0, nullPermutations: 300 } });
    const fdi = await runFdi(b.ctx);
    const g = fdi.groupings[0]!;
    // Percentiles written out here (numpy's linear interpolation), 21 evenly spaced thresholds.
    const sorted = [...scores].sort((a, c) => a - c);
    const pct = (q: number) => {
      const h = (sorted.length - 1) * q;
      return sorted[Math.floor(h)]! + (h - Math.floor(h)) * (sorted[Math.ceil(h)]! - sorted[Math.floor(h)]!);
    };
    expect(fdi.config.thresholdsRule).toBe('observed-range');
    expect(g.sweepRange!.rule).toBe('observed-range');
    expect(fdi.config.thresholds.from).toBeCloseTo(pct(0.01), 12);
    expect(fdi.config.thresholds.to).toBeCloseTo(pct(0.99), 12);
    expect(g.sweep.length).toBeLessThanOrEqual(21);
    expect(g.sweep.every((p) => p.threshold >= pct(0.01) - 1e-12 && p.threshold <= pct(0.99) + 1e-12)).toBe(true);
    // AUC by its definition over all pairs of genuine and impostor trials.
    const pos = scores.filter((_, i) => labels[i] === 1);
    const neg = scores.filter((_, i) => labels[i] === 0);
    const auc = pos.reduce((s, x) => s + neg.reduce((t, y) => t + (x > y ? 1 : x === y ? 0.5 : 0), 0), 0) / (pos.length * neg.length);
    expect(g.verifier!.auc).toBeCloseTo(auc, 13);
    expect(g.verifier!.informative).toBe(g.verifier!.aucCi[0] > 0.5);
    expect([g.verifier!.genuine, g.verifier!.impostor]).toEqual([pos.length, neg.length]);
    expect(g.null!.permutations).toBe(300);
    expect(g.null!.pValue).toBeGreaterThan(0);
    expect(g.null!.pValue).toBeLessThanOrEqual(1);
    expect(fdi.config.nullPermutations).toBe(300);
    store.close();
  });

  it('builds balanced verification trials: genuine pairs share a speaker, impostors differ', async () => {
    const { db, store } = fixtureProject('FDI verification');
    // Each speaker's clips all have the same vector, one basis vector per speaker, so a
    // genuine trial scores exactly 1 and an impostor exactly 0.
    const D = 8;
    const speakers: { speaker: number; gender: string; clips: number }[] = [
      { speaker: 0, gender: 'f', clips: 4 }, { speaker: 1, gender: 'f', clips: 4 }, { speaker: 2, gender: 'f', clips: 4 },
      { speaker: 3, gender: 'm', clips: 2 }, { speaker: 4, gender: 'm', clips: 2 },
      { speaker: 5, gender: 'x', clips: 3 }, // one speaker: no impostor pairs, left out
    ];
    const clips = speakers.flatMap((s) => Array.from({ length: s.clips }, () => ({ speaker: `spk${s.speaker}`, groups: { gender: s.gender }, s: s.speaker })));
    const ds = insertDataset(db, 'verification', clips);
    const model: FakeModel = { id: 'd'.repeat(64), settingsKey: 'v1|fixture', dims: [D, D] };
    clips.forEach((c, i) => {
      const basis = Array.from({ length: D }, (_, k) => (k === c.s ? 1 : 0));
      insertEmbedding(db, model, ds.shas[i]!, { mean: [Array.from({ length: D }, () => 0.5), basis] });
    });
    const models = new Map([['fixture-verif', fakeManifest(model)]]);
    const plan = { title: 'FDI', sections: ['fdi' as const], fdi: { source: { kind: 'verification' as const, dataset: ds.id, modelId: 'fixture-verif', trialsPerGroup: 20 }, groupings: [['gender']], bootstrap: 0 } };
    const b = buildContext(db, plan, models);
    const warned: string[] = [];
    const trials = verificationTrials(b.ctx, ['gender'], (w) => warned.push(w));
    const count = (g: string, genuine: 0 | 1) => trials.filter((t) => t.labels.gender === g && t.genuine === genuine).length;
    // f: 18 genuine and 48 impostor pairs available, 10 of each asked for.
    expect([count('f', 1), count('f', 0)]).toEqual([10, 10]);
    // m: 2 genuine and 4 impostor pairs available: balanced at 2 each.
    expect([count('m', 1), count('m', 0)]).toEqual([2, 2]);
    expect(trials.filter((t) => t.labels.gender === 'x')).toEqual([]);
    expect(warned).toEqual(['FDI: group x has no impostor (two-speaker) pairs and was left out.']);
    for (const t of trials) expect(t.score).toBe(t.genuine === 1 ? 1 : 0);
    // Each trial names its two speakers (the first clip enrols): the same one for a genuine trial, two of its group otherwise.
    for (const t of trials) {
      expect(t.speakers).toHaveLength(2);
      if (t.genuine === 1) expect(t.speakers![0]).toBe(t.speakers![1]);
      else expect(t.speakers![0]).not.toBe(t.speakers![1]);
    }

    // Through runFdi: counts, and the warning survives a resumed run that reads the stored unit.
    const fdi = await runFdi(b.ctx);
    expect(fdi.trials).toEqual({ genuine: 12, impostor: 12 });
    expect(fdi.config.trialsPerGroup).toBe(20);
    expect(fdi.config.modelId).toBe(model.id);
    expect(b.warnings).toContain('FDI: group x has no impostor (two-speaker) pairs and was left out.');
    const resumed = { ...b.ctx, warn: (w: string) => warned.push(`resumed: ${w}`) };
    const again = await runFdi(resumed);
    expect(again).toEqual(fdi);
    expect(warned).toContain('resumed: FDI: group x has no impostor (two-speaker) pairs and was left out.');
    // A perfect verifier (genuine 1, impostor 0): AUC 1, EER 0, informative.
    expect(fdi.groupings[0]!.verifier).toMatchObject({ auc: 1, eer: 0, informative: true, genuine: 12, impostor: 12 });
    // Speakers known: the null shuffles speakers; results and report data carry pseudonyms in the order of the real ids, never the ids.
    const g = fdi.groupings[0]!;
    expect(g.null!.unit).toBe('speaker');
    const pseudonyms = [...new Set(g.trials!.flatMap((t) => t.speakers!))].sort();
    expect(pseudonyms).toEqual(['S01', 'S02', 'S03', 'S04', 'S05']);
    const real = [...new Set(trials.flatMap((t) => t.speakers!))].sort();
    g.trials!.forEach((t, i) => expect(t.speakers!.map((x) => real[Number(x.slice(1)) - 1])).toEqual(trials[i]!.speakers));
    expect(JSON.stringify(fdi)).not.toMatch(/spk\d/);

    // Before a run, from the cached embeddings alone: the same trials (same seed), so the same quality.
    const q = verifierQualityFromEmbeddings(db, fakeManifest(model), { datasetId: ds.id, groupBy: ['gender'], trialsPerGroup: 20, seed: b.ctx.seed });
    expect(q).toMatchObject({ auc: 1, eer: 0, informative: true, genuine: 12, impostor: 12 });
    expect(q!.warnings).toEqual(['FDI: group x has no impostor (two-speaker) pairs and was left out.']);
    // A model with no cached embeddings for the dataset: nothing to judge.
    expect(verifierQualityFromEmbeddings(db, fakeManifest({ ...model, id: 'e'.repeat(64) }), { datasetId: ds.id, groupBy: ['gender'] })).toBeNull();
    store.close();
  });
});

describe('FDI on imported scores with enrol_speaker and test_speaker', () => {
  function run(header: string, rows: string[], extra: Record<string, unknown> = {}) {
    const file = join(tempDir('fdi-speakers'), 'scores.csv');
    writeFileSync(file, [header, ...rows].join('\n') + '\n');
    const { db, store } = fixtureProject('FDI speakers');
    const b = buildContext(db, { title: 'FDI', sections: ['fdi'], fdi: { source: { kind: 'imported', file }, groupings: [['group']], threshold: 0.5, bootstrap: 50, nullPermutations: 50, ...extra } });
    return { promise: runFdi(b.ctx), close: () => store.close() };
  }
  // Golden rows with speakers: per group, 5 speakers; a row's enrolment speaker from its index, a genuine trial's test speaker the same.
  const rows = golden.rows.map((r, i) => {
    const k = i % 5;
    return `${r.group},${r.label},${r.score},${r.group}-s${k},${r.label === 1 ? `${r.group}-s${k}` : `${r.group}-s${(k + 1) % 5}`}`;
  });

  it('the speaker columns are not groupings; the CI resamples and the null shuffles speakers; the rates are the golden ones', async () => {
    const r = run('group,label,score,enrol_speaker,test_speaker', rows);
    const fdi = await r.promise;
    const g = fdi.groupings[0]!;
    expect(Object.keys(g.groups).sort()).toEqual(Object.keys(golden.thresholds['0.5']!.groups).sort());
    expect(g.fdi).toBeCloseTo(golden.thresholds['0.5']!.fdi, 12);
    expect(g.fdiCi!.unit).toBe('speaker');
    expect(g.null!.unit).toBe('speaker');
    expect(g.trials![0]!.speakers).toHaveLength(2);
    // The EER CIs resample speakers too, with the FDI's resamples.
    expect(g.verification!.eerCi).toMatchObject({ unit: 'speaker', resamples: 50 });
    for (const e of Object.values(g.verification!.eer)) expect(e.ci95![0]).toBeLessThanOrEqual(e.ci95![1]);
    r.close();
  });

  it('one speaker column without the other, or an empty cell, is refused naming the column or line', async () => {
    const one = run('group,label,score,enrol_speaker', rows.map((x) => x.split(',').slice(0, 4).join(',')));
    await expect(one.promise).rejects.toThrow(/give both enrol_speaker and test_speaker/);
    one.close();
    const empty = run('group,label,score,enrol_speaker,test_speaker', [...rows.slice(0, 3), 'a,1,0.9,,a-s1']);
    await expect(empty.promise).rejects.toThrow(/line 5: enrol_speaker is empty/);
    empty.close();
  });
});

describe('equalErrorThreshold', () => {
  it('picks the score where FPR and FNR are closest', () => {
    // Accept score >= t. Positives 0.3 0.6 0.8 0.9, negatives 0.1 0.2 0.4 0.7.
    // t = 0.6: FNR = 1/4 (0.3), FPR = 1/4 (0.7): equal; every other threshold differs.
    const scores = [0.1, 0.3, 0.2, 0.6, 0.4, 0.8, 0.7, 0.9];
    const labels = [0, 1, 0, 1, 0, 1, 0, 1];
    expect(equalErrorThreshold(scores, labels)).toBe(0.6);
  });

  it('evaluates tied scores once, as a block', () => {
    // t = 0.5 rejects nothing below it that ties: FNR 0, FPR 1/2 at t = 0.5; t = 0.2: FPR 1, FNR 0.
    const scores = [0.2, 0.5, 0.5, 0.9];
    const labels = [0, 0, 1, 1];
    expect(equalErrorThreshold(scores, labels)).toBe(0.5);
  });
});
