/**
 * FDI audit: scored decisions per group (speaker-verification trials built from a
 * verification dataset and a model, or imported scores), per-group error rates,
 * disparities, Wasserstein distances and the Fairness Disagreement Index over a
 * threshold sweep, for each grouping the plan names.
 */
import type Database from 'better-sqlite3';
import { AuditPlan, FdiPlan } from '../../shared/plan';
import type { FdiGrouping, FdiSection } from '../../shared/results';
import { UserError } from '../../shared/errors';
import { CsvError, parseCsvTable, parseDecimal } from '../data/csv';
import { decodeSpreadsheetBytes, EncodingProblem } from '../data/text-encoding';
import { getDataset, isUsable, listClips, type Clip } from '../data/repository';
import { aggregate, loadEmbeddings, type ModelManifest } from '../inference';
import { equalErrorRate, Rng, thresholdRange, verifierQuality, type FdiItems, type VerifierQuality } from '../stats';
import type { AuditContext } from './context';
import { fdiGrouping } from './fdi-grouping';
import { unitSeed } from './units';
import { groupKey } from './wer-audit';
import { quoteUserText } from '../../shared/quote';
import { readInputFileSync } from '../security/input-file';
import { fdiReferenceFor } from '../../shared/reference-group';
import { plannedReference } from './reference-groups';

/** The plan's defaults, so the quality shown before a run is that of the trials the run builds. */
const FDI_DEFAULT_TRIALS_PER_GROUP = (() => {
  const src = FdiPlan.parse({ source: { kind: 'verification', dataset: 'x', modelId: 'm' }, groupings: [['l']] }).source;
  return src.kind === 'verification' ? src.trialsPerGroup : 400;
})();
const AUDIT_DEFAULT_SEED = AuditPlan.parse({ title: 't', sections: ['fdi'], fdi: { source: { kind: 'imported', file: 'x' }, groupings: [['l']] } }).seed;

interface Trial {
  labels: Record<string, string>;
  genuine: 0 | 1;
  score: number;
  /** Enrolment and test speaker, when known (the same id twice for a genuine trial). */
  speakers?: [string, string];
  /** Enrolment and test recording with the duration the import measured (trials built from a verification dataset). */
  clips?: [TrialClip, TrialClip];
}

interface TrialClip {
  id: string;
  durationS: number | null;
}

/** Each recording the trials use, once, in the order the trials first use it, with its group. */
function trialClips(trials: readonly Trial[], groupBy: string[]): NonNullable<FdiGrouping['trialClips']> | null {
  if (!trials.every((t) => t.clips)) return null;
  const seen = new Map<string, { group: string; id: string; durationS: number | null }>();
  for (const t of trials) for (const c of t.clips!) if (!seen.has(c.id)) seen.set(c.id, { group: groupKey(t.labels, groupBy)!, id: c.id, durationS: c.durationS });
  return [...seen.values()];
}

/** Optional columns of an imported scores file naming each trial's two speakers (not group labels). */
export const FDI_SPEAKER_COLUMNS = ['enrol_speaker', 'test_speaker'] as const;

function cosine(a: Float64Array, b: Float64Array): number {
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < a.length; i += 1) {
    ab += a[i]! * b[i]!;
    aa += a[i]! * a[i]!;
    bb += b[i]! * b[i]!;
  }
  return aa > 0 && bb > 0 ? ab / Math.sqrt(aa * bb) : 0;
}

/** Sample up to n distinct index pairs (i < j) satisfying `ok`, seeded. */
function samplePairs(count: number, n: number, ok: (i: number, j: number) => boolean, rng: Rng): [number, number][] {
  const all: [number, number][] = [];
  for (let i = 0; i < count; i += 1) for (let j = i + 1; j < count; j += 1) if (ok(i, j)) all.push([i, j]);
  const idx = Int32Array.from(all.keys());
  rng.shufflePrefix(idx, Math.min(n, idx.length));
  return [...idx.subarray(0, Math.min(n, idx.length))].map((k) => all[k]!);
}

/**
 * Verification trials within each group of a grouping: genuine pairs share a speaker,
 * impostor pairs are two speakers of the same group; balanced, seeded.
 */
