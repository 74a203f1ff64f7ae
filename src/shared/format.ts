/**
 * One formatter per quantity, for the PDF report and the app alike (issue 21.6): a number
 * printed in a table, a sentence, a figure or a dashboard goes through the formatter of
 * what it is, so the same value never appears in two spellings ("+0.0073" here,
 * "+0.73 percentage points" there). The report-consistency test reads the PDF back with
 * these functions. Full precision stays in results.json and the CSV exports.
 */
import { fmt, fmtCi, fmtPValue, fmtSeconds, fmtSigned, fmtThreshold, pText } from './charts/format';

/**
 * The precision of each (every quantity of the report has one):
 * - p-values (fmtP, pText): 2 decimals, 2 significant digits below 0.01, "< 0.001" below that;
 * - effect sizes d (fmtD): signed, 2 decimals ("+0.97", "−0.05"; "0.00" unsigned when it rounds to zero);
 * - WER, CER, MER, WIL and other rates (fmtRate): percent with 2 decimals ("12.34%");
 *   differences of rates (fmtDeltaPp): signed percentage points with 2 decimals;
 * - decision thresholds (fmtThreshold): 3 decimals ("0.862");
 * - durations (fmtSeconds): seconds with 2 decimals and the unit ("3.46 s");
 * - counts (fmtCount): integers as digits;
 * - anything else (fmt): 2 decimals, small values included ("0.00", "-0.01"; never "-0.00"),
 *   so every cell of a 2-decimal column has 2 decimals (issue 34.3).
 */
export { fmt, fmtCi, fmtPValue, fmtSeconds, fmtSigned, fmtThreshold, pText };

/** A rate (WER, CER, MER, WIL) as a percentage: 0.1234 → "12.34%". */
export function fmtRate(x: number | null | undefined): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '–';
  return `${fmt(x * 100)}%`;
}

/** A difference of two rates in percentage points: 0.0073 → "+0.73 pp". */
export function fmtDeltaPp(x: number | null | undefined): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '–';
  return `${fmtSigned(x * 100)} pp`;
}

/** The same in words, for sentences: "+0.73 percentage points". */
export function fmtDeltaPpWords(x: number | null | undefined): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '–';
  return `${fmtSigned(x * 100)} percentage points`;
}

/** A relative change as a signed percentage: 0.25 → "+25.00%". */
export function fmtRelative(x: number | null | undefined): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '–';
  return `${fmtSigned(x * 100)}%`;
}

/** An effect size (SpEAT d, Cohen's d): signed, "+0.97", "−0.05". */
export const fmtD = fmtSigned;

/** A p-value without "p =": "< 0.001", "0.03". */
export const fmtP = fmtPValue;

/** A count: an integer as plain digits ("1204", as the CSV has it); a non-integer as fmt. */
export function fmtCount(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '–';
  return Number.isInteger(n) ? String(n) : fmt(n);
}
