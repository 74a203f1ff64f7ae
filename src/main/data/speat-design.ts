/**
 * Designing a SpEAT test from imported data: target sets X and Y chosen by a group
 * label, optionally matched on other labels with a stratified, seeded sample per cell,
 * a test of clip duration between the two sets (the confound check the SpEAT paper
 * reports, paired by sentence where the groups read the same sentences), and attribute
 * sets A/B from a valence-rated dataset.
 */
import { compareOnSpeakerMeans, mean, normalizeText, pairedTTest, Rng, StatsInputError } from '../stats';
import type { Clip } from './repository';

export interface SpeatDesignOptions {
  /** Group label that defines the targets, e.g. "accent". */
  label: string;
  x: string;
  y: string;
  /** Labels to match X and Y on, e.g. ["gender", "rate"]; clips lacking one are left out. */
  matchOn?: string[];
  /** Clips per group and cell; default: as many as the smaller side of each cell holds. */
  perCell?: number;
  /**
   * Cap on stimuli per group: a seeded random sample of pairs within each cell, the cap
   * shared over the cells in proportion to their sizes (METHODS.md: never the first rows).
   */
  maxPerGroup?: number;
  seed?: number;
}

export interface DesignCell {
  /** e.g. {gender: "female"}; {} when unmatched. */
  key: Record<string, string>;
  xAvailable: number;
  yAvailable: number;
  sampled: number;
}

/**
 * The duration confound check (METHODS.md § The unit of inference, Confound checks): what
 * was compared and how. Never a pairing in storage order.
 */
export interface DurationCheck {
  test: 'paired-t' | 'welch-t';
  /** sentence: paired by sentence; speaker: Welch on speaker means; clip: Welch on clips (speakers unknown). */
  unit: 'sentence' | 'speaker' | 'clip';
  /** Units compared: sentences (the same number on both sides), speakers or clips per group. */
  units: { x: number; y: number };
  /** X minus Y, seconds: mean over sentences of the per-sentence difference, or of the unit means. */
  meanDifference: number;
  t: number;
  df: number;
  pValue: number;
}

export interface SpeatDesign {
  label: string;
  x: string;
  y: string;
  matchOn: string[];
  /** X[i] and Y[i] are a matched pair (same cell). */
  X: Clip[];
  Y: Clip[];
  cells: DesignCell[];
  durationCheck: DurationCheck | null;
  warnings: string[];
}

/** A seeded uniform [0, 1) source from the statistics engine's PRNG (same on every platform). */
function rng(seed: number): () => number {
  const r = new Rng(seed, 31);
  return () => r.nextFloat();
}

function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const a = [...items];
  for (let i = a.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}

/** A clip's sentence: its transcript under the basic normalisation (case, punctuation, spacing), or null. */
function sentenceOf(c: Clip): string | null {
  const t = c.transcript === null ? '' : normalizeText(c.transcript, 'basic');
  return t === '' ? null : t;
}

/**
 * Duration of X against Y, on the unit that respects how the recordings were made:
 * - both groups read the same sentences (every clip has a transcript and the two groups'
 *   sets of sentences are equal, at least 2 of them): a paired t-test over sentences, each
 *   pair the mean duration of the sentence's X clips against that of its Y clips. Sentence
 *   length then cancels out, and no clip is paired with another by the order they are stored
 *   in. (Speakers recur across sentences, so this may call a difference sooner than a
 *   speaker-level test would; for a confound warning that errs on the safe side.)
 * - otherwise Welch's t-test on speaker means, or on clips when some clip has no speaker id.
 * Null when there is nothing to test (a group with fewer than 2 units, missing durations).
 */
