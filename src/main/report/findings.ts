/**
 * The report's first page (issue 34.1, "Findings first"): three sentences (what was
 * audited, for what purpose, what the results let the auditor conclude), the designs that
 * could never have detected a difference, then one row per comparison and section. Pure:
 * every number and verdict comes from the results through the same verdict functions
 * the summary and sections use (src/shared/verdicts.ts, wer-verdict.ts), never
 * recomputed; where the results hold no CI or MDE the row says so instead of making one,
 * and FDI's says why it has none.
 */
import { contextValue, NOT_STATED } from '../../shared/audit-context';
import { fmt, fmtCi, fmtPValue, fmtRate, fmtSigned, pText } from '../../shared/format';
import { SECTION_SHORT } from '../../shared/requirements';
import type { AuditResults, Correction, FdiGrouping, Section, SerGroupComparison, SpeatResult, SpeatTestDesign, WerComparison, WerSection } from '../../shared/results';
import { fdiVerdict, serComparisonCell, serGate, speakersText, speatUnit, speatVerdict } from '../../shared/verdicts';
import { plural, WER_TEST_UNIT, WER_VERDICT_MIN_SPEAKERS, werRateRatio, werVerdicts, type WerVerdict } from '../../shared/wer-verdict';
import { modelName, recogniserName } from './narrative';

export const FINDINGS_HEADING = 'Findings';
export const FINDINGS_TABLE_TITLE = 'Findings: one row per comparison (details in the numbered sections)';
/** The table's columns, as the PDF prints them. */
export const FINDINGS_COLUMNS = ['Audit', 'Compared', 'Effect (95% CI)', 'Adjusted p (unit)', 'Detectable at 80% power', 'Verdict', 'Caveat', 'Recommended action'] as const;

export interface FindingRow {
  section: Section;
  compared: string;
  effect: string;
  p: string;
  mde: string;
  verdict: string;
  caveat: string;
  action: string;
  /** True for a row whose verdict is "unlikely to be chance" (or FDI's "beyond noise"). */
  shown: boolean;
  /** True when this design could not have shown a difference of any size (named above the table). */
  blind: boolean;
}

export interface Findings {
  audited: string;
  purpose: string;
  conclusion: string;
  /** The designs that could not detect anything, named before the table (comparisons that fail for one reason together). */
  uninformative: string[];
  rows: FindingRow[];
}

/** Corrections as a table cell names them. */
const CORRECTION_SHORT: Record<Correction, string> = { holm: 'Holm', bh: 'BH', bonferroni: 'Bonferroni' };

const list = (xs: string[]): string => (xs.length <= 1 ? (xs[0] ?? '') : `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}`);

/** The smallest unit count of a SpEAT result, in its unit's words. */
function speatUnitText(r: SpeatResult, t: SpeatTestDesign): string {
  if (speatUnit(r) === 'speaker' && r.speakers) return speakersText(r.speakers);
  return t.x.n === t.y.n ? `${t.x.n} clips per group` : `${t.x.n} and ${t.y.n} clips`;
}

/** How a comparison is named in the findings: the auditor's test name, its groups in X vs Y order, and the model. */
export function speatComparedText(r: AuditResults, t: SpeatTestDesign, modelId: string): string {
  return `${t.name} (${t.x.value} vs ${t.y.value}), ${modelName(r, modelId)}`;
}