export function verificationTrials(ctx: AuditContext, groupBy: string[], warn: (message: string) => void = ctx.warn): Trial[] {
  const fdi = ctx.plan.fdi!;
  if (fdi.source.kind !== 'verification') return [];
  const source = fdi.source;
  const m = ctx.models.get(source.modelId);
  if (!m) throw new UserError(`the FDI model ${source.modelId} is not loaded`, 'plan.fdi.source.modelId');
  return trialsFromEmbeddings(ctx.db, m, source.dataset, groupBy, source.trialsPerGroup, ctx.seed, warn);
}

/** The trials of verificationTrials from a project database and a model, without an audit run. */
export function trialsFromEmbeddings(
  db: Database.Database,
  m: ModelManifest,
  datasetId: string,
  groupBy: string[],
  trialsPerGroup: number,
  seed: number,
  warn: (message: string) => void,
): Trial[] {
  const clips = listClips(db, datasetId).filter((c) => isUsable(c) && c.sha256 !== null && c.speaker);
  const emb = loadEmbeddings(db, m.id, m.settingsKey, clips.map((c) => c.sha256!));
  const byGroup = new Map<string, Clip[]>();
  for (const c of clips) {
    const g = groupKey(c.groups, groupBy);
    if (g === null || !emb.has(c.sha256!)) continue;
    byGroup.set(g, [...(byGroup.get(g) ?? []), c]);
  }
  const trials: Trial[] = [];
  const half = Math.floor(trialsPerGroup / 2);
  for (const g of [...byGroup.keys()].sort()) {
    const list = byGroup.get(g)!;
    const vecs = list.map((c) => aggregate(emb.get(c.sha256!)!, 'mean', 'last'));
    const rng = new Rng(unitSeed(seed, `fdi/trials/${groupBy.join('+')}/${g}`));
    // Balanced: as many impostor as genuine trials, up to half the requested count each.
    const sameSpeaker = (i: number, j: number) => list[i]!.speaker === list[j]!.speaker;
    const allGenuine = samplePairs(list.length, half, sameSpeaker, rng);
    const allImpostor = samplePairs(list.length, half, (i, j) => !sameSpeaker(i, j), rng);
    const k = Math.min(allGenuine.length, allImpostor.length);
    const genuine = allGenuine.slice(0, k);
    const impostor = allImpostor.slice(0, k);
    if (k === 0) {
      // Name the side that is missing (after balancing both are empty).
      warn(`FDI: group ${g} has no ${allGenuine.length === 0 ? 'genuine (same-speaker)' : 'impostor (two-speaker)'} pairs and was left out.`);
      continue;
    }
    const labels = Object.fromEntries(groupBy.map((l) => [l, list[0]!.groups[l]!]));
    // The first clip of a pair is its enrolment side (pairs are i < j in the group's clip order).
    const speakers = (i: number, j: number): [string, string] => [list[i]!.speaker!, list[j]!.speaker!];
    const clipsOf = (i: number, j: number): [TrialClip, TrialClip] => [{ id: list[i]!.id, durationS: list[i]!.durationS }, { id: list[j]!.id, durationS: list[j]!.durationS }];
    for (const [i, j] of genuine) trials.push({ labels, genuine: 1, score: cosine(vecs[i]!, vecs[j]!), speakers: speakers(i, j), clips: clipsOf(i, j) });
    for (const [i, j] of impostor) trials.push({ labels, genuine: 0, score: cosine(vecs[i]!, vecs[j]!), speakers: speakers(i, j), clips: clipsOf(i, j) });
  }
  return trials;
}

/**
 * How well a model verifies speakers on a dataset, from the embeddings already cached: the
 * trials an FDI audit would build (same seed, same pairs), pooled over the grouping's
 * groups, judged by AUC (DeLong CI) and EER. For choosing the verifier before a run; null
 * when no trials can be built (no cached embeddings, or no group with both kinds of pair).
 */