export function durationCheck(X: readonly Clip[], Y: readonly Clip[]): DurationCheck | null {
  if (X.length < 2 || Y.length < 2) return null;
  if (!X.every((c) => c.durationS !== null) || !Y.every((c) => c.durationS !== null)) return null;
  const bySentence = (clips: readonly Clip[]) => {
    const m = new Map<string, number[]>();
    for (const c of clips) {
      const s = sentenceOf(c)!;
      m.set(s, [...(m.get(s) ?? []), c.durationS!]);
    }
    return m;
  };
  const allRead = X.every((c) => sentenceOf(c) !== null) && Y.every((c) => sentenceOf(c) !== null);
  if (allRead) {
    const sx = bySentence(X);
    const sy = bySentence(Y);
    const same = sx.size === sy.size && [...sx.keys()].every((k) => sy.has(k));
    if (same && sx.size >= 2) {
      const sentences = [...sx.keys()].sort();
      const r = pairedTTest(sentences.map((k) => mean(sx.get(k)!)), sentences.map((k) => mean(sy.get(k)!)));
      return { test: 'paired-t', unit: 'sentence', units: { x: sentences.length, y: sentences.length }, meanDifference: r.meanDifference, t: r.t, df: r.df, pValue: r.pValue };
    }
  }
  try {
    const r = compareOnSpeakerMeans(X.map((c) => c.durationS!), Y.map((c) => c.durationS!), X.map((c) => c.speaker), Y.map((c) => c.speaker));
    return { test: 'welch-t', unit: r.unit, units: r.units, meanDifference: r.difference, t: r.t, df: r.df, pValue: r.pValue };
  } catch (err) {
    if (err instanceof StatsInputError) return null;
    throw err;
  }
}

/** Distinct values of a label over clips, with counts (for the wizard's pickers). */
export function labelValues(clips: readonly Clip[], label: string): { value: string; clips: number }[] {
  const m = new Map<string, number>();
  for (const c of clips) {
    const v = c.groups[label];
    if (v !== undefined) m.set(v, (m.get(v) ?? 0) + 1);
  }
  return [...m.entries()].map(([value, n]) => ({ value, clips: n })).sort((a, b) => (a.value < b.value ? -1 : 1));
}

/**
 * Build X and Y from usable clips. X and Y always have equal size (the permutation
 * test splits X ∪ Y into equal halves) and X[i], Y[i] share a cell. Unmatched designs are
 * one cell. The duration check pairs by sentence, never X[i] with Y[i] (durationCheck).
 */