function speatRows(r: AuditResults): FindingRow[] {
  const s = r.speat;
  if (!s) return [];
  return s.results.flatMap((x): FindingRow[] => {
    const t = s.tests.find((d) => d.id === x.testId);
    if (!t) return [];
    const v = speatVerdict(x, t, s);
    const model = r.models.find((m) => m.id === x.modelId);
    const baseline = model?.family === 'acoustic-baseline';
    const dur = t.confounds.duration;
    const confound = dur !== undefined && dur.p < s.config.alpha;
    const effect = speatEffectText(x);
    const p = `${fmtPValue(v.p)} (${v.twoSided ? 'two-sided' : 'one-sided'}, ${CORRECTION_SHORT[s.config.correction]}; ${speatUnitText(x, t)})`;
    const mde = x.mde ? (x.mde.d === null ? 'nothing: no split can reach significance' : `|d| ≥ ${fmt(x.mde.d)}`) : 'not computed';
    const uninformative = x.mde !== undefined && x.mde !== null && x.mde.d === null;
    const verdict = v.unlikely ? `unlikely to be chance${v.favoured ? `; ${v.favoured} closer to pleasant` : ''}` : 'could be chance';
    const caveat = baseline
      ? 'acoustic baseline, not a model: it measures the recordings'
      : confound
        ? `clip length differs between the groups (t = ${fmtSigned(dur!.t)}, ${pText(dur!.p)}): it may explain the effect`
        : x.mde?.d !== undefined && x.mde.d !== null && x.mde.d >= 0.8 && !v.unlikely
          ? 'only large effects were detectable'
          : '–';
    const action = uninformative
      ? 'Add speakers to both groups and rerun; nothing can be concluded now.'
      : baseline
        ? 'None on a model: read the learned models’ effects against this one.'
        : v.unlikely && confound
          ? 'Rerun with clips of matched length before acting on it.'
          : v.unlikely
            ? `Test the product built on this model with ${v.other ?? 'the other group'} speakers (SER, WER): an embedding association alone is not harm.`
            : x.mde?.d !== undefined && x.mde.d !== null
              ? `None shown; add speakers to rule out effects below |d| = ${fmt(x.mde.d)}.`
              : 'None shown.';
    return [{ section: 'speat', compared: speatComparedText(r, t, x.modelId), effect, p, mde, verdict, caveat, action, shown: v.unlikely, blind: uninformative }];
  });
}

/** d with its percentile bootstrap CI (same resamples as its SE); results without one say why. */
function speatEffectText(x: SpeatResult): string {
  const d = `d = ${fmtSigned(x.effectSize)} SD`;
  if (x.ci95AtCompared) return `${d}, ${fmtCi(x.ci95AtCompared)}`;
  if (x.ci95AtCompared === null) return `${d}; no CI (the plan set no bootstrap resamples)`;
  const se = x.standardErrorAtCompared;
  return `${d}; no CI in the results${se !== undefined && se !== null ? ` (bootstrap SE ${fmt(se)})` : ''}`;
}

/** The SER comparison's MDE as a cell: in rating points like its effect, with the same as Cohen's d. */
function serMdeText(c: SerGroupComparison | null | undefined): string {
  if (c === null) return '–';
  if (!c?.mde) return 'not computed';
  if (c.mde.difference === null) return `nothing: too few ${c.unit === 'speaker' ? 'speakers' : 'recordings'} for 80% power`;
  return `|X − Y| ≥ ${fmt(c.mde.difference)} rating points (d ≥ ${fmt(c.mde.d)})`;
}

/**
 * Why the FDI row states no MDE (METHODS.md § Verdicts that hold, FDI against noise): FDI has
 * no effect size whose detection more data guarantees (one group worst on false accepts and
 * another on false rejects keeps it below its null's 95th percentile at any size).
 */
// Short words on purpose: the column is narrow, and "disagreement," broke mid-word in the demo's report.
export const FDI_MDE_TEXT = 'not applicable: FDI says how far the metrics disagree, and is tested against its noise null';

/** The smallest one-sided binomial p that k of n pairs can give (all n agree): ½ⁿ. */
export function smallestAgreementP(total: number): number {
  return 0.5 ** total;
}

