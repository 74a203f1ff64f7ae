/**
 * Plain-language findings generated from the results (METHODS.md, "Plain-language
 * interpretation"): direction in words, Cohen's magnitude, "unlikely to be chance" only
 * below alpha after adjustment, never "proves", very uncertain below 10 stimuli.
 */
import type { AuditResults, Correction, FdiSection, SpeatResult, WerSection } from '../../shared/results';
import { fmt, fmtCi, fmtDeltaPpWords, fmtRate, fmtSigned } from '../../shared/format';
import { chancePhrase, magnitude } from '../../shared/interpret';
import { serAgreementSentence, serModelFindings } from '../../shared/ser-agreement';
import { durationCheckText } from '../../shared/duration-check';
import { fdiThresholdDecimals, fmtThreshold } from '../../shared/threshold-format';
import { plural, werCiSource, werRateRatio, werVerdicts } from '../../shared/wer-verdict';
import { fdiCiUnitText, fdiVerdict, speatControlNote, speatSampleSize, speatVerdict, werAbove100Text, werPowerText } from '../../shared/verdicts';
import { FIELD_GUIDE_FLOOR_MARK, fieldGuideFloor, nameFieldGuide } from '../../shared/field-guide';

export { serAgreementSentence } from '../../shared/ser-agreement';

export { CORRECTION_NAMES, magnitude } from '../../shared/interpret';

export function chanceText(pAdjusted: number, alpha: number, nTests: number, correction: Correction): string {
  const c = chancePhrase(pAdjusted, alpha, nTests, correction);
  return c.unlikely ? `is ${c.phrase}` : c.phrase;
}

export function modelName(results: AuditResults, id: string | null): string {
  if (id === null) return '–';
  return results.models.find((m) => m.id === id)?.name ?? id;
}

export interface Finding {
  /** One paragraph of plain language. */
  text: string;
}

export function speatFindings(results: AuditResults): string[] {
  const s = results.speat;
  if (!s) return [];
  const out: string[] = [];
  for (const t of s.tests) {
    const rs = s.results.filter((r) => r.testId === t.id);
    if (rs.length === 0) continue;
    const parts = rs.map((r: SpeatResult) => {
      const v = speatVerdict(r, t, s);
      const mag = magnitude(r.effectSize);
      const dir = mag === 'negligible' || v.favoured === null ? `recordings of ${t.x.value} and ${t.y.value} speakers sit about equally close to pleasant speech` : `recordings of ${v.favoured} speakers sit closer to pleasant speech than ${v.other} speakers' do (${v.favoured} favoured)`;
      const control = speatControlNote(results.models.find((m) => m.id === r.modelId));
      return `${modelName(results, r.modelId)}: ${dir} (d = ${fmtSigned(r.effectSize)}, ${mag}); this ${v.unlikely ? 'is ' : ''}${v.phrase}${v.power}.${control ? ` ${control}` : ''}`;
    });
    // Fewer than 10 per group is very uncertain (METHODS.md): speakers when they are the unit.
    const size = rs.map((r) => speatSampleSize(r, t)).reduce((a, b) => (b.n < a.n ? b : a));
    const few = size.n < 10 ? ` With only ${size.n} ${size.what} per group, these estimates are very uncertain.` : '';
    const human = t.humanIatD !== null ? ` For comparison, people's implicit association (human IAT D) in the SpEAT paper was ${fmtSigned(t.humanIatD)}.` : '';
    out.push(`${t.name}. ${parts.join(' ')}${few}${human}`);
  }
  return out;
}

export function serFindings(results: AuditResults): string[] {
  if (!results.ser) return [];
  return [serAgreementSentence(results), ...serModelFindings(results)];
}

/** Who wrote the hypotheses, in words: the report names the recogniser wherever the model is named (METHODS.md § Verdicts that hold, Provenance). */
export function recogniserName(wer: WerSection): string {
  return wer.config.asrModel ?? 'a recogniser the plan does not name (results written before the plan had to name it)';
}

export function werHypothesesText(wer: WerSection): string {
  return wer.config.hypotheses === 'model'
    ? `Hypotheses: transcribed on this computer by ${recogniserName(wer)}.`
    : `Hypotheses: imported with the recordings, written by ${recogniserName(wer)}.`;
}

