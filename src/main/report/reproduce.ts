/**
 * reproduce.json, attached inside the report: for each section whose input the report
 * carries, the `equivox stats …` command line that recomputes its numbers from the attached
 * data, with the seed the audit used for that step (the audit derives one seed per step from
 * the plan's seed; the appendix shows the plan's). A second auditor runs it on the files
 * `report extract` wrote and compares with results.json.
 */
import type { AuditResults } from '../../shared/results';
import { unitSeed } from '../audits/units';

export const REPRODUCE_ATTACHMENT = 'reproduce.json';

export interface ReproduceStep {
  section: 'wer';
  /** Arguments after `equivox` (file names relative to the folder report extract wrote). */
  argv: string[];
  /** Where in results.json the same numbers are. */
  compare: string;
  note: string;
}

export function reproduceSteps(results: AuditResults): ReproduceStep[] {
  const steps: ReproduceStep[] = [];
  const w = results.wer;
  if (w?.utterances && w.utterances.length > 0) {
    steps.push({
      section: 'wer',
      argv: [
        'stats', 'wer', '--input', 'wer-utterances.csv',
        // The CSV holds the texts already normalised: normalising again must change nothing.
        '--normalize', 'none',
        '--reference-group', w.config.referenceGroup,
        '--bootstrap', String(w.config.bootstrap),
        '--permutations', String(w.config.permutations),
        '--by', w.config.by,
        '--nagq', String(w.config.nAGQ),
        '--seed', String(unitSeed(results.audit.seed, `wer/${w.config.groupBy.join('+')}`)),
      ],
      compare: 'wer.groups (wer, ci95, errors, referenceWords) and wer.comparisons (primary test p-values)',
      note: `The texts in wer-utterances.csv were normalised with "${w.config.normalize}" by the audit; the rerun compares them as they are.`,
    });
  }
  return steps;
}

export function reproduceJson(results: AuditResults): Buffer | null {
  const steps = reproduceSteps(results);
  return steps.length === 0 ? null : Buffer.from(`${JSON.stringify({ equivoxVersion: results.equivoxVersion, auditSeed: results.audit.seed, steps }, null, 2)}\n`, 'utf8');
}
