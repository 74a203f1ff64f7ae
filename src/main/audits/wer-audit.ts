/** WER audit: subgroup WER/CER with CIs, deltas, permutation p and Poisson regression. */
import type { WerSection } from '../../shared/results';
import { UserError } from '../../shared/errors';
import { isUsable, listClips } from '../data/repository';
import { WER_MIN_SPEAKERS, WER_MIN_UTTERANCES } from '../data/repository';
import { analyseWer, StatsInputError, type WerRow } from '../stats';
import type { AuditContext } from './context';
import { unitSeed } from './units';

export function groupKey(groups: Record<string, string>, by: readonly string[]): string | null {
  const parts = by.map((l) => groups[l]);
  return parts.every((p) => p !== undefined && p !== '') ? parts.join(' × ') : null;
}

export async function runWer(ctx: AuditContext): Promise<WerSection> {
  const wer = ctx.plan.wer!;
  if (wer.hypotheses.source === 'model') {
    throw new UserError('running an ASR model inside Equivox is not available in this version; import the hypotheses as a column of the dataset', 'plan.wer.hypotheses');
  }
  const clips = listClips(ctx.db, wer.dataset).filter(isUsable);
  const rows: WerRow[] = [];
  let noGroup = 0;
  let noText = 0;
  for (const c of clips) {
    const g = groupKey(c.groups, wer.groupBy);
    if (g === null) {
      noGroup += 1;
      continue;
    }
    if (c.transcript === null || c.hypothesis === null) {
      noText += 1;
      continue;
    }
    rows.push({ id: c.id, group: g, reference: c.transcript, hypothesis: c.hypothesis, ...(c.speaker ? { speaker: c.speaker } : {}) });
  }
  if (noGroup) ctx.warn(`WER: ${noGroup} utterance(s) lack a ${wer.groupBy.join(' or ')} label and were left out.`);
  if (noText) ctx.warn(`WER: ${noText} utterance(s) lack a reference transcript or a hypothesis and were left out.`);
  if (rows.length === 0) throw new UserError('WER: no utterance has a group, a reference transcript and a hypothesis', 'plan.wer.dataset');
  const key = `wer/${wer.dataset}/${wer.groupBy.join('+')}`;
  const analysis = await ctx.units.once(key, 'wer', () => {
    try {
      return analyseWer(rows, {
        normalize: wer.normalize,
        ...(wer.referenceGroup ? { referenceGroup: wer.referenceGroup } : {}),
        bootstrap: wer.bootstrap,
        permutations: wer.permutations,
        by: wer.by,
        // Not the unit key: it holds the dataset's random id, and the same data and seed must give the same numbers in any project.
        seed: unitSeed(ctx.seed, `wer/${wer.groupBy.join('+')}`),
      });
    } catch (err) {
      if (err instanceof StatsInputError || err instanceof RangeError) throw new UserError(`WER: ${err.message}`, 'plan.wer');
      throw err;
    }
  });
  ctx.task.progress('WER', 1, 1);
  const groups: WerSection['groups'] = {};
  for (const [g, r] of Object.entries(analysis.groups)) {
    const speakers = new Set(rows.filter((x) => x.group === g).map((x) => x.speaker ?? x.id)).size;
    const warnings: string[] = [];
    if (speakers < WER_MIN_SPEAKERS || r.utterances < WER_MIN_UTTERANCES) {
      warnings.push(`${speakers} speakers and ${r.utterances} utterances: below the field guide's floor of ${WER_MIN_SPEAKERS} speakers or ${WER_MIN_UTTERANCES} utterances, so differences are uncertain`);
    }
    groups[g] = { ...r, speakers, warnings } as WerSection['groups'][string];
  }
  const small = Object.entries(groups).filter(([, r]) => r.warnings.length > 0).map(([g]) => g);
  if (small.length) ctx.warn(`WER: group(s) ${small.join(', ')} are below the field guide's floor of ${WER_MIN_SPEAKERS} speakers or ${WER_MIN_UTTERANCES} utterances; treat differences as indicative.`);
  return {
    config: {
      hypotheses: wer.hypotheses.source,
      asrModel: null,
      normalize: wer.normalize,
      groupBy: wer.groupBy,
      referenceGroup: analysis.referenceGroup,
      bootstrap: wer.bootstrap,
      permutations: wer.permutations,
      by: wer.by,
    },
    datasetId: wer.dataset,
    groups,
    comparisons: analysis.comparisons,
    overall: analysis.overall,
  };
}