/** The permutation test named as secondary only where it is not a comparison's primary test. */
export function werSecondaryPermutationText(wer: WerSection): string {
  const perm = wer.config.by === 'speaker' ? 'speaker-permutation' : 'utterance-permutation';
  const verdicts = werVerdicts(wer);
  const primaryFor = verdicts.filter((v) => v.test === perm).map((v) => v.group);
  if (primaryFor.length === verdicts.length && verdicts.length > 0) return '';
  const exact = wer.comparisons.some((c) => c.permutationExact) ? ', every split enumerated where they fit' : '';
  const where = primaryFor.length > 0 ? ` for the comparisons where it is not the primary test (it is primary for ${primaryFor.join(', ')})` : '';
  return ` and the permutation test at the ${wer.config.by} level (${wer.config.permutations} permutations${exact})${where}`;
}

/** Holm-adjusted primary p per tested WER comparison: the one number behind each verdict. */
export function werAdjusted(results: AuditResults): number[] {
  return results.wer ? werVerdicts(results.wer).flatMap((v) => (v.pAdjusted === null ? [] : [v.pAdjusted])) : [];
}

export function werFindings(results: AuditResults): string[] {
  const wer = results.wer;
  if (!wer) return [];
  const verdicts = werVerdicts(wer);
  return wer.comparisons.map((c, i) => {
    const g = wer.groups[c.group];
    const ref = wer.groups[c.referenceGroup];
    const worse = c.absoluteDelta > 0;
    const few = g && g.speakers < 10 ? ` It has only ${plural(g.speakers, 'speaker')}, so the interval is wide.` : '';
    const rr = werRateRatio(c);
    return `${c.group}: word error rate ${fmtRate(g?.wer)} (95% CI ${fmtCi(g?.ci95 ? [g.ci95[0] * 100, g.ci95[1] * 100] : null)}%) against ${fmtRate(ref?.wer)} for ${c.referenceGroup}: the recogniser makes ${worse ? 'more' : 'fewer'} errors for ${c.group} speakers (${fmtDeltaPpWords(c.absoluteDelta)}, rate ratio ${fmt(rr.value)}${rr.ci95 ? `, 95% CI ${fmtCi(rr.ci95)}, ${werCiSource(c, verdicts[i]!)}` : ''}); this ${verdicts[i]!.unlikely ? 'is ' : ''}${verdicts[i]!.phrase}${werPowerText(c, verdicts[i]!.unlikely)}.${few}${werAbove100Text(c.group, g)}`;
  });
}

/** Rates closer than this are one value printed twice (they come from counts over at most millions of trials). */
const TIE = 1e-9;