function serRows(r: AuditResults): FindingRow[] {
  const ser = r.ser;
  if (!ser) return [];
  const rows: FindingRow[] = [];
  for (const m of ser.models) {
    const sel = m.regressors.find((x) => x.selected) ?? m.regressors[0];
    if (!sel) continue;
    const name = modelName(r, m.modelId);
    const baseline = r.models.find((x) => x.id === m.modelId)?.family === 'acoustic-baseline';
    const gate = serGate(m);
    if (!gate.informative) {
      rows.push({
        section: 'ser',
        compared: `${name}: does its emotion model predict valence?`,
        effect: `test R² = ${fmt(m.downstream!.testR2)}, 95% lower bound ${fmt(m.downstream!.testR2Lower)}`,
        p: '–',
        mde: '–',
        verdict: 'no verdict: not shown to have learned valence',
        caveat: baseline ? 'acoustic baseline, not a model' : m.testClips < 30 ? `only ${plural(m.testClips, 'test recording')}` : '–',
        action: 'None from these data: the emotion model learned too little to carry a bias.',
        shown: false,
        blind: true,
      });
      continue;
    }
    for (const t of m.tests.filter((x) => x.learningRate === sel.learningRate)) {
      const design = r.speat?.tests.find((d) => d.id === t.testId);
      const compared = design ? `${design.name} (${design.x.value} vs ${design.y.value}), ${name}` : `${t.testId}, ${name}`;
      const c = t.comparison;
      const cell = serComparisonCell(m, c, ser);
      const dur = design?.confounds.duration;
      const confound = dur !== undefined && dur.p < (ser.config.comparison?.alpha ?? 0.05);
      const unlikely = cell === 'unlikely to be chance';
      const undetectable = c?.mde !== undefined && c.mde !== null && c.mde.difference === null;
      const lower = c ? (c.difference > 0 ? design?.y.value : design?.x.value) : undefined;
      rows.push({
        section: 'ser',
        compared: `${compared}: predicted valence`,
        effect: c ? `${fmtSigned(c.difference)} rating points (X − Y), ${fmtCi(c.ci95)}` : `Cohen's d ${fmtSigned(t.cohensD)} over clips; no CI in the results`,
        p: c && c.pAdjusted !== undefined ? `${fmtPValue(c.pAdjusted)} (${ser.config.comparison ? CORRECTION_SHORT[ser.config.comparison.correction] : 'adjusted'}; ${c.unit === 'speaker' ? `${c.units.x} and ${c.units.y} speakers` : `${c.units.x} and ${c.units.y} clips, speakers unknown`})` : c === null ? 'not tested' : 'no test in the results',
        mde: serMdeText(c),
        verdict: cell === '–' ? 'no verdict in the results' : cell,
        caveat: confound ? `clip length differs between the groups (t = ${fmtSigned(dur!.t)}, ${pText(dur!.p)}): it may explain the effect` : m.testClips < 30 ? `only ${plural(m.testClips, 'test recording')}: R² uncertain` : '–',
        action: unlikely
          ? confound
            ? 'Rerun with clips of matched length before acting on it.'
            : `Check the emotion model’s outputs for ${lower ?? 'the lower group'}’s speakers before use.`
          : undetectable
            ? 'Add speakers to both groups and rerun; nothing can be concluded now.'
            : c?.mde?.difference !== undefined && c.mde.difference !== null
              ? `None shown; add speakers to rule out differences below ${fmt(c.mde.difference)} rating points.`
              : 'None shown; no power estimate exists for this test.',
        shown: unlikely,
        blind: undetectable,
      });
    }
  }
  const a = ser.agreement;
  if (a.total > 0) {
    const floor = smallestAgreementP(a.total);
    const unlikely = a.pValue !== undefined && a.pValue < 0.05;
    rows.push({
      section: 'ser',
      compared: 'Does the emotion model’s difference point the same way as SpEAT’s?',
      effect: `${a.agree} of ${plural(a.total, 'pair')} agree`,
      p: `${fmtPValue(a.pValue)} (one-sided binomial; unit: test × model pairs)`,
      mde: `smallest possible p = ${fmtPValue(floor)}`,
      verdict: unlikely ? 'unlikely to be chance' : 'could be chance',
      caveat: a.skipped ? `${plural(a.skipped, 'pair')} not counted (model not shown to learn valence)` : '–',
      action: floor >= 0.05 ? 'Add SpEAT tests or models: with so few pairs agreement cannot be shown.' : unlikely ? 'Treat SpEAT associations as a warning for downstream emotion models.' : 'None shown.',
      shown: unlikely,
      blind: floor >= 0.05,
    });
  }
  return rows;
}

/** The recogniser as the findings name it: name and version (the settings are in the WER section). */
function recogniserShort(wer: WerSection): string {
  const rec = wer.config.recogniser;
  return rec ? `${rec.name} ${rec.version}` : recogniserName(wer);
}