export function designSpeatTest(clips: readonly Clip[], options: SpeatDesignOptions): SpeatDesign {
  const matchOn = options.matchOn ?? [];
  if (options.x === options.y) throw new RangeError('X and Y must be different groups');
  if (matchOn.includes(options.label)) throw new RangeError(`cannot match on "${options.label}", the label that defines X and Y`);
  const random = rng(options.seed ?? 1);
  const warnings: string[] = [];
  const cells = new Map<string, { key: Record<string, string>; xs: Clip[]; ys: Clip[] }>();
  let missingMatch = 0;
  for (const c of clips) {
    const g = c.groups[options.label];
    if (g !== options.x && g !== options.y) continue;
    const key: Record<string, string> = {};
    let complete = true;
    for (const m of matchOn) {
      const v = c.groups[m];
      if (v === undefined) complete = false;
      else key[m] = v;
    }
    if (!complete) {
      missingMatch += 1;
      continue;
    }
    const k = JSON.stringify(matchOn.map((m) => key[m]));
    const cell = cells.get(k) ?? { key, xs: [], ys: [] };
    (g === options.x ? cell.xs : cell.ys).push(c);
    cells.set(k, cell);
  }
  if (missingMatch) warnings.push(`${missingMatch} clip(s) lack a ${matchOn.join(' or ')} label and were left out of the matched design`);
  const X: Clip[] = [];
  const Y: Clip[] = [];
  const out: DesignCell[] = [];
  const drawn = [...cells.entries()]
    .sort((a, b) => (a[0] < b[0] ? -1 : 1))
    .map(([, cell]) => {
      const available = Math.min(cell.xs.length, cell.ys.length);
      const n = options.perCell === undefined ? available : Math.min(options.perCell, available);
      if (options.perCell !== undefined && available < options.perCell) {
        warnings.push(`cell ${JSON.stringify(cell.key)}: only ${available} clip(s) on the smaller side, fewer than the ${options.perCell} asked for`);
      }
      // Shuffled with the seed: any prefix is a random sample of the cell.
      return { cell, n, xs: shuffled(cell.xs, random), ys: shuffled(cell.ys, random) };
    });
  const total = drawn.reduce((acc, d) => acc + d.n, 0);
  if (options.maxPerGroup !== undefined && total > options.maxPerGroup) {
    // Largest-remainder shares of the cap, so every cell keeps its proportion (ties: cell order).
    const cap = options.maxPerGroup;
    const exact = drawn.map((d) => (cap * d.n) / total);
    const quota = exact.map(Math.floor);
    let left = cap - quota.reduce((a, b) => a + b, 0);
    const order = exact.map((e, i) => [e - Math.floor(e), i] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
    for (const [, i] of order) {
      if (left <= 0) break;
      quota[i] += 1;
      left -= 1;
    }
    drawn.forEach((d, i) => (d.n = quota[i]!));
    warnings.push(`capped at ${cap} stimuli per group: a seeded random sample of ${cap} of ${total} pairs, spread over the ${drawn.length} cell(s) in proportion to their size`);
  }
  for (const d of drawn) {
    X.push(...d.xs.slice(0, d.n));
    Y.push(...d.ys.slice(0, d.n));
    out.push({ key: d.cell.key, xAvailable: d.cell.xs.length, yAvailable: d.cell.ys.length, sampled: d.n });
  }
  if (X.length < 8) warnings.push(`${X.length} stimuli per group: fewer than 8, so the effect size is very uncertain`);
  return { label: options.label, x: options.x, y: options.y, matchOn, X, Y, cells: out, durationCheck: durationCheck(X, Y), warnings };
}

export interface AttributeSets {
  /** Pleasant pole: each speaker's k highest-rated clips. */
  A: Clip[];
  /** Unpleasant pole: each speaker's k lowest-rated clips. */
  B: Clip[];
  speakers: { speaker: string; clips: number; high: number[]; low: number[] }[];
  skipped: { speaker: string; clips: number; reason: string }[];
}

/**
 * Attribute sets from a valence-rated dataset (METHODS.md): per speaker the k highest
 * and the k lowest rated clips, so every speaker is equally present in both poles.
 * Speakers with fewer than 2k rated clips are skipped (their poles would overlap).
 * Ties break by row order, so the choice is reproducible.
 */
export function attributeSets(clips: readonly Clip[], k: number): AttributeSets {
  if (!Number.isInteger(k) || k < 1) throw new RangeError('k must be a positive integer');
  const by = new Map<string, Clip[]>();
  for (const c of clips) {
    if (c.valence === null || !c.speaker) continue;
    by.set(c.speaker, [...(by.get(c.speaker) ?? []), c]);
  }
  const out: AttributeSets = { A: [], B: [], speakers: [], skipped: [] };
  for (const speaker of [...by.keys()].sort()) {
    const list = by.get(speaker)!;
    if (list.length < 2 * k) {
      out.skipped.push({ speaker, clips: list.length, reason: `${list.length} rated clips, fewer than 2k = ${2 * k}` });
      continue;
    }
    const sorted = [...list].sort((a, b) => b.valence! - a.valence! || a.rowIndex - b.rowIndex);
    const high = sorted.slice(0, k);
    const low = sorted.slice(-k);
    out.A.push(...high);
    out.B.push(...low);
    out.speakers.push({ speaker, clips: list.length, high: high.map((c) => c.valence!), low: low.map((c) => c.valence!) });
  }
  return out;
}