export function verifierQualityFromEmbeddings(
  db: Database.Database,
  m: ModelManifest,
  options: { datasetId: string; groupBy: string[]; trialsPerGroup?: number; seed?: number },
): (VerifierQuality & { warnings: string[] }) | null {
  const warnings: string[] = [];
  const trials = trialsFromEmbeddings(db, m, options.datasetId, options.groupBy, options.trialsPerGroup ?? FDI_DEFAULT_TRIALS_PER_GROUP, options.seed ?? AUDIT_DEFAULT_SEED, (w) => warnings.push(w));
  if (!trials.some((t) => t.genuine === 1) || !trials.some((t) => t.genuine === 0)) return null;
  return { ...verifierQuality(Float64Array.from(trials, (t) => t.score), Int8Array.from(trials, (t) => t.genuine)), warnings };
}

function importedTrials(file: string): Trial[] {
  let table;
  // A FIFO or device named as the scores file is refused, not waited on (security/input-file.ts).
  const bytes = readInputFileSync(file, 'csv-table', 'plan.fdi.source.file');
  try {
    // UTF-8, UTF-16 with a BOM or Windows-1252, as a spreadsheet saved it (text-encoding.ts).
    table = parseCsvTable(decodeSpreadsheetBytes(bytes).text, { requiredColumns: ['label', 'score'] });
  } catch (err) {
    if (err instanceof CsvError || err instanceof EncodingProblem) throw new UserError(`${file}: ${err.message}`, 'plan.fdi.source.file');
    throw new UserError(`cannot read ${file}: ${(err as Error).message}`, 'plan.fdi.source.file');
  }
  const [enrolCol, testCol] = FDI_SPEAKER_COLUMNS;
  const hasEnrol = table.header.includes(enrolCol);
  const hasTest = table.header.includes(testCol);
  if (hasEnrol !== hasTest) throw new UserError(`${file}: give both ${enrolCol} and ${testCol} (the two speakers of each trial), or neither`, hasEnrol ? testCol : enrolCol);
  return table.rows.map((r) => {
    const label = r.values.label!.trim();
    if (label !== '0' && label !== '1') throw new UserError(`${file} line ${r.line}: label must be 0 or 1, got "${quoteUserText(label)}"`, 'label');
    const parsed = parseDecimal(r.values.score!, table.delimiter);
    if (!parsed.ok) throw new UserError(`${file} line ${r.line}: score "${quoteUserText(r.values.score!)}" ${parsed.why}`, 'score');
    const score = parsed.value;
    const { label: _l, score: _s, [enrolCol]: enrol, [testCol]: test, ...labels } = r.values;
    if (!hasEnrol) return { labels, genuine: label === '1' ? 1 : 0, score };
    for (const [col, v] of [[enrolCol, enrol], [testCol, test]] as const) {
      if (!v || v.trim() === '') throw new UserError(`${file} line ${r.line}: ${col} is empty`, col);
    }
    return { labels, genuine: label === '1' ? 1 : 0, score, speakers: [enrol!.trim(), test!.trim()] as [string, string] };
  });
}

/** The threshold where FPR and FNR are closest over all trials (equal error rate). */
export function equalErrorThreshold(scores: ArrayLike<number>, labels: ArrayLike<number>): number {
  return equalErrorRate(scores, labels).threshold;
}

