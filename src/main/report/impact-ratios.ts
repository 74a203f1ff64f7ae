/**
 * Impact ratios (issue 34.4): per section, each group's error rate over the reference group's,
 * with the counts behind it, the clips that carry no group label ("unknown") and the groups
 * left out and why, beside the 0.8–1.25 band of the Aequitas convention.
 *
 * What the ratio is here, and what it is not: NYC Local Law 144 defines impact ratios over
 * selection rates of hiring tools; these are ratios of error rates (WER; the verifier's false
 * positive and false negative rates), so above 1 means more errors than the reference. The
 * band is a reading aid, not a test and never a pass or fail of that law or any other.
 *
 * Sections without a rate get no table: SpEAT's d compares associations in an embedding
 * space and SER compares predicted valence in rating units; a ratio of either means nothing.
 */
import type { AuditResults, FdiGrouping } from '../../shared/results';
import type { ReportTable } from './tables';

/** The Aequitas convention's band: a ratio outside it flags a disparity worth reading closely. */
export const IMPACT_BAND = { low: 0.8, high: 1.25 } as const;

export type BandPlace = 'reference' | 'within' | 'below' | 'above';

export interface ImpactRatioRow {
  group: string;
  measure: 'WER' | 'FPR' | 'FNR';
  speakers: number | null;
  /** Utterances (WER), impostor trials (FPR) or genuine trials (FNR). */
  units: number;
  rate: number;
  /** null when the reference's rate is 0. */
  ratio: number | null;
  band: BandPlace | null;
}

export interface ImpactRatioSet {
  section: 'wer' | 'fdi';
  id: string;
  groupBy: string[];
  reference: { group: string; why: string };
  /** 'all trials': the results carry no trials, so FPR and FNR rows count all of the group's trials. */
  unitName: 'utterances' | 'trials' | 'all trials';
  rows: ImpactRatioRow[];
  /** Usable clips of the section's dataset without a value for each grouping label; null where not known (imported scores). */
  unknown: { label: string; clips: number }[] | null;
  leftOut: { group: string; reason: string }[];
}

/** Sections where no rate exists, in words, for the report to say so. */
export const NO_IMPACT_RATIO: Record<'speat' | 'ser', string> = {
  speat: 'No impact ratio for SpEAT: its effect size d compares associations in the embedding space between two groups; there is no per-group rate to divide.',
  ser: 'No impact ratio for SER propagation: predicted valence is a rating, not a rate, so a ratio of two groups’ means would depend on where the rating scale starts.',
};

export function bandOf(ratio: number | null): BandPlace | null {
  if (ratio === null || !Number.isFinite(ratio)) return null;
  if (ratio < IMPACT_BAND.low) return 'below';
  if (ratio > IMPACT_BAND.high) return 'above';
  return 'within';
}

/** Usable clips with no value for each label: the dataset's usable clips less the labelled ones. */
function unknownCounts(results: AuditResults, datasetId: string | null, labels: string[]): ImpactRatioSet['unknown'] {
  const ds = datasetId === null ? undefined : results.datasets.find((d) => d.id === datasetId);
  if (!ds) return null;
  return labels.map((label) => ({ label, clips: Math.max(0, ds.clips - ds.groups.filter((g) => g.label === label).reduce((n, g) => n + g.clips, 0)) }));
}

/** Groups of the dataset's single grouping label that the section's results do not hold. */
function missingFromResults(results: AuditResults, datasetId: string | null, labels: string[], present: Set<string>): { group: string; reason: string }[] {
  const ds = datasetId === null ? undefined : results.datasets.find((d) => d.id === datasetId);
  if (!ds || labels.length !== 1) return [];
  return ds.groups
    .filter((g) => g.label === labels[0] && !present.has(g.value))
    .map((g) => ({ group: g.value, reason: `in the dataset (${g.clips} clips) but not compared in this section` }));
}

