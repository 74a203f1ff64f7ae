/**
 * Decision thresholds printed with as many decimals as it takes to tell apart every
 * threshold a report names (the sweep's rows and each attribute set's reported threshold):
 * two different thresholds never share a label (issue 34.2: two sweep rows both read
 * "0.90"). Never fewer than 2 decimals, never more than 6.
 */
import type { FdiSection } from './results';

const MIN_DECIMALS = 2;
const MAX_DECIMALS = 6;
/** Values this close are one threshold computed twice, not two thresholds. */
const SAME = 1e-12;

export function thresholdDecimals(values: readonly number[]): number {
  const sorted = [...new Set(values.filter(Number.isFinite))].sort((a, b) => a - b);
  const distinct = sorted.filter((v, i) => i === 0 || v - sorted[i - 1]! > SAME);
  for (let d = MIN_DECIMALS; d < MAX_DECIMALS; d += 1) {
    const labels = distinct.map((v) => v.toFixed(d));
    if (new Set(labels).size === labels.length) return d;
  }
  return MAX_DECIMALS;
}

/** Every threshold the FDI section names: the sweep of each attribute set, the plan's and each set's reported threshold. */
export function fdiThresholds(fdi: FdiSection): number[] {
  // config is absent only in hand-made sections of unit tests; a results file always has it.
  return [...(fdi.config as FdiSection['config'] | undefined ? [fdi.config.threshold] : []), ...fdi.groupings.flatMap((g) => [g.threshold, ...g.sweep.map((s) => s.threshold)])];
}

export function fdiThresholdDecimals(fdi: FdiSection): number {
  return thresholdDecimals(fdiThresholds(fdi));
}

/** One formatter for thresholds everywhere: the charts' with these decimals. */
export { fmtThreshold } from './charts/format';
