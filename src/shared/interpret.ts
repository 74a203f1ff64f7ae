/**
 * Plain-language rules of METHODS.md ("Plain-language interpretation") shared by the
 * PDF report and the app's dashboards, so both say the same thing about the same number:
 * Cohen's magnitude words, and "unlikely to be chance" only below alpha after adjustment.
 */
import { pText } from './charts/format';
import type { Correction } from './results';

export const CORRECTION_NAMES: Record<Correction, string> = { bonferroni: 'Bonferroni', holm: 'Holm', bh: 'Benjamini–Hochberg' };

export type Magnitude = 'negligible' | 'small' | 'medium' | 'large';

/** Cohen's thresholds on |d|: 0.2 small, 0.5 medium, 0.8 large. */
export function magnitude(d: number): Magnitude {
  const a = Math.abs(d);
  return a < 0.2 ? 'negligible' : a < 0.5 ? 'small' : a < 0.8 ? 'medium' : 'large';
}

/** "unlikely to be chance (p = …, adjusted for N tests, Holm)" or "could be chance (…)", lower case, for use inside a sentence. */
export function chancePhrase(pAdjusted: number, alpha: number, nTests: number, correction: Correction): { unlikely: boolean; phrase: string } {
  const adj = `adjusted for ${nTests} test${nTests === 1 ? '' : 's'}, ${CORRECTION_NAMES[correction]}`;
  const unlikely = pAdjusted < alpha;
  return { unlikely, phrase: `${unlikely ? 'unlikely to be chance' : 'could be chance'} (${pText(pAdjusted)}, ${adj})` };
}
