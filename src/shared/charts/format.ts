/**
 * Number formatting for text (report, app): 2 decimals, p < 0.001 written as such. Full
 * precision stays in exports and tooltips.
 */

/**
 * Exactly 2 decimals, "–" for null/NaN. A value that rounds to zero prints "0.00", never
 * "-0.00", and a small one keeps the column's precision ("−0.0095" in a column of "0.42"
 * read as more precise than its neighbours: issue 34.3).
 */
export function fmt(x: number | null | undefined): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '–';
  const s = x.toFixed(2);
  return s === '-0.00' ? '0.00' : s;
}

/** Signed, for effect sizes: "+0.97", "−0.05"; a value that rounds to zero is "0.00", unsigned. */
export function fmtSigned(x: number | null | undefined): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '–';
  const s = fmt(Math.abs(x));
  if (s === '0.00') return s;
  return x > 0 ? `+${s}` : `−${s}`;
}

/** "< 0.001" or the value with 2 significant decimals (no "p =" prefix). */
export function fmtPValue(p: number | null | undefined): string {
  if (p === null || p === undefined || !Number.isFinite(p)) return '–';
  if (p < 0.001) return '< 0.001';
  return p >= 0.01 ? p.toFixed(2) === '1.00' && p < 1 ? '0.99' : p.toFixed(2) : p.toPrecision(2);
}

/** "p < 0.001" or "p = 0.03". */
export function pText(p: number | null | undefined): string {
  const v = fmtPValue(p);
  return v.startsWith('<') ? `p ${v}` : `p = ${v}`;
}

export function fmtPercent(x: number | null | undefined): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '–';
  return `${fmt(x * 100)}%`;
}

export function fmtCi(ci: [number, number] | null | undefined): string {
  if (!ci) return '–';
  return `[${fmt(ci[0])}, ${fmt(ci[1])}]`;
}

/**
 * Axis tick labels: at most two significant decimals, no trailing zeros ("−0.17", "0.5",
 * "12"), thousands grouped. ECharts otherwise prints an axis end as computed
 * ("-0.174364290558346").
 */
export function fmtAxis(x: number | string): string {
  const v = typeof x === 'number' ? x : Number(x);
  if (!Number.isFinite(v)) return String(x);
  if (v === 0) return '0';
  const a = Math.abs(v);
  const text = a >= 1000 ? Math.round(a).toLocaleString('en') : String(Number(a >= 1 ? a.toFixed(2) : a.toPrecision(2)));
  return v < 0 ? `−${text}` : text;
}

/**
 * A decision threshold (a verifier's score): 3 decimals, so neighbouring thresholds of a
 * sweep stay apart ("0.862", "0.875"); 2 significant digits below 0.001 in magnitude.
 * `decimals`: as many as it takes to tell apart every threshold a report names
 * (shared/threshold-format.ts decides).
 */
export function fmtThreshold(x: number | null | undefined, decimals?: number): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '–';
  if (decimals !== undefined) {
    const text = Math.abs(x).toFixed(decimals);
    // Rounded to zero: unsigned, as fmt.
    return x < 0 && Number(text) !== 0 ? `−${text}` : text;
  }
  if (x === 0) return '0.000';
  const text = Math.abs(x) >= 0.001 ? Math.abs(x).toFixed(3) : Math.abs(x).toPrecision(2);
  return x < 0 ? `−${text}` : text;
}

/** A duration in seconds, 2 decimals with the unit: 3.456 → "3.46 s". */
export function fmtSeconds(x: number | null | undefined): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '–';
  return `${fmt(x)} s`;
}
