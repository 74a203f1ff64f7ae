/**
 * The SpEAT duration confound check (issue 32.4, METHODS.md § The unit of inference,
 * Confound checks) on clips from a real project database (test/unit/audits/fixture.ts),
 * against scipy (test/golden/units_golden.py): paired by sentence when both groups read the
 * same sentences (transcripts that differ only in case, punctuation and spacing are one
 * sentence), otherwise Welch on speaker means; never X[i] against Y[i] in storage order.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { listClips, type Clip } from '../../../src/main/data/repository';
import { designSpeatTest, durationCheck } from '../../../src/main/data/speat-design';
import { fixtureProject, insertDataset } from '../audits/fixture';

interface GoldenClip {
  group: string;
  speaker: string;
  transcript: string;
  durationS: number;
}
const golden = JSON.parse(readFileSync(fileURLToPath(new URL('../../golden/units_golden.json', import.meta.url)), 'utf8')) as {
  duration_by_sentence: { clips: GoldenClip[]; t: number; df: number; p: number; meanDifference: number; sentences: number };
  duration_speakers: { clips: GoldenClip[]; t: number; df: number; p: number; difference: number; units: [number, number] };
};

function clipsOf(list: GoldenClip[], options: { speakers?: boolean } = {}): Clip[] {
  const { db, store } = fixtureProject('duration');
  const ds = insertDataset(db, 'target', list.map((c) => ({ speaker: options.speakers === false ? null : c.speaker, groups: { g: c.group }, transcript: c.transcript, durationS: c.durationS })));
  const rows = listClips(db, ds.id);
  store.close();
  return rows;
}

const split = (rows: Clip[]) => ({ X: rows.filter((c) => c.groups.g === 'x'), Y: rows.filter((c) => c.groups.g === 'y') });

describe('duration check', () => {
  it('both groups read the same sentences: a paired t-test over sentences (scipy.stats.ttest_rel of per-sentence means), whatever the storage order', () => {
    const g = golden.duration_by_sentence;
    const { X, Y } = split(clipsOf(g.clips));
    const r = durationCheck(X, Y)!;
    expect(r).toMatchObject({ test: 'paired-t', unit: 'sentence', units: { x: g.sentences, y: g.sentences } });
    expect(r.t).toBeCloseTo(g.t, 10);
    expect(r.df).toBe(g.df);
    expect(r.pValue).toBeCloseTo(g.p, 12);
    expect(r.meanDifference).toBeCloseTo(g.meanDifference, 12);
    // Storage order does not enter: reversed and rotated lists give the same test.
    expect(durationCheck([...X].reverse(), [...Y.slice(3), ...Y.slice(0, 3)])).toEqual(r);
  });

  it('the design built by designSpeatTest (X[i], Y[i] drawn at random) carries the same sentence-paired check', () => {
    const g = golden.duration_by_sentence;
    const rows = clipsOf(g.clips);
    for (const seed of [1, 2]) {
      const d = designSpeatTest(rows, { label: 'g', x: 'x', y: 'y', seed });
      // Equal group sizes: every clip is in the design, so the check covers all of them.
      expect(d.X.length + d.Y.length).toBe(rows.length);
      expect(d.durationCheck!.t).toBeCloseTo(g.t, 10);
    }
  });

  it('the groups read different sentences: Welch on speaker means (scipy), or on clips labelled as such when speakers are unknown', () => {
    const g = golden.duration_speakers;
    const { X, Y } = split(clipsOf(g.clips));
    const r = durationCheck(X, Y)!;
    expect(r).toMatchObject({ test: 'welch-t', unit: 'speaker', units: { x: g.units[0], y: g.units[1] } });
    expect(r.t).toBeCloseTo(g.t, 10);
    expect(r.df).toBeCloseTo(g.df, 10);
    expect(r.pValue).toBeCloseTo(g.p, 12);
    expect(r.meanDifference).toBeCloseTo(g.difference, 12);
    const anonymous = split(clipsOf(g.clips, { speakers: false }));
    const c = durationCheck(anonymous.X, anonymous.Y)!;
    expect(c).toMatchObject({ test: 'welch-t', unit: 'clip', units: { x: anonymous.X.length, y: anonymous.Y.length } });
  });

  it('a clip without a transcript, or one sentence only, is not a sentence design; no durations, no check', () => {
    const g = golden.duration_by_sentence;
    const rows = clipsOf(g.clips);
    const { X, Y } = split(rows);
    expect(durationCheck([{ ...X[0]!, transcript: null }, ...X.slice(1)], Y)!.unit).toBe('speaker');
    const one = (c: Clip) => ({ ...c, transcript: 'the same sentence' });
    expect(durationCheck(X.map(one), Y.map(one))!.unit).toBe('speaker');
    expect(durationCheck([{ ...X[0]!, durationS: null }, ...X.slice(1)], Y)).toBeNull();
  });
});
