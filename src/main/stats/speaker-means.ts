/**
 * A per-clip measure (predicted valence, clip duration) compared between two groups with the
 * speaker as the unit (METHODS.md § The unit of inference): each speaker's clips in a group
 * are averaged, and the two groups' speaker means are compared with Welch's t-test and its
 * 95% CI of the difference. Clips of one speaker share the speaker's voice, so counting them
 * as independent makes a difference between groups look far more certain than it is.
 *
 * Why Welch on speaker means rather than a speaker random intercept: with the group a
 * property of the speaker, the speaker means carry all the information about the group
 * difference; for balanced designs the t-test on them is the mixed model's exact test, and
 * it needs no iterative fit and no degrees-of-freedom approximation (a Wald test of the mixed
 * model is anti-conservative at 5–10 speakers per group, as the WER calibration showed).
 * Welch allows the two groups' speaker spread to differ. Speakers with more clips are not
 * weighted more: slightly less efficient when clip counts differ a lot, never anti-conservative.
 * A speaker who has clips in both groups gets a mean in each, compared as if independent:
 * conservative, since the shared voice makes the two means alike.
 */
import { mean, variance } from './descriptive';
import { tTwoSided, tUpperQuantile } from './special';
import { StatsInputError } from './speat';

export type ComparisonUnit = 'speaker' | 'clip';

export interface UnitMeansComparison {
  /** `speaker` when every clip names its speaker; `clip` otherwise (clips treated as independent). */
  unit: ComparisonUnit;
  test: 'welch-t';
  /** Units compared per group (speakers, or clips when speakers are unknown). */
  units: { x: number; y: number };
  clips: { x: number; y: number };
  /** Mean of the unit means per group. */
  meanX: number;
  meanY: number;
  /** meanX − meanY. */
  difference: number;
  /** 95% Welch CI of the difference (in the measure's own units). */
  ci95: [number, number];
  t: number;
  df: number;
  /** Two-sided Welch p. */
  pValue: number;
}

/** Whether a list of speaker ids names the speaker of every clip. */
export function speakersKnown(speakers: readonly (string | null | undefined)[] | null | undefined, clips: number): speakers is readonly string[] {
  return !!speakers && speakers.length === clips && speakers.every((s) => typeof s === 'string' && s.trim() !== '');
}

/** Per speaker, the mean of its values (speakers in sorted order). */
export function speakerMeans(values: ArrayLike<number>, speakers: readonly string[]): { speaker: string; clips: number; mean: number }[] {
  if (values.length !== speakers.length) throw new StatsInputError('one speaker id is needed per value');
  const acc = new Map<string, { sum: number; n: number }>();
  for (let i = 0; i < values.length; i += 1) {
    const a = acc.get(speakers[i]!) ?? { sum: 0, n: 0 };
    a.sum += values[i]!;
    a.n += 1;
    acc.set(speakers[i]!, a);
  }
  return [...acc.keys()].sort().map((s) => ({ speaker: s, clips: acc.get(s)!.n, mean: acc.get(s)!.sum / acc.get(s)!.n }));
}

/** Welch's t-test with its CI of the difference (scipy.stats.ttest_ind(equal_var=False)). */
export function welchWithCi(x: ArrayLike<number>, y: ArrayLike<number>, level = 0.95): { t: number; df: number; pValue: number; difference: number; ci95: [number, number] } {
  const nx = x.length;
  const ny = y.length;
  if (nx < 2 || ny < 2) throw new StatsInputError(`Welch's t-test needs at least 2 units per group (got ${nx} and ${ny})`);
  const vx = variance(x, 1) / nx;
  const vy = variance(y, 1) / ny;
  const difference = mean(x) - mean(y);
  const se = Math.sqrt(vx + vy);
  if (!(se > 0)) {
    // Every unit has the same value within each group: no spread to test against.
    return { t: NaN, df: NaN, pValue: NaN, difference, ci95: [difference, difference] };
  }
  const t = difference / se;
  const df = (vx + vy) ** 2 / ((vx * vx) / (nx - 1) + (vy * vy) / (ny - 1));
  const q = tUpperQuantile((1 - level) / 2, df);
  return { t, df, pValue: tTwoSided(t, df), difference, ci95: [difference - q * se, difference + q * se] };
}

/** The values compareOnSpeakerMeans compares: per group its speaker means when both lists name every clip's speaker, else the clips' values. */
export function comparedUnits(
  x: ArrayLike<number>,
  y: ArrayLike<number>,
  speakersX?: readonly (string | null | undefined)[] | null,
  speakersY?: readonly (string | null | undefined)[] | null,
): { unit: ComparisonUnit; x: Float64Array; y: Float64Array } {
  const bySpeaker = speakersKnown(speakersX, x.length) && speakersKnown(speakersY, y.length);
  return {
    unit: bySpeaker ? 'speaker' : 'clip',
    x: bySpeaker ? Float64Array.from(speakerMeans(x, speakersX as readonly string[]), (s) => s.mean) : Float64Array.from(x),
    y: bySpeaker ? Float64Array.from(speakerMeans(y, speakersY as readonly string[]), (s) => s.mean) : Float64Array.from(y),
  };
}

/**
 * Compare `x` and `y` (one value per clip) on speaker means when both speaker lists name
 * every clip's speaker, else on clips (then `unit: 'clip'`: the caller says the p may be too
 * small if speakers recorded several clips). Throws when a group has fewer than 2 units.
 */
export function compareOnSpeakerMeans(
  x: ArrayLike<number>,
  y: ArrayLike<number>,
  speakersX?: readonly (string | null | undefined)[] | null,
  speakersY?: readonly (string | null | undefined)[] | null,
): UnitMeansComparison {
  const { unit, x: ux, y: uy } = comparedUnits(x, y, speakersX, speakersY);
  const w = welchWithCi(ux, uy);
  return {
    unit,
    test: 'welch-t',
    units: { x: ux.length, y: uy.length },
    clips: { x: x.length, y: y.length },
    meanX: mean(ux),
    meanY: mean(uy),
    difference: w.difference,
    ci95: w.ci95,
    t: w.t,
    df: w.df,
    pValue: w.pValue,
  };
}