export async function runFdi(ctx: AuditContext): Promise<FdiSection> {
  const fdi = ctx.plan.fdi!;
  // Absent from the plan: each grouping sweeps its own observed score range.
  const thresholds = fdi.thresholds ? thresholdRange(fdi.thresholds.from, fdi.thresholds.to, fdi.thresholds.step) : null;
  let sweep = fdi.thresholds ?? { from: 0, to: 0, step: 0 };
  const groupings: FdiGrouping[] = [];
  let threshold = fdi.threshold ?? NaN;
  let trialsCount = { genuine: 0, impostor: 0 };
  const imported = fdi.source.kind === 'imported' ? importedTrials(fdi.source.file) : null;
  for (const [gi, groupBy] of fdi.groupings.entries()) {
    ctx.task.throwIfCancelled();
    const key = `fdi/${groupBy.join('+')}`;
    const unit = await ctx.units.once(key, 'fdi', () => {
      // Warnings are stored with the unit and replayed below, so a resumed run keeps them.
      const warnings: string[] = [];
      const trials = (imported ?? verificationTrials(ctx, groupBy, (w) => warnings.push(w))).filter((t) => groupKey(t.labels, groupBy) !== null);
      if (trials.length === 0) throw new UserError(`FDI: no trials carry the label(s) ${groupBy.join(', ')}`, 'plan.fdi.groupings');
      const items: FdiItems = {
        groups: trials.map((t) => groupKey(t.labels, groupBy)!),
        labels: Int8Array.from(trials, (t) => t.genuine),
        scores: Float64Array.from(trials, (t) => t.score),
        // Speakers known for every trial: the speaker is the unit of the CI and the null.
        speakers: trials.every((t) => t.speakers) ? { enrol: trials.map((t) => t.speakers![0]), test: trials.map((t) => t.speakers![1]) } : null,
      };
      if (new Set(items.groups).size < 2) throw new UserError(`FDI: grouping by ${groupBy.join(' × ')} yields fewer than two groups`, 'plan.fdi.groupings');
      // The plan's reference for this attribute set (recorded for the report; never picked from the results).
      const data = fdi.source.kind === 'verification' ? `“${getDataset(ctx.db, fdi.source.dataset).name}”` : fdi.source.file;
      const reference = plannedReference(fdiReferenceFor(fdi.references, groupBy), [...new Set(items.groups)], { section: 'FDI', data, groupBy, field: 'plan.fdi.references' });
      if (reference.design.kind === 'every-pair' && reference.design.unplanned) warnings.push(`FDI (${groupBy.join(' × ')}): the plan names no reference group, so every pair of groups is compared; a plan names one, or every pair, before it can be locked.`);
      const tau = fdi.threshold ?? equalErrorThreshold(items.scores, items.labels);
      const seed = unitSeed(ctx.seed, key);
      let grouping: FdiGrouping;
      try {
        grouping = fdiGrouping(items, groupBy, tau, thresholds, { alpha: fdi.alpha, orientation: fdi.orientation, bootstrap: fdi.bootstrap, nullPermutations: fdi.nullPermutations }, seed);
      } catch (err) {
        throw new UserError(`FDI (${groupBy.join(' × ')}): ${(err as Error).message}`, 'plan.fdi');
      }
      const clips = trialClips(trials, groupBy);
      grouping = { ...grouping, reference: reference.design, ...(clips ? { trialClips: clips } : {}) };
      const genuine = trials.filter((t) => t.genuine === 1).length;
      return { grouping, trials: { genuine, impostor: trials.length - genuine }, warnings };
    });
    for (const w of unit.warnings) ctx.warn(w);
    groupings.push(unit.grouping);
    if (gi === 0) {
      threshold = unit.grouping.threshold;
      trialsCount = unit.trials;
      if (!fdi.thresholds && unit.grouping.sweepRange) sweep = { from: unit.grouping.sweepRange.from, to: unit.grouping.sweepRange.to, step: unit.grouping.sweepRange.step };
    }
    ctx.task.progress('FDI', gi + 1, fdi.groupings.length);
  }
  return {
    config: {
      source: fdi.source.kind,
      modelId: fdi.source.kind === 'verification' ? (ctx.models.get(fdi.source.modelId)?.id ?? fdi.source.modelId) : null,
      orientation: fdi.orientation,
      alpha: fdi.alpha,
      threshold,
      thresholdRule: fdi.threshold === undefined ? 'equal-error-rate' : 'given',
      thresholds: sweep,
      thresholdsRule: fdi.thresholds ? 'given' : 'observed-range',
      nullPermutations: fdi.nullPermutations,
      bootstrap: fdi.bootstrap,
      trialsPerGroup: fdi.source.kind === 'verification' ? fdi.source.trialsPerGroup : null,
    },
    datasetId: fdi.source.kind === 'verification' ? fdi.source.dataset : null,
    ...(fdi.source.kind === 'imported' ? { file: fdi.source.file } : {}),
    trials: trialsCount,
    groupings,
  };
}