function werRow(wer: WerSection, c: WerComparison, v: WerVerdict, failing: boolean): FindingRow {
  const g = wer.groups[c.group];
  const ref = wer.groups[c.referenceGroup];
  const rr = werRateRatio(c);
  const speakers = `${g?.speakers ?? 0} and ${ref?.speakers ?? 0} speakers`;
  const p = v.tested && v.test ? `${fmtPValue(v.pAdjusted)} (Holm; ${WER_TEST_UNIT[v.test] === 'speaker' ? speakers : `${g?.utterances ?? 0} and ${ref?.utterances ?? 0} utterances`})` : `none: ${speakers}, a verdict needs 5 per group`;
  const mde = c.mde ? (c.mde.rateRatio === null ? `nothing up to a rate ratio of ${fmt(c.mde.maxRateRatio)}` : `rate ratio ≥ ${fmt(c.mde.rateRatio)}`) : 'not computed';
  const blind = !v.tested && (!c.mde || c.mde.rateRatio === null);
  const above100 = [c.group, c.referenceGroup].filter((x) => (wer.groups[x]?.wer ?? 0) > 1);
  const caveat = failing
    ? 'the recogniser gets most words wrong for every group'
    : above100.length > 0
      ? `WER above 100% for ${list(above100)}: insertions count as errors`
      : (g?.speakers ?? 0) < 10
        ? `only ${plural(g?.speakers ?? 0, 'speaker')} in ${c.group}`
        : '–';
  const action = blind
    ? 'Record more speakers per group (at least 5, more for power) and rerun.'
    : v.unlikely
      ? `Reduce the recogniser’s errors for ${c.absoluteDelta > 0 ? c.group : c.referenceGroup} speakers (e.g. train on their speech) and re-audit.`
      : c.mde?.rateRatio
        ? `None shown; add speakers to rule out ratios below ${fmt(c.mde.rateRatio)}.`
        : 'None shown.';
  return {
    section: 'wer',
    compared: `${c.group} vs ${c.referenceGroup}`,
    effect: `WER ${fmtRate(g?.wer)} vs ${fmtRate(ref?.wer)}; rate ratio ${fmt(rr.value)}, ${rr.ci95 ? fmtCi(rr.ci95) : 'no CI in the results'}`,
    p,
    mde,
    verdict: v.label,
    caveat,
    action,
    shown: v.unlikely,
    blind,
  };
}

function werRows(r: AuditResults): { rows: FindingRow[]; note: string | null } {
  const wer = r.wer;
  if (!wer) return { rows: [], note: null };
  const rates = Object.values(wer.groups).map((g) => g.wer).filter((x): x is number => x !== null);
  // Most words wrong for every group: a recogniser that fails everyone says little about who it fails more.
  const failing = rates.length > 0 && Math.min(...rates) > 0.5;
  const verdicts = werVerdicts(wer);
  const rows = wer.comparisons.map((c, i) => werRow(wer, c, verdicts[i]!, failing));
  const note = failing
    ? `WER: ${recogniserShort(wer)} gets most words wrong for every group (WER ${fmtRate(Math.min(...rates))} to ${fmtRate(Math.max(...rates))}), so differences between groups say little about a recogniser anyone would use.`
    : null;
  return { rows, note };
}

