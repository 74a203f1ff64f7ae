/**
 * Colours shared by every chart, in the app and in the PDF. Groups get Okabe–Ito colours
 * (colour-blind safe) through one mapping built from the whole AuditResults, so "female"
 * is the same colour in the WER chart, the FDI chart and the dashboard. Models are told
 * apart by marker shape (and a dark neutral tone), never by a group colour.
 */
import type { AuditResults } from '../results';

export const OKABE_ITO = {
  orange: '#E69F00',
  skyBlue: '#56B4E9',
  bluishGreen: '#009E73',
  yellow: '#F0E442',
  blue: '#0072B2',
  vermillion: '#D55E00',
  reddishPurple: '#CC79A7',
  black: '#000000',
} as const;

/** Order in which groups take colours (yellow last: weak contrast on white). */
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
export const MODEL_COLOURS: readonly string[] = ['#4D4D4D', '#8C8C8C', '#2B2B2B', '#A6A6A6', '#666666', '#1A1A1A'];

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
