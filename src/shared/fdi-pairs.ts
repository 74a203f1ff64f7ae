/**
 * The FDI section's Wasserstein-1 distances are stored per pair of groups under the key
 * "a|b" (analyseFdi in src/main/stats/fdi.ts). Reports, exports and the app read them
 * through this one helper, pair by pair, built from the group names themselves (names may
 * contain "|"), so no reader can look them up by a single group name again.
 */
import type { FdiGrouping } from './results';

export interface WassersteinPair {
  a: string;
  b: string;
  distance: number | null;
}

export function wassersteinPairs(g: Pick<FdiGrouping, 'groups' | 'wasserstein'>): WassersteinPair[] {
  const names = Object.keys(g.groups);
  const out: WassersteinPair[] = [];
  for (let i = 0; i < names.length; i += 1) {
    for (let j = i + 1; j < names.length; j += 1) {
      const a = names[i]!;
      const b = names[j]!;
      const d = g.wasserstein[`${a}|${b}`] ?? g.wasserstein[`${b}|${a}`];
      out.push({ a, b, distance: typeof d === 'number' && Number.isFinite(d) ? d : null });
    }
  }
  return out;
}
