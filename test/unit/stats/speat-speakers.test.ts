/**
 * SpEAT with speakers as the unit (METHODS.md § The unit of inference) through `stats speat`:
 * exact speaker-level p against an itertools enumeration, the sampled p against a numpy
 * Monte Carlo reference, the speaker bootstrap against numpy, and the MDE under the speaker
 * design checked by its definition (the real test's power at the stated MDE).
 * Goldens: test/golden/speat_speakers.py (python3 test/golden/speat_speakers.py).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { Options, type CliContext } from '../../../src/main/cli/args';
import { parseCommandLine } from '../../../src/main/cli/usage';
import { statsCommands } from '../../../src/main/cli/stats';
import { bootstrapSpeatSE, BootstrapPlan, Rng, SpeakerDesign, speakerPermutationTest, speatAssociations, speatMde } from '../../../src/main/stats';
import { fixture } from './golden';

const goldens = JSON.parse(readFileSync(fileURLToPath(new URL('../../golden/speat_speakers.json', import.meta.url)), 'utf8')) as Record<string, { command: string; value: unknown }>;
const gv = <T = number>(name: string): T => {
  const e = goldens[name];
  if (!e) throw new Error(`no golden value "${name}"`);
  return e.value as T;
};

const ctx: CliContext = { log: () => {}, progress: () => {} };
async function cli(argv: string[]): Promise<Record<string, unknown>> {
  const args = parseCommandLine(argv);
  const cmd = statsCommands.find((c) => c.path.join(' ') === args.command);
  if (!cmd) throw new Error(`no command ${argv.join(' ')}`);
  return JSON.parse(JSON.stringify(await cmd.run(new Options(args), args.positionals, ctx))) as Record<string, unknown>;
}

interface Doc {
  X: number[][];
  Y: number[][];
  A: number[][];
  B: number[][];
  speakersX: string[];
  speakersY: string[];
}
const doc = (name: string) => JSON.parse(readFileSync(fixture(`${name}.json`), 'utf8')) as Doc;
const dir = mkdtempSync(join(tmpdir(), 'equivox-speat-speakers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const write = (name: string, value: unknown) => {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(value));
  return file;
};

describe('stats speat with speakersX / speakersY: exact speaker-level p', () => {
  const cases: [string, number][] = [
    ['speat_spk_between', 126],
    ['speat_spk_within', 64],
    ['speat_spk_mixed', 160],
    ['speat_spk_null', 70],
  ];
  for (const [name, splits] of cases) {
    it(`${name}: one- and two-sided p equal the itertools enumeration over ${splits} speaker splits; the paper's clip-level test beside it`, async () => {
      // Enough permutations to enumerate the clip-level splits too (up to 2.7 million).
      const r = await cli(['stats', 'speat', '--input', fixture(`${name}.json`), '--permutations', '3000000']);
      const [one, two, total] = gv<number[]>(`${name}.speaker_exact`);
      expect(total).toBe(splits);
      expect(r.unit).toBe('speaker');
      expect(r.exact).toBe(true);
      expect(r.permutations).toBe(total);
      expect(r.pValue).toBe(one);
      expect(r.pTwoSided).toBe(two);
      expect(r.effectSize as number).toBeCloseTo(gv(`${name}.d`), 12);
      const [clipOne, clipTwo, clipTotal] = gv<number[]>(`${name}.clip_exact`);
      expect(r.clipLevel).toEqual({ pValue: clipOne, pTwoSided: clipTwo, exact: true, permutations: clipTotal });
      // unit sits beside pTwoSided in the printed JSON.
      const keys = Object.keys(r);
      expect(keys.indexOf('unit')).toBe(keys.indexOf('pTwoSided') + 1);
    });
  }

  it('names the speakers: only X, only Y, recorded in both groups', async () => {
    expect((await cli(['stats', 'speat', '--input', fixture('speat_spk_between.json')])).speakers).toEqual({ onlyX: 5, onlyY: 4, both: 0 });
    expect((await cli(['stats', 'speat', '--input', fixture('speat_spk_within.json')])).speakers).toEqual({ onlyX: 0, onlyY: 0, both: 6 });
    expect((await cli(['stats', 'speat', '--input', fixture('speat_spk_mixed.json')])).speakers).toEqual({ onlyX: 3, onlyY: 3, both: 3 });
  });

  it('clustered data: the clip-level test is far more confident than the speaker-level one', () => {
    const [, speaker] = gv<number[]>('speat_spk_between.speaker_exact');
    const [, clip] = gv<number[]>('speat_spk_between.clip_exact');
    expect(clip).toBeLessThan(0.05);
    expect(speaker).toBeGreaterThan(0.1);
  });

  it('the same test from the associations with the same speakers (as a report attaches them, pseudonymised in order of first appearance)', async () => {
    const d = doc('speat_spk_mixed');
    const s = speatAssociations(d);
    const names = new Map<string, string>();
    const pseudo = (id: string) => names.get(id) ?? (names.set(id, `s${names.size + 1}`), names.get(id)!);
    const speakersX = d.speakersX.map(pseudo);
    const file = write('assoc.json', { X: Array.from(s.X), Y: Array.from(s.Y), speakersX, speakersY: d.speakersY.map(pseudo) });
    for (const permutations of ['100', '100000']) {
      const fromEmb = await cli(['stats', 'speat', '--input', fixture('speat_spk_mixed.json'), '--permutations', permutations, '--seed', '5']);
      const fromAssoc = await cli(['stats', 'speat', '--associations', file, '--permutations', permutations, '--seed', '5']);
      expect(fromAssoc.unit).toBe('speaker');
      expect(fromAssoc.pValue).toBe(fromEmb.pValue);
      expect(fromAssoc.pTwoSided).toBe(fromEmb.pTwoSided);
      expect(fromAssoc.exact).toBe(permutations === '100000');
    }
  });

  it('speakers with one clip each: unit clip, the same numbers as without speakers', async () => {
    const d = doc('speat_spk_between');
    const file = write('singletons.json', { ...d, speakersX: d.X.map((_, i) => `x${i}`), speakersY: d.Y.map((_, i) => `y${i}`) });
    const plain = write('plain.json', { X: d.X, Y: d.Y, A: d.A, B: d.B });
    const a = await cli(['stats', 'speat', '--input', file, '--permutations', '5000', '--seed', '3']);
    const b = await cli(['stats', 'speat', '--input', plain, '--permutations', '5000', '--seed', '3']);
    expect(a.unit).toBe('clip');
    expect(b.unit).toBe('clip');
    expect(a.clipLevel).toBeUndefined();
    expect([a.pValue, a.pTwoSided, a.exact, a.permutations]).toEqual([b.pValue, b.pTwoSided, b.exact, b.permutations]);
  });
});

describe('stats speat with speakers: sampled p', () => {
  it('speat_spk_large (C(28, 14) speaker splits): pTwoSided within 0.01 of a 400,000-split numpy reference for any seed, (1 + hits) / N, reproducible', async () => {
    for (const seed of ['0', '9']) {
      const r = await cli(['stats', 'speat', '--input', fixture('speat_spk_large.json'), '--permutations', '100000', '--seed', seed]);
      expect(r.unit).toBe('speaker');
      expect(r.exact).toBe(false);
      expect(r.permutations).toBe(100_000);
      expect(r.effectSize as number).toBeCloseTo(gv('speat_spk_large.d'), 12);
      expect(Math.abs((r.pTwoSided as number) - gv('speat_spk_large.sampled_two_sided'))).toBeLessThan(0.01);
      // (1 + hits) / N: a whole number of hits, never below 1 / N.
      const hits = (r.pTwoSided as number) * 100_000 - 1;
      expect(Math.abs(hits - Math.round(hits))).toBeLessThan(1e-6);
      const again = await cli(['stats', 'speat', '--input', fixture('speat_spk_large.json'), '--permutations', '100000', '--seed', seed]);
      expect(again.pTwoSided).toBe(r.pTwoSided);
      expect(again.pValue).toBe(r.pValue);
    }
  });

  it('the one-sided and two-sided counts come from the same splits: with d > 0, p one-sided ≤ p two-sided ≤ 2 p one-sided + 1/N', () => {
    const d = doc('speat_spk_large');
    const s = speatAssociations(d);
    const design = SpeakerDesign.of(d.speakersX, d.speakersY)!;
    const r = speakerPermutationTest(s.X, s.Y, design, { permutations: 20_000, seed: 4 });
    expect(r.pValue).toBeLessThanOrEqual(r.pTwoSided);
    expect(r.pTwoSided).toBeLessThanOrEqual(2 * r.pValue + 1 / 20_000 + 0.01);
  });
});

describe('stats speat with speakers: bad input names the field', () => {
  const base = doc('speat_spk_between');
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['a wrong length', { ...base, speakersX: base.speakersX.slice(1) }, /"speakersX" has 9 speaker ids for 10 rows of X/],
    ['one list without the other', { ...base, speakersY: undefined }, /"speakersY" is missing/],
    ['a number for an id', { ...base, speakersX: base.speakersX.map((s, i) => (i === 2 ? 7 : s)) }, /speakersX\[2\] must be a non-empty speaker id/],
    ['an empty id', { ...base, speakersY: base.speakersY.map((s, i) => (i === 4 ? ' ' : s)) }, /speakersY\[4\] must be a non-empty speaker id/],
  ];
  for (const [what, value, message] of cases) {
    it(what, async () => {
      await expect(cli(['stats', 'speat', '--input', write('bad.json', value)])).rejects.toThrow(message);
    });
  }

  it('--paired with speakers that have several clips', async () => {
    await expect(cli(['stats', 'speat', '--input', fixture('speat_spk_between.json'), '--bootstrap', '100', '--sample-sizes', '3', '--paired'])).rejects.toThrow(/resamples speakers with all their clips; leave out --paired/);
  });
});

describe('speaker bootstrap', () => {
  it('SE at 3 speakers per group and as compared (5 and 4 speakers) equal numpy with 100,000 resamples within 3%', async () => {
    const r = await cli(['stats', 'speat', '--input', fixture('speat_spk_between.json'), '--bootstrap', '20000', '--sample-sizes', '3']);
    expect(r.bootstrap).toEqual({ resamples: 20000, design: 'speakers' });
    const [se3] = r.standardErrors as { size: number; standardError: number }[];
    expect(se3!.size).toBe(3);
    expect(Math.abs(se3!.standardError / gv('speat_spk_between.se_k3') - 1)).toBeLessThan(0.03);
    const d = doc('speat_spk_between');
    const s = speatAssociations(d);
    const plan = new BootstrapPlan(s.X, s.Y, { resamples: 20_000, seed: 1, design: { kind: 'speakers', speakersX: d.speakersX, speakersY: d.speakersY } });
    const compared = plan.comparedPoint(500);
    expect(compared.size).toBe(4);
    expect(Math.abs(compared.standardError / gv('speat_spk_between.se_compared') - 1)).toBeLessThan(0.03);
  });

  it('speakers recorded in both groups: each resampled speaker brings its X and its Y clips (numpy within 3%)', async () => {
    const r = await cli(['stats', 'speat', '--input', fixture('speat_spk_within.json'), '--bootstrap', '20000', '--sample-sizes', '4']);
    const [se4] = r.standardErrors as { size: number; standardError: number }[];
    expect(Math.abs(se4!.standardError / gv('speat_spk_within.se_k4') - 1)).toBeLessThan(0.03);
  });

  it('each size from its own stream (threads may compute any subset), and wider than the clip bootstrap on clustered data', () => {
    const d = doc('speat_spk_between');
    const s = speatAssociations(d);
    const design = { kind: 'speakers' as const, speakersX: d.speakersX, speakersY: d.speakersY };
    const all = bootstrapSpeatSE(s.X, s.Y, [2, 3, 4], { resamples: 2000, seed: 8, design });
    expect(new BootstrapPlan(s.X, s.Y, { resamples: 2000, seed: 8, design }).point(4, 2)).toEqual(all[2]);
    // 5 speakers hold about 10 clips: resampling clips as independent understates the SE.
    const clip = bootstrapSpeatSE(s.X, s.Y, [10], { resamples: 2000, seed: 8 })[0]!;
    const speaker = bootstrapSpeatSE(s.X, s.Y, [5], { resamples: 2000, seed: 8, design })[0]!;
    expect(speaker.standardError).toBeGreaterThan(1.3 * clip.standardError);
  });
});

/**
 * The real speaker-level test's power in audits drawn as speatMde draws them (speakers with
 * replacement per kind, each group centred, speaker means scaled by √(m/(m−1))), at the
 * shift the MDE states: its definition says about 0.8.
 */