/** The groups at the worst value of a metric, in words ("uk and us"); '–' when none has one. */
export function worstGroups(values: [string, number | null][], higherIsWorse: boolean): string {
  const known = values.filter((v): v is [string, number] => v[1] !== null && Number.isFinite(v[1]));
  if (known.length === 0) return '–';
  const best = higherIsWorse ? Math.max(...known.map((v) => v[1])) : Math.min(...known.map((v) => v[1]));
  const names = known.filter((v) => Math.abs(v[1] - best) <= TIE).map((v) => v[0]);
  return names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]} (tied)`;
}

export function fdiFindings(results: AuditResults): string[] {
  const fdi = results.fdi;
  if (!fdi) return [];
  const td = fdiThresholdDecimals(fdi);
  return fdi.groupings.map((g) => {
    const groups = Object.entries(g.groups);
    // Every group at the extreme: where two tie, both are named (issue 34.2).
    const worst = (pick: (m: (typeof groups)[number][1]) => number | null, higherIsWorse: boolean): string => worstGroups(groups.map(([name, m]) => [name, pick(m)]), higherIsWorse);
    const fprW = worst((m) => m.fpr, true);
    const fnrW = worst((m) => m.fnr, true);
    const accW = worst((m) => m.accuracy, false);
    const agree = fprW === fnrW && fnrW === accW;
    const v = fdiVerdict(g);
    const verdict = !v.conclusive ? v.sentence : g.fdi < 0.05 ? 'the metrics essentially agree on who is worse served' : agree ? 'the metrics name the same worst-off group but disagree on by how much' : v.sentence;
    const rates = g.verifier && !g.verifier.informative ? '' : `the highest false positive rate is for ${fprW}, the highest false negative rate for ${fnrW} and the lowest accuracy for ${accW} (disparities: FPR ${fmt(g.disparities.fpr)}, FNR ${fmt(g.disparities.fnr)}, accuracy ${fmt(g.disparities.accuracy)}; worst-group accuracy ${fmt(g.worstGroupAccuracy)}). `;
    return `Grouped by ${g.groupBy.join(' × ')} at threshold ${fmtThreshold(g.threshold, td)}: ${rates}FDI = ${fmt(g.fdi)} (95% CI ${fmtCi(g.fdiCi95)}${fdiCiUnitText(g)}): ${verdict}.`;
  });
}

/** A dataset's synthetic flag: only a dataset marked synthetic is said to be; an unmarked one was never asked about. */
export function syntheticText(synthetic: boolean): string {
  return synthetic ? 'yes' : 'not stated';
}

/** The trials FDI used per group, from the results (the plan's figure is only a cap). */
export function fdiTrialsText(fdi: FdiSection): string {
  const used = fdi.groupings.map((g) => `${g.groupBy.join(' × ')}: ${Object.entries(g.groups).map(([name, m]) => `${name} ${m.n}`).join(', ')}`);
  const cap = fdi.config.trialsPerGroup;
  const plan = cap !== null ? ` (the plan allows up to ${cap} per group: half genuine, half impostor)` : '';
  // Planned against used, with the reason (issue 34.2): trials are pairs of one group's recordings, balanced.
  const fewer = cap !== null ? fdi.groupings.flatMap((g) => Object.entries(g.groups).filter(([, m]) => m.n < 2 * Math.floor(cap / 2)).map(([name, m]) => `${name} ${m.n}`)) : [];
  const why = fewer.length === 0 || cap === null
    ? ''
    : `. ${fewer.length === 1 ? 'One group has' : `${fewer.length} groups have`} fewer than the plan's ${cap} (${fewer.join(', ')}): their recordings give fewer than ${Math.floor(cap / 2)} pairs of one kind (genuine: two recordings of one speaker; impostor: recordings of two of the group's speakers), every pair of that kind is used, and as many of the other, so genuine and impostor trials stay equal`;
  return `FDI trials used per group${plan}: ${used.join('; ')}${why}`;
}

/** Caveats the summary must repeat: the pipeline's warnings plus what the report sees. */
export function caveats(results: AuditResults): string[] {
  // Warnings written before the field guide was named in them name it now.
  const out = [...results.warnings.map(nameFieldGuide), ...(results.errors ?? []).map((e) => `The ${e.section.toUpperCase()} section could not run: ${e.message}`)];
  const synthetic = results.datasets.filter((d) => d.synthetic);
  if (synthetic.length > 0 && !out.some((w) => /synthetic/i.test(w))) {
    out.push(`${synthetic.map((d) => d.name).join(', ')} ${synthetic.length === 1 ? 'is' : 'are'} synthetic: the findings illustrate the method and do not describe how the models treat real people.`);
  }
  for (const t of results.speat?.tests ?? []) {
    // Speakers per group when they are the unit of the test's results (the fewest over its models).
    const sizes = (results.speat?.results ?? []).filter((r) => r.testId === t.id).map((r) => speatSampleSize(r, t));
    const { n, what } = sizes.length > 0 ? sizes.reduce((a, b) => (b.n < a.n ? b : a)) : { n: Math.min(t.x.n, t.y.n), what: 'stimuli' };
    if (n < 10 && !out.some((w) => w.includes(t.x.value) || w.toLowerCase().includes(t.name.toLowerCase().split(':')[0]!))) {
      out.push(`${t.name} has only ${n} ${what} per group: its effect size is very uncertain.`);
    }
    const dur = t.confounds.duration;
    // The pipeline's own warning may already name this confound: say it once.
    const named = out.some((w) => w.includes(t.name) && /length|duration/i.test(w));
    if (dur && dur.p < (results.speat?.config.alpha ?? 0.05) && !named) {
      out.push(`${t.name}: clip durations differ between the groups (${durationCheckText(dur)}); duration may confound the effect.`);
    }
  }
  // The field guide's floor once, naming every group below it (issue 21.6: each caveat once).
  const small = Object.entries(results.wer?.groups ?? {}).filter(([, r]) => r.speakers < 50 || r.utterances < 500);
  if (small.length > 0 && !out.some((w) => w.includes(FIELD_GUIDE_FLOOR_MARK))) {
    out.push(`${small.length === 1 ? 'WER group' : 'WER groups'} ${small.map(([g, r]) => `${g} (${plural(r.speakers, 'speaker')}, ${plural(r.utterances, 'utterance')})`).join(', ')} ${small.length === 1 ? 'is' : 'are'} below ${fieldGuideFloor(50, 500)}.`);
  }
  if (!results.audit.planSha256) out.push('The audit plan was not locked before the run, so the analysis was not pre-registered.');
  if (results.audit.deviations.length > 0) out.push(`The run deviates from the locked plan in ${results.audit.deviations.length} setting(s); see the appendix.`);
  return [...new Set(out)];
}
