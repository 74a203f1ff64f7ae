/**
 * The appendix's reporting checklist (issue 34.4): each row says "yes" only where the
 * results hold what it claims. Pre-registration is told apart from a lock just before the
 * run: "pre-registered" only when the plan was locked before any of its datasets was first
 * imported (the auditor could not yet have seen the data), otherwise "locked before the run".
 */
import type { AuditResults } from '../../shared/results';

export type Preregistration = 'pre-registered' | 'locked before the run' | 'locked after the run started' | 'not locked';

/** How the plan was fixed against its data and its run, with the times that show it. */
export function preregistration(r: AuditResults): { status: Preregistration; text: string } {
  const locked = r.audit.lockedAt;
  if (!r.audit.planSha256 || !locked) return { status: 'not locked', text: 'no: the plan was not locked, so it was not fixed before the data or the run' };
  const lockedMs = Date.parse(locked);
  const imports = r.datasets.map((d) => d.importedAt);
  const known = imports.every((t): t is string => typeof t === 'string' && !Number.isNaN(Date.parse(t)));
  const firstImport = known && imports.length > 0 ? imports.reduce((a, b) => (Date.parse(a) <= Date.parse(b) ? a : b)) : null;
  const deviated = r.audit.deviations.length > 0 ? '; the run deviated from it (appendix, deviations)' : '';
  if (firstImport !== null && lockedMs < Date.parse(firstImport)) {
    return { status: 'pre-registered', text: `yes, pre-registered: the plan was locked at ${locked}, before its data were first imported (${firstImport}); hash under Report details${deviated}` };
  }
  const importWhen = firstImport !== null ? `after its data were imported (${firstImport})` : 'the datasets’ import times are not recorded in these results, so it is not shown to precede the data';
  if (lockedMs <= Date.parse(r.audit.startedAt)) {
    return { status: 'locked before the run', text: `locked before the run, not pre-registered: the plan was locked at ${locked}, ${importWhen}; the run started at ${r.audit.startedAt}${deviated}` };
  }
  return { status: 'locked after the run started', text: `no: the plan was locked at ${locked}, after the run started (${r.audit.startedAt})${deviated}` };
}

/** Which sections' effect sizes carry uncertainty, and which do not, from the results themselves. */
export function effectUncertainty(r: AuditResults): { covered: string[]; missing: string[] } {
  const covered: string[] = [];
  const missing: string[] = [];
  if (r.speat) {
    const withSe = r.speat.results.every((x) => (x.standardErrorAtCompared !== undefined ? x.standardErrorAtCompared !== null && Number.isFinite(x.standardErrorAtCompared) : x.standardErrors.length > 0));
    const withCi = r.speat.results.every((x) => x.ci95AtCompared);
    (withSe && r.speat.results.length > 0 ? covered : missing).push(withSe ? (withCi ? 'SpEAT d (bootstrap 95% CI)' : 'SpEAT d (bootstrap SE)') : 'SpEAT d (no bootstrap SE: the plan set no resamples)');
  }
  if (r.ser) {
    const tests = r.ser.models.flatMap((m) => m.tests);
    const withCi = tests.length > 0 && tests.every((t) => t.comparison && t.comparison.ci95.every(Number.isFinite));
    if (withCi) covered.push('SER difference in predicted valence (95% CI)');
    missing.push('SER Cohen’s d (no interval)');
  }
  if (r.wer) {
    const groups = Object.values(r.wer.groups);
    const groupCi = groups.length > 0 && groups.every((g) => g.ci95 !== null);
    (groupCi ? covered : missing).push(groupCi ? 'WER per group (95% CI)' : 'WER per group (no CI: the plan set no bootstrap)');
    const ratioCi = r.wer.comparisons.length > 0 && r.wer.comparisons.every((c) => c.mixed?.ci95);
    (ratioCi ? covered : missing).push(ratioCi ? 'WER rate ratios (95% CI, mixed model)' : 'WER differences between groups (no interval)');
  }
  if (r.fdi) {
    const ci = r.fdi.groupings.length > 0 && r.fdi.groupings.every((g) => g.fdiCi95 !== null);
    (ci ? covered : missing).push(ci ? 'FDI (bootstrap 95% CI)' : 'FDI (no CI: the plan set no bootstrap)');
  }
  return { covered, missing };
}

/** The effect-size row: "yes" only when every effect size shown has an interval or standard error. */
export function effectUncertaintyText(r: AuditResults): string {
  const { covered, missing } = effectUncertainty(r);
  if (missing.length === 0 && covered.length > 0) return `yes: ${covered.join('; ')}`;
  if (covered.length === 0) return `no: ${missing.join('; ')}`;
  return `partly: ${covered.join('; ')}. Without: ${missing.join('; ')}`;
}

/** The checklist's rows: item, and what the report holds for it. */
export function checklistRows(r: AuditResults): [string, string][] {
  const has = (b: boolean, where: string): string => (b ? `yes: ${where}` : 'not reported');
  const corrected = !!r.speat || !!r.wer || !!r.ser?.config.comparison;
  return [
    ['Datasets, sizes and provenance (manifest hashes)', has(r.datasets.length > 0, 'appendix, Datasets')],
    ['Demographic groups with clips, speakers, durations', has(r.datasets.some((d) => d.groups.length > 0), 'data tables per section')],
    ['Sampling and matching of stimuli', has(!!r.speat, 'appendix, Sampling')],
    ['Text normalisation rules', has(!!r.wer, 'section 3, Method')],
    ['Models with versions (SHA-256) and execution provider', has(r.models.length > 0 && (!r.wer || r.wer.config.asrModel !== null), r.wer ? 'models tables, WER speech recogniser table, appendix' : 'models tables, appendix')],
    ['Seeds and software versions', has(true, 'appendix, Software')],
    ['Pre-registration (plan locked before its data were imported)', preregistration(r).text],
    ['Effect sizes with uncertainty (SE, CIs)', effectUncertaintyText(r)],
    ['Statistical tests with statistics and degrees of freedom', has(true, 'appendix, Statistical tests')],
    ['Correction for multiple comparisons (raw and adjusted p)', has(corrected, 'results tables')],
    ['Confound checks', has(!!r.speat?.tests.some((t) => t.confounds.duration), 'section 1, data table')],
    ['Limitations', has(true, 'Limitations')],
  ];
}