function powerAtStatedMde(d: Doc, alpha: number, sims: number): { power: number; mde: ReturnType<typeof speatMde> } {
  const s = speatAssociations(d);
  const speakers = { X: d.speakersX, Y: d.speakersY };
  const mde = speatMde(s.X, s.Y, { alpha, permutations: 2000, speakers, seed: 1 });
  const design = SpeakerDesign.of(d.speakersX, d.speakersY)!;
  const centre = (v: Float64Array) => {
    const m = v.reduce((a, b) => a + b, 0) / v.length;
    return v.map((x) => x - m);
  };
  const px = centre(s.X);
  const py = centre(s.Y);
  const withinSd = Math.sqrt(([...px, ...py].reduce((a, v) => a + v * v, 0)) / (px.length + py.length - 2));
  const shift = mde.standardisedShift! * withinSd;
  const inflate = (v: Float64Array, rows: readonly (readonly number[])[], list: readonly number[]) => {
    const k = list.length > 1 ? Math.sqrt(list.length / (list.length - 1)) : 1;
    for (const sp of list) {
      const mean = rows[sp]!.reduce((a, i) => a + v[i]!, 0) / rows[sp]!.length;
      for (const i of rows[sp]!) v[i] = v[i]! + mean * (k - 1);
    }
  };
  inflate(px, design.rowsX, design.onlyX);
  inflate(py, design.rowsY, design.onlyY);
  const rng = new Rng(424242);
  let hits = 0;
  for (let r = 0; r < sims; r += 1) {
    const X: number[] = [];
    const Y: number[] = [];
    const SX: string[] = [];
    const SY: string[] = [];
    design.onlyX.forEach((_, k) => {
      const sp = design.onlyX[rng.nextInt(design.onlyX.length)]!;
      for (const i of design.rowsX[sp]!) {
        X.push(px[i]! + shift);
        SX.push(`x${k}`);
      }
    });
    design.onlyY.forEach((_, k) => {
      const sp = design.onlyY[rng.nextInt(design.onlyY.length)]!;
      for (const i of design.rowsY[sp]!) {
        Y.push(py[i]!);
        SY.push(`y${k}`);
      }
    });
    const res = speakerPermutationTest(Float64Array.from(X), Float64Array.from(Y), SpeakerDesign.of(SX, SY)!, { permutations: 2000, seed: r });
    if (res.pTwoSided < alpha) hits += 1;
  }
  return { power: hits / sims, mde };
}

