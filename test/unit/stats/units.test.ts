/**
 * Speakers as the unit of inference (issue 32.4, METHODS.md § The unit of inference) against
 * independent computations (test/golden/units_golden.py: scipy and exact enumerations):
 * Welch's t-test on speaker means with its CI (SER's group comparison and the duration
 * check's fallback), the FDI speaker bootstrap against its exact distribution, and the
 * speaker-label shuffle null against its exact p, through `stats fdi` with speaker columns.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Options, type CliContext } from '../../../src/main/cli/args';
import { statsCommands } from '../../../src/main/cli/stats';
import { parseCommandLine } from '../../../src/main/cli/usage';
import { bootstrapFdiSpeakers, compareOnSpeakerMeans, type FdiItems } from '../../../src/main/stats';

interface Welch {
  t: number;
  df: number;
  p: number;
  difference: number;
  ci95: [number, number];
  units: [number, number];
}
interface FdiTrial {
  group: string;
  label: 0 | 1;
  score: number;
  enrol: string;
  test: string;
}
const golden = JSON.parse(readFileSync(fileURLToPath(new URL('../../golden/units_golden.json', import.meta.url)), 'utf8')) as {
  welch_speaker_means: { x: number[]; y: number[]; speakersX: string[]; speakersY: string[]; bySpeaker: Welch & { meanX: number; meanY: number }; byClip: Welch };
  fdi_speakers: { threshold: number; trials: FdiTrial[]; fdi: number; bootstrap: { pUndefined: number; mean: number; sd: number; q: Record<string, number> }; null: { p: number; assignments: number; total: number } };
};

function expectWelch(r: ReturnType<typeof compareOnSpeakerMeans>, want: Welch): void {
  expect(r.t).toBeCloseTo(want.t, 10);
  expect(r.df).toBeCloseTo(want.df, 10);
  expect(r.pValue).toBeCloseTo(want.p, 12);
  expect(r.difference).toBeCloseTo(want.difference, 12);
  expect(r.ci95[0]).toBeCloseTo(want.ci95[0], 9);
  expect(r.ci95[1]).toBeCloseTo(want.ci95[1], 9);
  expect([r.units.x, r.units.y]).toEqual(want.units);
}

describe('Welch on speaker means (scipy.stats.ttest_ind, equal_var=False)', () => {
  const g = golden.welch_speaker_means;
  it('with speaker ids: the speakers are the unit; t, df, p and the 95% CI as scipy', () => {
    const r = compareOnSpeakerMeans(g.x, g.y, g.speakersX, g.speakersY);
    expect(r.unit).toBe('speaker');
    expect(r.clips).toEqual({ x: g.x.length, y: g.y.length });
    expect(r.meanX).toBeCloseTo(g.bySpeaker.meanX, 12);
    expect(r.meanY).toBeCloseTo(g.bySpeaker.meanY, 12);
    expectWelch(r, g.bySpeaker);
  });

  it('without them (or with one missing): clips, labelled as such, and a far smaller p than the speakers allow', () => {
    const r = compareOnSpeakerMeans(g.x, g.y);
    expect(r.unit).toBe('clip');
    expectWelch(r, g.byClip);
    const missing = compareOnSpeakerMeans(g.x, g.y, [...g.speakersX.slice(0, -1), ''], g.speakersY);
    expect(missing.unit).toBe('clip');
    expect(r.pValue).toBeLessThan(g.bySpeaker.p / 100);
  });

  it('fewer than 2 speakers in a group: refused, not a made-up p', () => {
    expect(() => compareOnSpeakerMeans([1, 2, 3], [4, 5, 6], ['a', 'a', 'a'], ['b', 'c', 'd'])).toThrow(/at least 2 units per group/);
  });
});

const items = (trials: FdiTrial[]): FdiItems => ({
  groups: trials.map((t) => t.group),
  labels: Int8Array.from(trials, (t) => t.label),
  scores: Float64Array.from(trials, (t) => t.score),
  speakers: { enrol: trials.map((t) => t.enrol), test: trials.map((t) => t.test) },
});

describe('FDI with speakers: bootstrap over speakers and the speaker-label shuffle', () => {
  const f = golden.fdi_speakers;
  const R = 20_000;

  it('the bootstrap draws speakers: undefined share, mean and SD of FDI as the exact enumeration, within Monte Carlo error', () => {
    const { reps, dropped } = bootstrapFdiSpeakers(items(f.trials), f.threshold, R, 0.5, 'harm', 11);
    const b = f.bootstrap;
    expect(Math.abs(dropped / R - b.pUndefined)).toBeLessThan(4 * Math.sqrt((b.pUndefined * (1 - b.pUndefined)) / R));
    const ok = Array.from(reps).filter((v) => Number.isFinite(v));
    expect(ok.length).toBe(R - dropped);
    const mean = ok.reduce((a, v) => a + v, 0) / ok.length;
    const sd = Math.sqrt(ok.reduce((a, v) => a + (v - mean) ** 2, 0) / (ok.length - 1));
    expect(Math.abs(mean - b.mean)).toBeLessThan(4 * (b.sd / Math.sqrt(ok.length)));
    // SE of a sample SD ≈ sd / sqrt(2n) for near-normal data; the FDI's lumpy distribution gets twice that.
    expect(Math.abs(sd - b.sd)).toBeLessThan(8 * (b.sd / Math.sqrt(2 * ok.length)));
  });

  it('`stats fdi` with enrol_speaker and test_speaker: the observed FDI, a CI from the speaker bootstrap at the exact quantiles, and the exact speaker-shuffle p', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'equivox-units-'));
    try {
      const csv = join(dir, 'trials.csv');
      writeFileSync(csv, `group,label,score,enrol_speaker,test_speaker\n${f.trials.map((t) => [t.group, t.label, t.score, t.enrol, t.test].join(',')).join('\n')}\n`);
      const ctx: CliContext = { log: () => {}, progress: () => {} };
      const args = parseCommandLine(['stats', 'fdi', '--input', csv, '--threshold', String(f.threshold), '--bootstrap', String(R), '--null-permutations', String(R), '--seed', '3']);
      const r = JSON.parse(JSON.stringify(await statsCommands.find((c) => c.path.join(' ') === 'stats fdi')!.run(new Options(args), [], ctx))) as {
        fdi: number;
        fdiCi95: [number, number];
        fdiCi: { unit: string; resamples: number; dropped: number };
        null: { pValue: number; unit: string; permutations: number; skipped: number };
      };
      expect(r.fdi).toBeCloseTo(f.fdi, 12);
      expect(r.fdiCi.unit).toBe('speaker');
      expect(r.fdiCi.resamples).toBe(R);
      // The percentile CI lies within the exact distribution's 2–3% and 97–98% quantiles.
      expect(r.fdiCi95[0]).toBeGreaterThanOrEqual(f.bootstrap.q['0.02']! - 1e-9);
      expect(r.fdiCi95[0]).toBeLessThanOrEqual(f.bootstrap.q['0.03']! + 1e-9);
      expect(r.fdiCi95[1]).toBeGreaterThanOrEqual(f.bootstrap.q['0.97']! - 1e-9);
      expect(r.fdiCi95[1]).toBeLessThanOrEqual(f.bootstrap.q['0.98']! + 1e-9);
      expect(r.null.unit).toBe('speaker');
      const kept = R - r.null.skipped;
      const se = Math.sqrt((f.null.p * (1 - f.null.p)) / kept);
      expect(Math.abs(r.null.pValue - f.null.p)).toBeLessThan(4 * se + 1 / kept);
      // Some assignments leave a group without genuine or impostor trials: about that share of shuffles is skipped.
      const pSkip = 1 - f.null.assignments / f.null.total;
      expect(Math.abs(r.null.skipped / R - pSkip)).toBeLessThan(4 * Math.sqrt((pSkip * (1 - pSkip)) / R));
      // Without the speaker columns the same file is analysed trial by trial, and says so.
      writeFileSync(csv, `group,label,score\n${f.trials.map((t) => [t.group, t.label, t.score].join(',')).join('\n')}\n`);
      const plain = JSON.parse(JSON.stringify(await statsCommands.find((c) => c.path.join(' ') === 'stats fdi')!.run(new Options(parseCommandLine(['stats', 'fdi', '--input', csv, '--threshold', String(f.threshold), '--bootstrap', '200', '--null-permutations', '200'])), [], ctx))) as typeof r;
      expect(plain.fdiCi.unit).toBe('trial');
      expect(plain.null.unit).toBe('trial');
      // One speaker column without the other is refused, naming the missing one.
      writeFileSync(csv, `group,label,score,enrol_speaker\n${f.trials.map((t) => [t.group, t.label, t.score, t.enrol].join(',')).join('\n')}\n`);
      await expect(statsCommands.find((c) => c.path.join(' ') === 'stats fdi')!.run(new Options(parseCommandLine(['stats', 'fdi', '--input', csv])), [], ctx)).rejects.toThrow(/give both enrol_speaker and test_speaker/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