/** The planned reference group, else the largest group (by speakers, then units), said as such. */
function pickReference(planned: string | null, sizes: { group: string; speakers: number | null; units: number }[]): { group: string; why: string } | null {
  if (planned !== null && sizes.some((s) => s.group === planned)) return { group: planned, why: 'the reference group chosen before the run' };
  if (sizes.length === 0) return null;
  const largest = [...sizes].sort((a, b) => (b.speakers ?? 0) - (a.speakers ?? 0) || b.units - a.units || (a.group < b.group ? -1 : 1))[0]!;
  return { group: largest.group, why: 'the largest group (the plan compared every pair, so this table takes the largest as its reference; it is not a verdict’s reference)' };
}

function ratioRows(measure: ImpactRatioRow['measure'], entries: { group: string; speakers: number | null; units: number; rate: number }[], reference: string): ImpactRatioRow[] {
  const ref = entries.find((e) => e.group === reference);
  return entries.map((e) => {
    const ratio = ref && ref.rate > 0 ? e.rate / ref.rate : null;
    return { group: e.group, measure, speakers: e.speakers, units: e.units, rate: e.rate, ratio, band: e.group === reference ? 'reference' : bandOf(ratio) };
  });
}

function werSet(results: AuditResults): ImpactRatioSet | null {
  const w = results.wer;
  if (!w) return null;
  const all = Object.entries(w.groups);
  const leftOut = [
    ...all.filter(([, g]) => g.wer === null).map(([group]) => ({ group, reason: 'no reference words, so no error rate' })),
    ...missingFromResults(results, w.datasetId, w.config.groupBy, new Set(all.map(([g]) => g))),
  ];
  const entries = all.filter(([, g]) => g.wer !== null).map(([group, g]) => ({ group, speakers: g.speakers, units: g.utterances, rate: g.wer! }));
  const reference = pickReference(w.config.referenceGroup, entries);
  if (!reference) return null;
  const rows = ratioRows('WER', entries, reference.group);
  if (rows.every((r) => r.ratio === null)) leftOut.push({ group: reference.group, reason: 'the reference group’s WER is 0, so no ratio exists' });
  return { section: 'wer', id: 'wer-impact-ratios', groupBy: w.config.groupBy, reference, unitName: 'utterances', rows, unknown: unknownCounts(results, w.datasetId, w.config.groupBy), leftOut };
}

function fdiSet(results: AuditResults, g: FdiGrouping, index: number): ImpactRatioSet | null {
  const f = results.fdi!;
  const speakers = new Map<string, Set<string>>();
  const counts = new Map<string, { genuine: number; impostor: number }>();
  for (const t of g.trials ?? []) {
    const c = counts.get(t.group) ?? { genuine: 0, impostor: 0 };
    if (t.label === 1) c.genuine += 1;
    else c.impostor += 1;
    counts.set(t.group, c);
    if (t.speakers) {
      const s = speakers.get(t.group) ?? new Set<string>();
      s.add(t.speakers[0]).add(t.speakers[1]);
      speakers.set(t.group, s);
    }
  }
  const groups = Object.entries(g.groups);
  const speakersOf = (group: string) => (speakers.has(group) ? speakers.get(group)!.size : null);
  const planned = g.reference?.kind === 'group' ? g.reference.group : null;
  const reference = pickReference(planned, groups.map(([group, m]) => ({ group, speakers: speakersOf(group), units: m.n })));
  if (!reference) return null;
  const leftOut: { group: string; reason: string }[] = [...missingFromResults(results, f.datasetId, g.groupBy, new Set(groups.map(([x]) => x)))];
  const rows: ImpactRatioRow[] = [];
  for (const measure of ['FPR', 'FNR'] as const) {
    const key = measure === 'FPR' ? 'fpr' : 'fnr';
    const kind = measure === 'FPR' ? 'impostor' : 'genuine';
    const have = groups.filter(([, m]) => m[key] !== null);
    for (const [group, m] of groups) if (m[key] === null) leftOut.push({ group, reason: `no ${kind} trials, so no ${measure}` });
    // Trials that count for the rate: impostor trials for FPR, genuine for FNR (all trials when results carry none).
    const entries = have.map(([group, m]) => ({ group, speakers: speakersOf(group), units: counts.get(group)?.[kind] ?? m.n, rate: m[key]! }));
    const part = ratioRows(measure, entries, reference.group);
    if (part.length > 0 && part.every((r) => r.ratio === null)) leftOut.push({ group: reference.group, reason: `the reference group’s ${measure} is 0 or missing, so no ${measure} ratio exists` });
    rows.push(...part);
  }
  return { section: 'fdi', id: `fdi-impact-ratios-${index + 1}`, groupBy: g.groupBy, reference, unitName: counts.size > 0 ? 'trials' : 'all trials', rows, unknown: f.datasetId === null ? null : unknownCounts(results, f.datasetId, g.groupBy), leftOut };
}

