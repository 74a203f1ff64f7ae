/**
 * WER audit: subgroup WER/CER with CIs, deltas, permutation p and Poisson regression.
 * Hypotheses come from the dataset's column or from an ASR model run here (greedy
 * decoding, one resumable unit per clip), in which case the model's confidence
 * calibration is reported per group too.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { WerSection } from '../../shared/results';
import { recogniserLabel } from '../../shared/plan';
import { ApiError, CancelledError, UserError } from '../../shared/errors';
import { decodeAudio } from '../audio';
import { getDataset, isUsable, listClips, type Clip } from '../data/repository';
import { WER_MIN_SPEAKERS, WER_MIN_UTTERANCES } from '../data/repository';
import { fieldGuideFloor } from '../../shared/field-guide';
import { borrowRecognizer, calibrationByGroup, ensureModel, utteranceAccuracy, type ModelManifest, type RecognizerLease, type Transcript } from '../inference';
import { clipBudget, loadBudget } from '../inference/budget';
import { analyseWer, measureUtterance, StatsInputError, werComparisonMdes, type WerAnalysis, type WerRow } from '../stats';
import type { WerMde } from '../../shared/results';
import type { AuditContext } from './context';
import { werSectionFrom, werSectionGroups } from './wer-section';
import { plannedReference } from './reference-groups';
import { unitSeed } from './units';

export function groupKey(groups: Record<string, string>, by: readonly string[]): string | null {
  const parts = by.map((l) => groups[l]);
  return parts.every((p) => p !== undefined && p !== '') ? parts.join(' × ') : null;
}

/** The ASR model a plan names: resolved by run.ts into ctx.models, else from the store. */
async function asrManifest(ctx: AuditContext, ref: string): Promise<ModelManifest> {
  let m = ctx.models.get(ref);
  if (!m) {
    try {
      m = (await ensureModel(ctx.dataDir, ref)).manifest;
    } catch (err) {
      throw new UserError(`WER: ASR model ${ref}: ${err instanceof Error ? err.message : String(err)}`, 'plan.wer.hypotheses.modelId');
    }
  }
  if (m.task !== 'asr') throw new UserError(`WER: ${m.name} is not a speech recognition model; import a CTC (Wav2Vec2ForCTC) or Whisper encoder-decoder export`, 'plan.wer.hypotheses.modelId');
  return m;
}

/**
 * Transcribe clips with the ASR model, one committed unit per (model, audio) so a killed
 * run resumes where it stopped; the recogniser is only loaded when some clip is not done.
 * Clips that cannot be decoded are left out (null) and counted.
 */
async function transcribeClips(ctx: AuditContext, model: ModelManifest, clips: Clip[], decode: { language?: string; task?: 'transcribe' | 'translate' }): Promise<{ byId: Map<string, Transcript>; failed: number }> {
  const byId = new Map<string, Transcript>();
  // Borrowed, not created: in a job worker a recogniser of the same model and settings
  // that an earlier audit set up is reused, and this one is kept for the next
  // (inference/session-pool.ts); elsewhere it is released at the end, as before.
  let lease: RecognizerLease | null = null;
  let failed = 0;
  // Language and task change the transcripts, so they are part of each unit's key.
  const settings = model.asr?.kind === 'whisper' ? `/${decode.language ?? 'default'}/${decode.task ?? 'transcribe'}` : '';
  const modelBytes = model.files.reduce((a, f) => a + f.bytes, 0);
  const subject = `the speech recogniser “${model.name}”`;
  try {
    for (const [i, c] of clips.entries()) {
      ctx.task.throwIfCancelled();
      ctx.task.progress('Transcribing', i, clips.length);
      try {
        const sha = c.sha256 ?? createHash('sha256').update(readFileSync(c.path)).digest('hex');
        const t = await ctx.units.once<Transcript>(`wer-asr/${model.id}${settings}/${sha}`, 'wer', async () => {
          const audio = (await decodeAudio(c.path)).samples;
          // The recogniser runs from here on, held to budgets (inference/budget.ts): its load, then each clip.
          if (!lease) {
            ctx.task.budget?.(loadBudget(modelBytes, subject));
            lease = await borrowRecognizer(model, undefined, decode).finally(() => ctx.task.budget?.(null));
          }
          ctx.task.budget?.(clipBudget(modelBytes, audio.length / 16000, subject, c.path));
          return lease.recognizer.transcribe(audio).finally(() => ctx.task.budget?.(null));
        });
        byId.set(c.id, t);
      } catch (err) {
        if (err instanceof CancelledError || (err instanceof ApiError && err.code === 'cancelled')) throw err;
        // A clip that cannot be read or decoded must not stop the audit; the model failing
        // to load does (a plain error before any recogniser exists).
        if (lease === null && !(err instanceof UserError) && (err as NodeJS.ErrnoException).code === undefined) throw err;
        // A language the model does not know is the plan's problem, not the clip's.
        if (err instanceof UserError && err.field === 'language') throw new UserError(`WER: ${err.message}`, 'plan.wer.hypotheses.language');
        failed += 1;
      }
    }
    ctx.task.progress('Transcribing', clips.length, clips.length);
  } finally {
    if (lease) await (lease as RecognizerLease).release();
  }
  return { byId, failed };
}