/** The FDI verdict in a few words: the sentence up to its numbers (fdiVerdict's own wording). */
function fdiVerdictShort(g: FdiGrouping): string {
  const s = fdiVerdict(g).sentence;
  return s.split(/ \(|; |: /)[0]!;
}

function fdiRows(r: AuditResults): FindingRow[] {
  const fdi = r.fdi;
  if (!fdi) return [];
  return fdi.groupings.map((g): FindingRow => {
    const v = fdiVerdict(g);
    const groups = Object.keys(g.groups);
    const ver = g.verifier;
    const twoGroups = groups.length === 2;
    const chance = ver !== undefined && !ver.informative;
    const nul = g.null;
    const unit = nul?.unit === 'speaker' ? 'speakers' : 'trials';
    return {
      section: 'fdi',
      compared: `${g.groupBy.join(' × ')}: ${groups.join(', ')}`,
      effect: `FDI ${fmt(g.fdi)}, ${g.fdiCi95 ? fmtCi(g.fdiCi95) : 'no CI in the results'}`,
      p: nul ? `${fmtPValue(nul.pValue)} (label-shuffle null, not adjusted; unit: ${unit})` : 'no null in the results',
      mde: FDI_MDE_TEXT,
      verdict: fdiVerdictShort(g),
      caveat: ver ? `verifier AUC ${fmt(ver.auc)} ${fmtCi(ver.aucCi)}, EER ${fmtRate(ver.eer)}` : '–',
      action: chance
        ? 'Use a verifier that works on these recordings before judging its fairness.'
        : twoGroups
          ? 'Compare the groups’ false accept and false reject rates directly.'
          : v.conclusive
            ? 'Report several error rates, not one; decide which error matters for the use.'
            : 'None shown; report error rates per group.',
      shown: v.conclusive,
      blind: chance || twoGroups,
    };
  });
}

/** "the system under audit X (version, vendor)" or that it is not stated. */
function systemText(r: AuditResults): string {
  const c = r.audit.context;
  const name = contextValue(c, 'system.name');
  if (!name) return `System under audit: ${NOT_STATED}.`;
  const extra = [contextValue(c, 'system.version'), contextValue(c, 'system.vendor')].filter((x): x is string => x !== undefined);
  return `System under audit: ${name}${extra.length > 0 ? ` (${extra.join(', ')})` : ''}.`;
}

function auditedText(r: AuditResults): string {
  const ran = (['speat', 'ser', 'wer', 'fdi'] as const).filter((s) => r[s]);
  const used = new Set<string>([...(r.speat?.results.map((x) => x.modelId) ?? []), ...(r.ser?.models.map((m) => m.modelId) ?? []), ...(r.fdi?.config.modelId ? [r.fdi.config.modelId] : [])]);
  const models = r.models.filter((m) => used.has(m.id)).map((m) => m.name);
  if (r.wer) models.push(`the recogniser ${recogniserShort(r.wer)}`);
  const clips = r.datasets.reduce((n, d) => n + d.clips, 0);
  const synthetic = r.datasets.length > 0 && r.datasets.every((d) => d.synthetic) ? ', all synthetic speech' : r.datasets.some((d) => d.synthetic) ? ', some synthetic' : '';
  return `${systemText(r)} This audit tested ${list(models) || 'no model'} with ${list(ran.map((s) => SECTION_SHORT[s]))} on ${plural(r.datasets.length, 'dataset')} (${plural(clips, 'recording')}${synthetic}).`;
}

function purposeText(r: AuditResults): string {
  const c = r.audit.context;
  const intended = contextValue(c, 'purpose.intended');
  const out = contextValue(c, 'purpose.outOfScope');
  return `Intended purpose: ${intended ?? NOT_STATED}${out ? `; not for: ${out}` : ''}.`;
}

/** The short form of a row's caveat, for the conclusion sentence. */
function caveatShort(caveat: string): string {
  if (caveat.startsWith('acoustic baseline')) return 'the acoustic baseline: a property of the recordings, not of a model';
  if (caveat.startsWith('clip length')) return 'clip length may explain it';
  return '';
}

export function conclusionText(rows: FindingRow[], blindNotes: number): string {
  const shown = rows.filter((x) => x.shown);
  const rest = rows.length - shown.length;
  const named = shown.map((x) => {
    const c = caveatShort(x.caveat);
    return `${SECTION_SHORT[x.section]} ${x.compared}${c ? ` (${c})` : ''}`;
  });
  const first = shown.length === 0
    ? rows.length === 1 ? 'Conclusion: the one comparison does not show a difference unlikely to be chance' : `Conclusion: none of the ${plural(rows.length, 'comparison')} shows a difference unlikely to be chance`
    : `Conclusion: ${shown.length} of ${plural(rows.length, 'comparison')} ${shown.length === 1 ? 'shows' : 'show'} a difference unlikely to be chance: ${named.join('; ')}`;
  // Rows flagged blind are counted; a design named below without a row of its own (a recogniser
  // wrong on most words for every group) is pointed to without a count, which would read "0".
  const blindRows = rows.filter((x) => !x.shown && x.blind).length;
  const blind = blindRows > 0 ? `; ${blindRows} could not have detected one (named below)` : blindNotes > 0 ? '; what the design could not detect is named below' : '';
  const others = rest - blindRows;
  const none = others > 0 ? `; for ${blindRows > 0 ? 'the others' : others === 1 ? 'it' : 'them'}, “could be chance” does not prove there is no difference` : '';
  return `${first}${blind}${none}.`;
}

/** The designs that could not detect a difference, one sentence per reason (the rows flagged blind, grouped). */
function blindNotes(r: AuditResults, werNote: string | null): string[] {
  const out: string[] = werNote ? [werNote] : [];
  const s = r.speat;
  if (s) {
    const blind = s.results.filter((x) => x.mde && x.mde.d === null);
    if (blind.length > 0) {
      const names = blind.map((x) => {
        const t = s.tests.find((d) => d.id === x.testId)!;
        return `${speatComparedText(r, t, x.modelId)} (${speatUnitText(x, t)})`;
      });
      out.push(`SpEAT ${list(names)}: no split of so few ${blind.every((x) => speatUnit(x) === 'speaker') ? 'speakers' : 'clips'} can reach significance after adjustment, so no difference of any size could be shown.`);
    }
  }
  const ser = r.ser;
  if (ser) {
    const gated = ser.models.filter((m) => !serGate(m).informative);
    if (gated.length > 0) out.push(`SER with ${list(gated.map((m) => `${modelName(r, m.modelId)} (test R² lower bound ${fmt(m.downstream?.testR2Lower)})`))}: the emotion model could not be shown to have learned valence, so no bias can be traced through it.`);
    const blind = ser.models.filter((m) => serGate(m).informative).flatMap((m) => {
      const lr = (m.regressors.find((x) => x.selected) ?? m.regressors[0])?.learningRate;
      return m.tests.filter((t) => t.learningRate === lr && t.comparison?.mde && t.comparison.mde.difference === null).map((t) => {
        const d = r.speat?.tests.find((x) => x.id === t.testId);
        return `${d ? `${d.name} (${d.x.value} vs ${d.y.value})` : t.testId}, ${modelName(r, m.modelId)} (${t.comparison!.units.x} and ${t.comparison!.units.y} ${t.comparison!.unit === 'speaker' ? 'speakers' : 'recordings'})`;
      });
    });
    if (blind.length > 0) out.push(`SER predicted valence, ${list(blind)}: too few to detect a difference of any size with 80% power after adjustment.`);
    const a = ser.agreement;
    if (a.total > 0 && smallestAgreementP(a.total) >= 0.05) out.push(`SER agreement with SpEAT: with ${plural(a.total, 'pair')} the smallest possible p is ${fmt(smallestAgreementP(a.total))}, so agreement can never be shown at 0.05.`);
  }
  const wer = r.wer;
  if (wer) {
    const verdicts = werVerdicts(wer);
    const blind = wer.comparisons.filter((c, i) => !verdicts[i]!.tested && (!c.mde || c.mde.rateRatio === null));
    if (blind.length > 0) {
      const refs = [...new Set(blind.map((c) => c.referenceGroup))];
      const pairs = refs.length === 1 ? `${list(blind.map((c) => c.group))} vs ${refs[0]}` : list(blind.map((c) => `${c.group} vs ${c.referenceGroup}`));
      const counts = [...new Set(blind.flatMap((c) => [c.group, c.referenceGroup]).map((g) => wer.groups[g]?.speakers ?? 0))];
      const speakers = counts.length === 1 ? `${plural(counts[0]!, 'speaker')} per group` : `${counts.sort((x, y) => x - y).join(' to ')} speakers per group`;
      const max = blind.every((c) => c.mde && c.mde.rateRatio === null) ? blind[0]!.mde!.maxRateRatio : null;
      out.push(`WER ${pairs}: with ${speakers} no verdict is possible (it needs ${WER_VERDICT_MIN_SPEAKERS} per group)${max !== null ? `, and even a rate ratio of ${fmt(max)} would be detected less than 80% of the time` : ''}.`);
    }
  }
  const fdi = r.fdi;
  if (fdi) {
    const chance = fdi.groupings.filter((g) => g.verifier && !g.verifier.informative);
    const two = fdi.groupings.filter((g) => !chance.includes(g) && Object.keys(g.groups).length === 2);
    const names = (gs: FdiGrouping[]) => list(gs.map((g) => g.groupBy.join(' × ')));
    if (chance.length > 0) out.push(`FDI by ${names(chance)}: the verifier separates genuine from impostor trials no better than chance, so its fairness cannot be judged.`);
    if (two.length > 0) out.push(`FDI by ${names(two)}: with two groups FDI takes only two values and cannot be tested; compare the groups’ error rates instead.`);
  }
  return out;
}

export function findings(r: AuditResults): Findings {
  const wer = werRows(r);
  const rows = [...speatRows(r), ...serRows(r), ...wer.rows, ...fdiRows(r)];
  const uninformative = blindNotes(r, wer.note);
  return { audited: auditedText(r), purpose: purposeText(r), conclusion: conclusionText(rows, uninformative.length), uninformative, rows };
}

/** Rows as table cells, the audit's short name once per run of rows (a cell spanning them). */
export function findingsCells(rows: FindingRow[]): string[][] {
  return rows.map((x, i) => [i > 0 && rows[i - 1]!.section === x.section ? '' : SECTION_SHORT[x.section], x.compared, x.effect, x.p, x.mde, x.verdict, x.caveat, x.action]);
}