export function impactRatios(results: AuditResults): ImpactRatioSet[] {
  return [werSet(results), ...(results.fdi?.groupings ?? []).map((g, i) => fdiSet(results, g, i))].filter((s): s is ImpactRatioSet => s !== null);
}

const BAND_TEXT: Record<BandPlace, string> = { reference: 'reference', within: 'within', below: 'below 0.8', above: 'above 1.25' };

export function impactRatioTable(s: ImpactRatioSet): ReportTable {
  const what = s.section === 'wer' ? 'WER' : 'FPR and FNR at the reported threshold';
  const unit = s.unitName === 'utterances' ? 'Utterances' : s.unitName === 'trials' ? 'Trials (impostor: FPR; genuine: FNR)' : 'Trials (all of the group’s)';
  return {
    id: s.id,
    section: s.section,
    title: `Impact ratios: each group’s ${what} over the reference group ${s.reference.group}’s (${s.groupBy.join(' × ')})`,
    columns: [
      { title: 'Group', format: 'text', width: 1.3 },
      { title: 'Measure', format: 'text', width: 0.8 },
      { title: 'Speakers', format: 'int', width: 0.8 },
      { title: unit, format: 'int', width: 1.2 },
      { title: 'Rate', format: 'pct', width: 0.9 },
      { title: 'Impact ratio', format: 'num', width: 0.9 },
      { title: 'Band 0.8–1.25', format: 'text', width: 1 },
    ],
    rows: [
      ...s.rows.map((r) => [r.group, r.measure, r.speakers, r.units, r.rate, r.ratio, r.band === null ? 'no ratio' : BAND_TEXT[r.band]]),
      ...(s.unknown ?? []).filter((u) => u.clips > 0).map((u) => [`unknown (no ${u.label})`, 'clips', null, u.clips, null, null, 'no group label']),
      ...s.leftOut.filter((l) => !s.rows.some((r) => r.group === l.group)).map((l) => [l.group, '–', null, null, null, null, 'left out']),
    ],
  };
}

export function impactRatioTables(results: AuditResults): ReportTable[] {
  return impactRatios(results).map(impactRatioTable);
}

/** The sentence under a table: what the ratio is, the reference, unknowns, what was left out, and what the band does not mean. */
export function impactRatioNote(s: ImpactRatioSet): string {
  const what = s.section === 'wer' ? 'a group’s word error rate divided by the reference group’s' : 'a group’s false positive (or false negative) rate at the reported threshold divided by the reference group’s';
  const unknown = s.unknown === null
    ? ' Clips without a group label: not known (the scores were imported).'
    : ` Usable clips without a group label: ${s.unknown.map((u) => `${u.clips} without ${u.label}`).join(', ')}${s.unknown.some((u) => u.clips > 0) ? ' (not in any group, so in no ratio)' : ''}.`;
  const left = s.leftOut.length > 0 ? ` Left out: ${s.leftOut.map((l) => `${l.group} (${l.reason})`).join('; ')}.` : ' No group was left out.';
  return `Impact ratio here: ${what}; reference ${s.reference.group}, ${s.reference.why}. 1 means the same rate; above 1, more errors than the reference.${unknown}${left} The 0.8–1.25 band follows the Aequitas convention for flagging a disparity; it is a reading aid without uncertainty (the section’s comparisons carry the tests and intervals), and with few speakers a ratio moves a lot. NYC Local Law 144 defines impact ratios over selection rates; these are error-rate ratios, and being inside or outside the band is not a pass or fail of that law or any other.`;
}