export async function runWer(ctx: AuditContext): Promise<WerSection> {
  const wer = ctx.plan.wer!;
  const asr = wer.hypotheses.source === 'model' ? await asrManifest(ctx, wer.hypotheses.modelId) : null;
  const clips = listClips(ctx.db, wer.dataset).filter(isUsable);
  const rows: WerRow[] = [];
  let noGroup = 0;
  let noText = 0;
  const candidates: { clip: Clip; group: string }[] = [];
  for (const c of clips) {
    const g = groupKey(c.groups, wer.groupBy);
    if (g === null) {
      noGroup += 1;
      continue;
    }
    // With model hypotheses the hypothesis column is not read: only the reference is needed.
    if (c.transcript === null || (!asr && c.hypothesis === null)) {
      noText += 1;
      continue;
    }
    candidates.push({ clip: c, group: g });
  }
  let transcripts: Map<string, Transcript> | null = null;
  const hyp = wer.hypotheses.source === 'model' ? wer.hypotheses : null;
  if (asr) {
    const decode = { ...(hyp?.language ? { language: hyp.language } : {}), ...(hyp?.task ? { task: hyp.task } : {}) };
    const t = await transcribeClips(ctx, asr, candidates.map((x) => x.clip), decode);
    transcripts = t.byId;
    if (t.failed) ctx.warn(`WER: ${t.failed} clip(s) could not be decoded or transcribed with ${asr.name} and were left out.`);
    if (hyp?.language === 'auto') {
      const counts = new Map<string, number>();
      for (const tr of t.byId.values()) if (tr.language) counts.set(tr.language, (counts.get(tr.language) ?? 0) + 1);
      const listed = [...counts].sort((a, b) => b[1] - a[1]).map(([l, n]) => `${l} ${n}`).join(', ');
      ctx.warn(`WER: ${asr.name} detected the language of each recording itself (${listed || 'none'}); a wrong guess makes its transcripts, and so the error rates, worse for that recording.`);
    }
  }
  for (const { clip: c, group: g } of candidates) {
    const hypothesis = transcripts ? transcripts.get(c.id)?.text : c.hypothesis;
    if (hypothesis === undefined || hypothesis === null) continue;
    rows.push({ id: c.id, group: g, reference: c.transcript!, hypothesis, ...(c.speaker ? { speaker: c.speaker } : {}) });
  }
  if (noGroup) ctx.warn(`WER: ${noGroup} utterance(s) lack a ${wer.groupBy.join(' or ')} label and were left out.`);
  if (noText) ctx.warn(asr ? `WER: ${noText} utterance(s) lack a reference transcript and were left out.` : `WER: ${noText} utterance(s) lack a reference transcript or a hypothesis and were left out.`);
  if (rows.length === 0) throw new UserError('WER: no utterance has a group, a reference transcript and a hypothesis', 'plan.wer.dataset');
  const noSpeaker = rows.filter((r) => r.speaker === undefined).length;
  if (noSpeaker > 0 && noSpeaker < rows.length) {
    ctx.warn(`WER: ${noSpeaker} of ${rows.length} utterance(s) have no speaker id, so speakers are not used: the tests treat utterances as independent, which makes them too ready to call a difference "unlikely to be chance" when speakers repeat.`);
    for (const r of rows) delete r.speaker;
  }
  if (wer.by === 'speaker' && noSpeaker > 0) throw new UserError(`WER: the plan resamples speakers, but ${noSpeaker} utterance(s) have no speaker id`, 'plan.wer.by');
  // The plan's reference, never one picked from the results; a group it names must be in the data.
  const reference = plannedReference(wer.referenceGroup, [...new Set(rows.map((r) => r.group))], { section: 'WER', data: `“${getDataset(ctx.db, wer.dataset).name}”`, groupBy: wer.groupBy, field: 'plan.wer.referenceGroup' });
  if (reference.design.kind === 'every-pair' && reference.design.unplanned) ctx.warn('WER: the plan names no reference group, so every pair of groups was compared (Holm over all pairs); a plan names one, or every pair, before it can be locked.');
  // The model is part of the key: a plan changed to another ASR model must not reuse numbers.
  const decodeKey = hyp && (hyp.language || hyp.task) ? `/${hyp.language ?? 'default'}/${hyp.task ?? 'transcribe'}` : '';
  const key = asr ? `wer/${wer.dataset}/${wer.groupBy.join('+')}/asr/${asr.id}${decodeKey}` : `wer/${wer.dataset}/${wer.groupBy.join('+')}`;
  const analysis = await ctx.units.once(key, 'wer', (): WerAnalysis & { comparisons: (WerAnalysis['comparisons'][number] & { mde?: WerMde | null })[] } => {
    try {
      const a = analyseWer(rows, {
        normalize: wer.normalize,
        ...(wer.secondaryNormalize ? { secondaryNormalize: wer.secondaryNormalize } : {}),
        ...(reference.group !== null ? { referenceGroup: reference.group } : {}),
        bootstrap: wer.bootstrap,
        permutations: wer.permutations,
        ...(wer.by !== 'auto' ? { by: wer.by } : {}),
        nAGQ: wer.nAGQ,
        // Not the unit key: it holds the dataset's random id, and the same data and seed must give the same numbers in any project.
        seed: unitSeed(ctx.seed, `wer/${wer.groupBy.join('+')}`),
      });
      if (wer.mdeSimulations === 0) return a;
      // What each comparison could have detected, at the verdict's alpha after Holm's strictest step.
      const mdes = werComparisonMdes(rows, a, { alpha: wer.alpha, simulations: wer.mdeSimulations, seed: unitSeed(ctx.seed, `wer-mde/${wer.groupBy.join('+')}`), nAGQ: wer.nAGQ });
      return { ...a, comparisons: a.comparisons.map((c, i) => ({ ...c, mde: mdes[i] ?? null })) };
    } catch (err) {
      if (err instanceof StatsInputError || err instanceof RangeError) throw new UserError(`WER: ${err.message}`, 'plan.wer');
      throw err;
    }
  });
  ctx.task.progress('WER', 1, 1);
  const groups = werSectionGroups(rows, analysis);
  const small = Object.entries(groups).filter(([, r]) => r.warnings.length > 0).map(([g]) => g);
  if (small.length) ctx.warn(`WER: group(s) ${small.join(', ')} are below ${fieldGuideFloor(WER_MIN_SPEAKERS, WER_MIN_UTTERANCES)}; treat differences as indicative.`);
  let calibration: WerSection['calibration'];
  if (transcripts) {
    // Per utterance: confidence as the recogniser defines it (mean max softmax probability
    // of the emitted tokens) against accuracy = 1 − utterance WER clipped to [0, 1].
    const cal = rows.flatMap((r) => {
      const conf = transcripts!.get(r.id)?.confidence;
      if (conf === null || conf === undefined) return [];
      const m = measureUtterance(r.reference, r.hypothesis, wer.normalize);
      return [{ group: r.group, confidence: conf, accuracy: utteranceAccuracy(m.errors, m.referenceWords) }];
    });
    const noConf = rows.length - cal.length;
    if (noConf) ctx.warn(`WER: ${noConf} utterance(s) got an empty transcript (no confidence) and are left out of the calibration.`);
    if (cal.length) calibration = calibrationByGroup(cal);
  }
  const section = werSectionFrom(rows, analysis, {
    hypotheses: wer.hypotheses.source,
    asrModel: asr ? asr.name : wer.hypotheses.source === 'column' && wer.hypotheses.recogniser ? recogniserLabel(wer.hypotheses.recogniser) : null,
    ...(wer.hypotheses.source === 'column' && wer.hypotheses.recogniser ? { recogniser: wer.hypotheses.recogniser } : {}),
    ...(asr?.asr?.kind === 'whisper' && wer.hypotheses.source === 'model' ? { asrLanguage: wer.hypotheses.language ?? 'en', asrTask: wer.hypotheses.task ?? 'transcribe' } : {}),
    groupBy: wer.groupBy,
    alpha: wer.alpha,
    nAGQ: wer.nAGQ,
    datasetId: wer.dataset,
    reference: reference.design,
  });
  // Each utterance's duration as the import measured it, for the report's per-clip durations (issue 34.6).
  const durations = new Map(candidates.map(({ clip }) => [clip.id, clip.durationS]));
  const utterances = section.utterances?.map((u) => ({ ...u, durationS: durations.get(u.id) ?? null }));
  return { ...section, ...(utterances ? { utterances } : {}), ...(calibration ? { calibration } : {}) };
}
