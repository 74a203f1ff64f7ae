/**
 * The SpEAT duration confound check in words (METHODS.md § The unit of inference, Confound
 * checks): which test, on what unit, and its statistic. One wording for the report's tables,
 * its appendix and caveats, the app and the run's warnings.
 */
import { fmt, pText } from './charts/format';
import type { SpeatTestDesign } from './results';

type DurationCheck = NonNullable<SpeatTestDesign['confounds']['duration']>;

/** "paired t-test by sentence, 8 sentences read in both groups", "Welch t-test on speaker means, 6 and 6 speakers", … */
export function durationTestName(d: Pick<DurationCheck, 'test' | 'unit' | 'units'>): string {
  const n = d.units;
  switch (d.unit) {
    case 'sentence':
      return `paired t-test by sentence${n ? `, ${n.x} sentences read in both groups` : ''}`;
    case 'speaker':
      return `Welch t-test on speaker means${n ? `, ${n.x} and ${n.y} speakers` : ''}`;
    case 'clip':
      return `Welch t-test on recordings${n ? `, ${n.x} and ${n.y} (speakers unknown, so treated as independent)` : ''}`;
    default:
      // Results written before the check named its unit paired recordings in storage order.
      return d.test === 'paired-t' ? 'paired t-test (recordings paired in the order stored, as an earlier version did)' : 'Welch t-test';
  }
}

/** "paired t-test by sentence, 8 sentences read in both groups: t(7) = −27.50, p < 0.001" (whole degrees of freedom without decimals). */
export function durationCheckText(d: DurationCheck): string {
  return `${durationTestName(d)}: t(${Number.isInteger(d.df) ? d.df : fmt(d.df)}) = ${fmt(d.t)}, ${pText(d.p)}`;
}
