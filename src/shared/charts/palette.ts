/**
 * Colours shared by every chart, in the app and in the PDF. Groups get Okabe–Ito hues
 * (colour-blind safe) through one mapping built from the whole AuditResults, so "female"
 * is the same colour in the WER chart, the FDI chart and the dashboard. Models are told
 * apart by marker shape (and a dark neutral tone), never by a group colour.
 *
 * Every mark has at least 3:1 contrast against the white page (WCAG 2.x 1.4.11, non-text
 * contrast; test/unit/report/chart-contrast.test.ts computes it): Okabe–Ito's orange
 * (2.25:1), sky blue (2.31:1), yellow (1.32:1) and reddish purple (3.06:1) are darkened at
 * the same hue and saturation (HLS lightness lowered until the ratio is 3.2:1 or more).
 */
import type { AuditResults } from '../results';

export const OKABE_ITO = {
  orange: '#BD8300', // Okabe–Ito #E69F00 darkened: 3.28:1 on white
  skyBlue: '#1D96DB', // #56B4E9 darkened: 3.26:1
  bluishGreen: '#009E73', // 3.42:1 as published
  yellow: '#9C920C', // #F0E442 darkened (a dark gold): 3.22:1
  blue: '#0072B2', // 5.19:1
  vermillion: '#D55E00', // 3.87:1
  reddishPurple: '#CA73A3', // #CC79A7 darkened: 3.23:1
  black: '#000000',
} as const;

/** The page and chart background every mark is drawn on. */
export const BACKGROUND = '#FFFFFF';

/** Order in which groups take colours (the darkened yellow last: closest to the orange). */
export const GROUP_COLOURS: readonly string[] = [
  OKABE_ITO.blue,
  OKABE_ITO.vermillion,
  OKABE_ITO.bluishGreen,
  OKABE_ITO.reddishPurple,
  OKABE_ITO.orange,
  OKABE_ITO.skyBlue,
  OKABE_ITO.yellow,
];

/** The one accent colour (headings, highlighted mean). */
export const ACCENT = '#1F3A5F';
export const NEUTRAL = '#555555';
export const GRID_LINE = '#DDDDDD';
/** The human IAT D marker: black, a distinct shape. */
export const HUMAN_MARKER = { colour: OKABE_ITO.black, symbol: 'diamond' } as const;
/** One marker shape per model, in model order. */
export const MODEL_SYMBOLS: readonly string[] = ['circle', 'triangle', 'rect', 'roundRect', 'pin', 'arrow'];
/** Dark neutral tones, each at least 3:1 on white (the lightest, #8C8C8C, is 3.36:1). */
export const MODEL_COLOURS: readonly string[] = ['#4D4D4D', '#8C8C8C', '#2B2B2B', '#767676', '#666666', '#1A1A1A'];

/** Every group value named anywhere in the results, sorted: the domain of the colour map. */
export function allGroups(results: AuditResults): string[] {
  const set = new Set<string>();
  for (const d of results.datasets) for (const g of d.groups) set.add(g.value);
  for (const t of results.speat?.tests ?? []) {
    set.add(t.x.value);
    set.add(t.y.value);
  }
  for (const g of Object.keys(results.wer?.groups ?? {})) set.add(g);
  for (const grouping of results.fdi?.groupings ?? []) for (const g of Object.keys(grouping.groups)) set.add(g);
  return [...set].sort((a, b) => a.localeCompare(b, 'en'));
}

/** group value → colour; the same function for every chart of one audit. */
export function groupColourMap(results: AuditResults): (group: string) => string {
  const groups = allGroups(results);
  const map = new Map(groups.map((g, i) => [g, GROUP_COLOURS[i % GROUP_COLOURS.length]!]));
  return (group) => map.get(group) ?? NEUTRAL;
}

export function modelStyle(index: number): { symbol: string; colour: string } {
  return { symbol: MODEL_SYMBOLS[index % MODEL_SYMBOLS.length]!, colour: MODEL_COLOURS[index % MODEL_COLOURS.length]! };
}