describe('MDE under the speaker design', () => {
  it('few speakers (5 and 4; exact judging): the real test has about 80% power at the stated MDE', () => {
    const { power, mde } = powerAtStatedMde(doc('speat_spk_between'), 0.05, 400);
    expect(mde.unit).toBe('speaker');
    expect(mde.speakers).toEqual({ onlyX: 5, onlyY: 4, both: 0 });
    expect(mde.smallestP).toBeCloseTo(1 / 126, 15);
    expect(mde.method).toMatch(/exact, every split of speakers/);
    expect(power).toBeGreaterThan(0.72);
    expect(power).toBeLessThan(0.88);
  });

  it("14 and 14 speakers (Pitman's approximation): the real test has about 80% power at the stated MDE", () => {
    const { power, mde } = powerAtStatedMde(doc('speat_spk_large'), 0.05, 300);
    expect(mde.method).toMatch(/Pitman's t approximation/);
    expect(power).toBeGreaterThan(0.72);
    expect(power).toBeLessThan(0.88);
  });

  it('larger than the clip-level MDE on clustered data; none when no split of the speakers can reach alpha', () => {
    const d = doc('speat_spk_between');
    const s = speatAssociations(d);
    const bySpeaker = speatMde(s.X, s.Y, { alpha: 0.05, permutations: 2000, speakers: { X: d.speakersX, Y: d.speakersY }, seed: 1 });
    const byClip = speatMde(s.X, s.Y, { alpha: 0.05, permutations: 2000, seed: 1 });
    expect(byClip.unit).toBe('clip');
    expect(bySpeaker.d!).toBeGreaterThan(byClip.d!);
    // 3 speakers per group: C(6, 3) = 20 splits, the smallest two-sided p 2/20 = 0.1 > 0.05.
    const keepX = d.speakersX.map((id) => ['ana', 'ben', 'cy'].includes(id));
    const keepY = d.speakersY.map((id) => ['fay', 'gus', 'hal'].includes(id));
    const three = speatMde(s.X.filter((_, i) => keepX[i]), s.Y.filter((_, i) => keepY[i]), { alpha: 0.05, permutations: 2000, speakers: { X: d.speakersX.filter((_, i) => keepX[i]), Y: d.speakersY.filter((_, i) => keepY[i]) } });
    expect(three.smallestP).toBeCloseTo(0.1, 15);
    expect(three.d).toBeNull();
  });
});
