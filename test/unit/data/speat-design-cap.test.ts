/**
 * maxPerGroup (issue 13): a cap on target stimuli draws a seeded random sample within each
 * matched cell, spread over the cells in proportion, never the first rows in storage order.
 * Clips come from a real project database (test/unit/audits/fixture.ts).
 */
import { describe, expect, it } from 'vitest';
import { listClips } from '../../../src/main/data/repository';
import { designSpeatTest } from '../../../src/main/data/speat-design';
import { fixtureProject, insertDataset, type FixtureClip } from '../audits/fixture';

describe('capped SpEAT designs', () => {
  it('matched 30 F + 30 M per group with a cap of 30: 15 of each gender in X and Y, a random sample, reproducible', () => {
    const { db, store } = fixtureProject('cap');
    const clips: FixtureClip[] = [];
    // Storage order puts all female clips first: a "first rows" cap would give only female speech.
    for (const gender of ['f', 'm']) for (const accent of ['us', 'uk']) for (let i = 0; i < 30; i += 1) clips.push({ speaker: `${accent}-${gender}-${i}`, groups: { accent, gender } });
    const ds = insertDataset(db, 'target', clips);
    const rows = listClips(db, ds.id);
    const design = (seed: number) => designSpeatTest(rows, { label: 'accent', x: 'us', y: 'uk', matchOn: ['gender'], maxPerGroup: 30, seed });
    const d = design(7);
    expect(d.X).toHaveLength(30);
    expect(d.Y).toHaveLength(30);
    for (const side of [d.X, d.Y]) {
      expect(side.filter((c) => c.groups.gender === 'f')).toHaveLength(15);
      expect(side.filter((c) => c.groups.gender === 'm')).toHaveLength(15);
    }
    // Pairs stay within a cell (the duration check pairs by sentence, not X[i] with Y[i]: duration-check.test.ts).
    d.X.forEach((x, i) => expect(x.groups.gender).toBe(d.Y[i]!.groups.gender));
    expect(d.cells.map((c) => c.sampled)).toEqual([15, 15]);
    expect(d.warnings.some((w) => /capped at 30 stimuli per group: a seeded random sample of 30 of 60 pairs/.test(w))).toBe(true);
    // A random sample, not the first 15 rows of each cell.
    const firstRows = rows.filter((c) => c.groups.accent === 'us' && c.groups.gender === 'f').slice(0, 15).map((c) => c.id);
    expect(d.X.filter((c) => c.groups.gender === 'f').map((c) => c.id).sort()).not.toEqual([...firstRows].sort());
    expect(design(7).X.map((c) => c.id)).toEqual(d.X.map((c) => c.id));
    expect(design(8).X.map((c) => c.id)).not.toEqual(d.X.map((c) => c.id));
    store.close();
  });

  it('uneven cells keep their proportions (largest remainder), and no cap leaves the design as it was', () => {
    const { db, store } = fixtureProject('cap2');
    const clips: FixtureClip[] = [];
    const sizes: Record<string, number> = { a: 10, b: 6, c: 4 };
    for (const [cell, n] of Object.entries(sizes)) for (const g of ['x', 'y']) for (let i = 0; i < n; i += 1) clips.push({ speaker: `${cell}${g}${i}`, groups: { grp: g, cell } });
    const ds = insertDataset(db, 'target', clips);
    const rows = listClips(db, ds.id);
    const capped = designSpeatTest(rows, { label: 'grp', x: 'x', y: 'y', matchOn: ['cell'], maxPerGroup: 7, seed: 1 });
    // 7 × (10, 6, 4) / 20 = 3.5, 2.1, 1.4 → 3, 2, 1 plus one for the largest remainder (0.5, cell a).
    expect(capped.cells.map((c) => c.sampled)).toEqual([4, 2, 1]);
    const free = designSpeatTest(rows, { label: 'grp', x: 'x', y: 'y', matchOn: ['cell'], seed: 1 });
    expect(free.X).toHaveLength(20);
    expect(free.warnings.some((w) => /capped/.test(w))).toBe(false);
    store.close();
  });
});
