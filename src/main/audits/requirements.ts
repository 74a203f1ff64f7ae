/**
 * Section requirements, checked before a plan is locked: for each ticked section, what
 * its pipeline needs (datasets serving the right roles, mapped columns, minimum counts,
 * models) and whether this project has it. The thresholds are the pipelines' own: a
 * requirement that passes here does not fail later for the same reason.
 *
 * Used by plans.check (the wizard's Data, Groups and Plan steps), by lockPlan (the API's
 * plans.lock and the CLI's `audit lock` refuse to lock, naming each reason) and by the
 * demo. Types and plain names live in src/shared/requirements.ts.
 */
import { existsSync } from 'node:fs';
import type Database from 'better-sqlite3';
import type { DatasetRole, DatasetSummary } from '../../shared/api/datasets';
import { UserError } from '../../shared/errors';
import {
  PlanDraft,
  SECTION_ORDER,
  SECTION_PLAIN,
  SECTION_SHORT,
  type PlanDraftConfig,
  type Requirement,
  type RequirementFix,
  type RequirementReport,
  type RequirementStep,
} from '../../shared/requirements';
import { recogniserLabel, recogniserMissing, SpeatPlan, type RecogniserInfo } from '../../shared/plan';
import type { Section } from '../../shared/results';
import { ROLE_PLAIN } from '../../shared/roles';
import { attributeSets } from '../data/speat-design';
import { isUsable, listClips, listDatasets, type Clip } from '../data/repository';
import { checkInputFileSync, inputExists } from '../security/input-file';
import { datasetMapping } from '../store/plan-inputs';
import { fdiReferenceFor, referenceDesign, referenceSentence, type GroupSize, type ReferenceChoiceConfig } from '../../shared/reference-group';
import { referenceGroupSizes, referenceProblem } from './reference-groups';

/** What the check needs to know about a model the plan names. */
export interface ModelFacts {
  /** Every reference that names it: id and alias. */
  refs: string[];
  name: string;
  task: 'embedding' | 'asr';
}

/** The pipelines' own minimums (speat-audit, ser-audit, wer-audit, fdi-audit). */
export const MIN_STIMULI_PER_GROUP = 2;
export const MIN_RATED_FOR_SER = 10;
/** The plan's own default (the paper's k), so a draft without the setting is checked as it will be locked. */
export const DEFAULT_ATTRIBUTE_PER_SPEAKER: number = SpeatPlan.shape.attributePerSpeaker.parse(undefined);

/** A plan that cannot be locked: one reason per line, for the CLI and the app. */
export class PlanNotReadyError extends UserError {
  constructor(readonly reasons: string[]) {
    super(`the plan cannot be locked yet: ${reasons.length === 1 ? 'one section cannot run' : `${reasons.length} things are missing`}\n${reasons.join('\n')}`, 'plan');
    this.name = 'PlanNotReadyError';
  }
}

const quote = (d: DatasetSummary) => `“${d.name}”`;

/** The model a plan reference names: its id, alias, or an id prefix of 8+ characters (as ensureModel resolves). */
function findModel(models: readonly ModelFacts[], ref: string): ModelFacts | undefined {
  return models.find((m) => m.refs.includes(ref)) ?? (ref.length >= 8 ? models.find((m) => m.refs[0]!.startsWith(ref)) : undefined);
}
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function untick(section: Section, sections: readonly Section[]): RequirementFix {
  // SER compares against SpEAT: leaving out SpEAT leaves out SER too.
  const with_ = section === 'speat' && sections.includes('ser') ? (['speat', 'ser'] as Section[]) : [section];
  return { kind: 'untick', sections: with_, label: `Leave out ${with_.map((s) => SECTION_SHORT[s]).join(' and ')}` };
}

function importFix(role: DatasetRole): RequirementFix {
  return { kind: 'import', role, label: `Import ${ROLE_PLAIN[role]}` };
}

/** Clips, facts and helpers for one check, each dataset read once. */
class Project {
  private readonly clips = new Map<string, Clip[]>();
  readonly datasets: DatasetSummary[];
  constructor(private readonly db: Database.Database) {
    this.datasets = listDatasets(db);
  }
  dataset(id: string | undefined): DatasetSummary | null {
    return id ? (this.datasets.find((d) => d.id === id) ?? null) : null;
  }
  usable(id: string): Clip[] {
    let c = this.clips.get(id);
    if (!c) {
      c = listClips(this.db, id).filter(isUsable);
      this.clips.set(id, c);
    }
    return c;
  }
  mappingHas(id: string, column: 'hypothesis' | 'transcript' | 'valence' | 'speaker'): boolean {
    const mapping = datasetMapping(this.db, id);
    if (mapping === undefined) return false;
    return Boolean(mapping[column]);
  }
}

function groupsOf(clips: readonly Clip[], label: string): Map<string, Clip[]> {
  const m = new Map<string, Clip[]>();
  for (const c of clips) {
    const v = c.groups[label];
    if (v !== undefined && v !== '') m.set(v, [...(m.get(v) ?? []), c]);
  }
  return m;
}

function groupKey(groups: Record<string, string>, by: readonly string[]): string | null {
  const parts = by.map((l) => groups[l]);
  return parts.every((p) => p !== undefined && p !== '') ? parts.join(' × ') : null;
}

/** Seeded split sizes exactly as stats/ser.ts splitIndices makes them. */
export function serSplitSizes(n: number, f: { train: number; validation: number; test: number }): { train: number; validation: number; test: number } {
  const total = f.train + f.validation + f.test;
  const test = Math.max(1, Math.round((n * f.test) / total));
  const validation = Math.max(1, Math.round((n * f.validation) / total));
  return { train: n - test - validation, validation, test };
}

type Add = (r: Omit<Requirement, 'section'>) => void;
/** Group sizes the Groups step offers the largest of (RequirementReport.groupSizes). */
type Offer = (groupBy: string[], sizes: GroupSize[]) => void;

/** Why a section's reference is missing or cannot stand, or null (METHODS.md § The unit of inference, Reference group). */
function referenceReason(choice: ReferenceChoiceConfig | undefined, sizes: readonly GroupSize[] | null, where: string): string | null {
  if (choice === undefined) return 'no reference group is chosen: choose one before the run (the largest group is offered) or compare every pair';
  return sizes === null ? null : referenceProblem(choice, sizes, where);
}

/**
 * A number of rated recordings per speaker below k that the data supports: the one that
 * gives the most pleasant and unpleasant recordings in all (ties: the larger number, closer
 * to the paper's). Null when not even one per speaker gives two of each.
 */
function fewerPerSpeaker(clips: readonly Clip[], k: number): number | null {
  const perSpeaker = new Map<string, number>();
  for (const c of clips) if (c.valence !== null && c.speaker) perSpeaker.set(c.speaker, (perSpeaker.get(c.speaker) ?? 0) + 1);
  // No speaker can give more than half of their rated recordings to each side.
  const most = Math.min(k - 1, Math.floor(Math.max(0, ...perSpeaker.values()) / 2));
  let best: { j: number; n: number } | null = null;
  for (let j = most; j >= 1; j -= 1) {
    const sets = attributeSets(clips, j);
    const n = Math.min(sets.A.length, sets.B.length);
    if (n >= 2 && (best === null || n > best.n)) best = { j, n };
  }
  return best?.j ?? null;
}

/** A missing dataset, a dataset that is gone, or one with no usable recordings. */
function datasetProblem(p: Project, id: string | undefined, role: DatasetRole): string | null {
  if (!id) return `no ${ROLE_PLAIN[role]} have been imported`;
  const d = p.dataset(id);
  if (!d) return `the dataset chosen for ${ROLE_PLAIN[role]} is no longer in this project`;
  if (d.status !== 'ready') return `${quote(d)} has not finished importing (status: ${d.status}); import it again to finish`;
  if (p.usable(id).length === 0) return `${quote(d)} has no usable recordings: every row was left out (see its problems on the Data step)`;
  return null;
}

function speat(p: Project, plan: PlanDraftConfig, models: ModelFacts[] | undefined, add: Add): void {
  const s = plan.speat ?? { tests: [] };
  const targetId = s.targetDataset ?? s.tests.find((t) => t.targetDataset)?.targetDataset;
  const leave = untick('speat', plan.sections);
  const targetProblem = datasetProblem(p, targetId, 'target');
  const target = p.dataset(targetId);
  add({
    id: 'speat.targets',
    need: 'Recordings of the speaker groups to compare',
    met: targetProblem === null,
    detail: targetProblem ?? `${quote(target!)}: ${plural(p.usable(target!.id).length, 'usable recording')}`,
    step: 'data',
    fixes: targetProblem === null ? [] : [importFix('target'), leave],
  });
  if (targetProblem === null) {
    const clips = p.usable(target!.id);
    const labels = [...new Set(clips.flatMap((c) => Object.keys(c.groups)))].sort();
    const split = labels.map((l) => ({ label: l, groups: groupsOf(clips, l) })).filter((x) => x.groups.size >= 2);
    add({
      id: 'speat.labels',
      need: 'A group label with two or more groups (such as gender or accent)',
      met: split.length > 0,
      detail:
        split.length > 0
          ? split.map((x) => `${x.label}: ${[...x.groups.keys()].sort().join(', ')}`).join('; ')
          : `${quote(target!)} has no group label with two or more groups${labels.length ? ` (${labels.map((l) => `${l} has one group`).join(', ')})` : ''}`,
      step: 'data',
      fixes: split.length > 0 ? [] : [{ kind: 'map-column', datasetId: target!.id, column: 'groups', label: `Choose the group columns of ${quote(target!)}` }, leave],
    });
  }

  const k = s.attributePerSpeaker ?? DEFAULT_ATTRIBUTE_PER_SPEAKER;
  const attrProblem = datasetProblem(p, s.attributeDataset, 'attribute');
  const attr = p.dataset(s.attributeDataset);
  if (attrProblem !== null) {
    add({ id: 'speat.ratings', need: 'Recordings rated as pleasant or unpleasant', met: false, detail: attrProblem, step: 'data', fixes: [importFix('attribute'), leave] });
  } else {
    const sets = attributeSets(p.usable(attr!.id), k);
    const rated = p.usable(attr!.id).filter((c) => c.valence !== null);
    const speakers = new Set(rated.map((c) => c.speaker).filter(Boolean)).size;
    const ok = sets.A.length >= 2 && sets.B.length >= 2;
    const fixes: RequirementFix[] = [];
    let detail: string;
    if (ok) detail = `${quote(attr!)}: ${plural(rated.length, 'rated recording')} from ${plural(speakers, 'speaker')} give ${sets.A.length} pleasant and ${sets.B.length} unpleasant recordings (${k} of each per speaker)`;
    else if (!p.mappingHas(attr!.id, 'valence') || rated.length === 0) {
      detail = `${quote(attr!)} has no pleasantness rating for any recording`;
      fixes.push({ kind: 'map-column', datasetId: attr!.id, column: 'valence', label: `Choose the rating column of ${quote(attr!)}` }, importFix('attribute'));
    } else if (!p.mappingHas(attr!.id, 'speaker')) {
      detail = `${quote(attr!)} has no speaker column: pleasant and unpleasant recordings are chosen per speaker`;
      fixes.push({ kind: 'map-column', datasetId: attr!.id, column: 'speaker', label: `Choose the speaker column of ${quote(attr!)}` });
    } else {
      detail = `each rated speaker needs at least ${2 * k} rated recordings (${k} pleasant and ${k} unpleasant); ${sets.speakers.length === 0 ? 'none has' : `only ${plural(sets.speakers.length, 'speaker')} ${sets.speakers.length === 1 ? 'has' : 'have'}`} enough, giving ${sets.A.length} pleasant recording${sets.A.length === 1 ? '' : 's'}`;
      const fewer = fewerPerSpeaker(p.usable(attr!.id), k);
      if (fewer !== null) fixes.push({ kind: 'setting', path: ['speat', 'attributePerSpeaker'], value: fewer, label: `Use ${fewer} pleasant and ${fewer} unpleasant recordings per speaker` });
      fixes.push(importFix('attribute'));
    }
    fixes.push(...(ok ? [] : [leave]));
    add({ id: 'speat.ratings', need: 'Recordings rated as pleasant or unpleasant', met: ok, detail, step: 'data', fixes });
  }

  // Comparisons: chosen on the Groups step, checked against the target recordings.
  const problems: string[] = [];
  if (s.tests.length === 0) problems.push('no comparison of two groups has been chosen');
  if (target && targetProblem === null) {
    const clips = p.usable(target.id);
    for (const t of s.tests) {
      const name = t.name ? `“${t.name}”` : `comparison ${t.id}`;
      if (!t.x || !t.y) problems.push(`${name} does not name two groups`);
      else if (t.x.label !== t.y.label) problems.push(`${name} compares groups of two different labels (${t.x.label} and ${t.y.label})`);
      else if (t.x.value === t.y.value) problems.push(`${name} compares ${t.x.value} with itself`);
      else {
        const g = groupsOf(clips, t.x.label);
        for (const side of [t.x, t.y]) {
          const n = g.get(side.value)?.length ?? 0;
          if (n < MIN_STIMULI_PER_GROUP) problems.push(`${name}: ${side.label} = ${side.value} has ${plural(n, 'usable recording')}, fewer than ${MIN_STIMULI_PER_GROUP}`);
        }
      }
    }
  }
  add({
    id: 'speat.comparisons',
    need: 'At least one comparison of two groups',
    met: problems.length === 0,
    detail: problems.length === 0 ? s.tests.map((t) => (t.x && t.y ? `${t.x.value} vs ${t.y.value}` : t.id)).join('; ') : problems.join('; '),
    step: 'groups',
    fixes: problems.length === 0 ? [] : [{ kind: 'step', step: 'groups', label: 'Choose the groups to compare' }],
  });
  modelsRequirement(plan, models, add);
}

function modelsRequirement(plan: PlanDraftConfig, models: ModelFacts[] | undefined, add: Add): void {
  const chosen = plan.models;
  const asr = models ? chosen.map((ref) => findModel(models, ref)).filter((m): m is ModelFacts => m?.task === 'asr') : [];
  const unknown = models ? chosen.filter((ref) => !findModel(models, ref)) : [];
  const problem =
    chosen.length === 0
      ? 'no model to audit has been chosen'
      : unknown.length > 0
        ? `${plural(unknown.length, 'chosen model is', 'chosen models are')} no longer installed: ${unknown.join(', ')}`
        : asr.length > 0
          ? `${asr.map((m) => m.name).join(', ')} ${asr.length === 1 ? 'is a speech-recognition model' : 'are speech-recognition models'}: it gives transcripts, not the inner representation this section reads`
          : null;
  add({
    id: 'speat.models',
    need: 'At least one speech model to audit',
    met: problem === null,
    detail: problem ?? plural(chosen.length, 'model'),
    step: 'models',
    fixes: problem === null ? [] : [{ kind: 'step', step: 'models', label: 'Choose the models' }],
  });
}

function ser(p: Project, plan: PlanDraftConfig, add: Add): void {
  const leave = untick('ser', plan.sections);
  add({
    id: 'ser.speat',
    need: 'The association test (SpEAT) in the same audit',
    met: plan.sections.includes('speat'),
    detail: plan.sections.includes('speat') ? 'SpEAT is part of this audit' : 'SER compares its predictions with the association test, which is not ticked',
    step: 'purpose',
    fixes: plan.sections.includes('speat') ? [] : [{ kind: 'step', step: 'purpose', label: 'Tick SpEAT' }, leave],
  });
  const id = plan.ser?.valenceDataset;
  const problem = datasetProblem(p, id, 'attribute');
  if (problem !== null) {
    add({ id: 'ser.ratings', need: 'Pleasantness ratings to train and test on', met: false, detail: problem, step: 'data', fixes: [importFix('attribute'), leave] });
    return;
  }
  const d = p.dataset(id)!;
  const ratings = p.usable(d.id).map((c) => c.valence).filter((v): v is number => v !== null);
  const split = serSplitSizes(ratings.length, plan.ser?.split ?? { train: 0.7, validation: 0.15, test: 0.15 });
  const varied = ratings.length > 0 && Math.max(...ratings) > Math.min(...ratings);
  const ok = ratings.length >= MIN_RATED_FOR_SER && varied && split.train >= 1;
  add({
    id: 'ser.ratings',
    need: `At least ${MIN_RATED_FOR_SER} recordings with different pleasantness ratings, split to train, choose and test`,
    met: ok,
    detail: ok
      ? `${quote(d)}: ${plural(ratings.length, 'rated recording')}: ${split.train} to train, ${split.validation} to choose the training speed, ${split.test} to test`
      : ratings.length < MIN_RATED_FOR_SER
        ? `${quote(d)} has ${plural(ratings.length, 'rated recording')}, fewer than ${MIN_RATED_FOR_SER}`
        : `every rating in ${quote(d)} is the same, so there is nothing to learn`,
    step: 'data',
    fixes: ok ? [] : [importFix('attribute'), ...(ratings.length === 0 ? [{ kind: 'map-column', datasetId: d.id, column: 'valence', label: `Choose the rating column of ${quote(d)}` } as RequirementFix] : []), leave],
  });
}

function wer(p: Project, plan: PlanDraftConfig, models: ModelFacts[] | undefined, add: Add, offer: Offer): void {
  const w = plan.wer ?? { groupBy: [] };
  const leave = untick('wer', plan.sections);
  const problem = datasetProblem(p, w.dataset, 'asr');
  if (problem !== null) {
    add({ id: 'wer.references', need: 'Recordings with reference transcripts', met: false, detail: problem, step: 'data', fixes: [importFix('asr'), leave] });
    return;
  }
  const d = p.dataset(w.dataset)!;
  const clips = p.usable(d.id);
  const withRef = clips.filter((c) => c.transcript !== null && c.transcript.trim() !== '');
  add({
    id: 'wer.references',
    need: 'Recordings with reference transcripts',
    met: withRef.length > 0,
    detail: withRef.length > 0 ? `${quote(d)}: ${plural(withRef.length, 'recording')} with a reference transcript` : `${quote(d)} has no reference transcript for any recording`,
    step: 'data',
    fixes: withRef.length > 0 ? [] : [{ kind: 'map-column', datasetId: d.id, column: 'transcript', label: `Choose the transcript column of ${quote(d)}` }, leave],
  });

  const source = w.hypotheses?.source ?? 'column';
  let hypProblem: string | null = null;
  let hypDetail = '';
  const rows = source === 'column' ? withRef.filter((c) => c.hypothesis !== null) : withRef;
  if (source === 'column') {
    if (rows.length === 0) {
      hypProblem = `${quote(d)} has no recogniser output (hypothesis) for any recording, and no speech-recognition model is chosen to produce it`;
    } else hypDetail = `${quote(d)}: recogniser output for ${rows.length} of ${plural(withRef.length, 'recording')}${rows.length < withRef.length ? '; the others are left out' : ''}`;
  } else {
    const ref = w.hypotheses?.modelId;
    const m = models && ref ? findModel(models, ref) : undefined;
    if (!ref) hypProblem = 'no speech-recognition model is chosen';
    else if (models && !m) hypProblem = `the speech-recognition model ${ref} is no longer installed`;
    else if (m && m.task !== 'asr') hypProblem = `${m.name} is not a speech-recognition model`;
    else hypDetail = `transcribed by ${m?.name ?? ref}`;
  }
  add({
    id: 'wer.hypotheses',
    need: 'What the speech recogniser heard: a recogniser-output column or a speech-recognition model',
    met: hypProblem === null,
    detail: hypProblem ?? hypDetail,
    step: 'data',
    fixes:
      hypProblem === null
        ? []
        : [
            ...(source === 'column' ? [{ kind: 'map-column', datasetId: d.id, column: 'hypothesis', label: `Choose the recogniser-output column of ${quote(d)}` } as RequirementFix] : []),
            { kind: 'step', step: 'models', label: 'Use a speech-recognition model' },
            leave,
          ],
  });

  // Imported hypotheses say nothing of who wrote them; an audit of an unnamed recogniser
  // cannot be reproduced or attributed (METHODS.md § Verdicts that hold, Provenance).
  if (source === 'column' && hypProblem === null) {
    const missing = recogniserMissing(w.hypotheses?.recogniser);
    add({
      id: 'wer.recogniser',
      need: 'The name, version and settings of the recogniser that wrote the imported hypotheses',
      met: missing.length === 0,
      detail:
        missing.length === 0
          ? `hypotheses written by ${recogniserLabel(w.hypotheses!.recogniser as RecogniserInfo)}`
          : `the recogniser output of ${quote(d)} does not say which recogniser wrote it (missing: ${missing.join(', ')}); give its name, version and settings on the Models step, or in the plan as wer.hypotheses.recogniser = { "name": …, "version": …, "settings": … }`,
      step: 'models',
      fixes: missing.length === 0 ? [] : [{ kind: 'step', step: 'models', label: 'Name the speech recogniser' }],
    });
  }

  // Missing recogniser output is its own reason: group over the transcribed recordings then.
  const groups = new Set<string>();
  for (const c of rows.length > 0 ? rows : withRef) {
    const g = w.groupBy.length ? groupKey(c.groups, w.groupBy) : null;
    if (g !== null) groups.add(g);
  }
  const groupProblem =
    w.groupBy.length === 0
      ? 'no label to group recognition errors by has been chosen'
      : groups.size < 2
        ? `grouping by ${w.groupBy.join(' × ')} gives ${groups.size === 0 ? 'no group' : `only one group (${[...groups][0]})`} among the recordings with a reference transcript`
        : null;
  add({
    id: 'wer.groups',
    need: 'Two or more groups to compare',
    met: groupProblem === null,
    detail: groupProblem ?? `${w.groupBy.join(' × ')}: ${[...groups].sort().join(', ')}`,
    step: 'groups',
    fixes: groupProblem === null ? [] : [{ kind: 'step', step: 'groups', label: 'Choose how to group recognition errors' }],
  });

  // The reference is part of the plan: never the best-scoring group of the data (a lock without one is refused).
  // The sizes are offered whenever there is a grouping, so the Groups step never waits on them.
  const sizes = referenceGroupSizes(rows.length > 0 ? rows : withRef, w.groupBy, 'wer');
  if (w.groupBy.length > 0) offer(w.groupBy, sizes);
  if (groupProblem === null) {
    const why = referenceReason(w.referenceGroup, sizes, `${quote(d)} grouped by ${w.groupBy.join(' × ')}`);
    add({
      id: 'wer.reference',
      need: 'A reference group for the error-rate comparisons, chosen before the run, or every pair compared',
      met: why === null,
      detail: why === null ? referenceSentence(referenceDesign(w.referenceGroup), { holm: true }) : `${why}; on the Groups step, or in the plan as wer.referenceGroup`,
      step: 'groups',
      fixes: why === null ? [] : [{ kind: 'step', step: 'groups', label: 'Choose the reference group for recognition errors' }],
    });
  }
}

/** FDI: one requirement for the reference of every attribute set; sizes null where the groups are not known before the run (imported scores). */
function fdiReferences(f: { groupings: string[][]; references?: { groupBy: string[]; reference: ReferenceChoiceConfig }[] }, sizesOf: (by: string[]) => { sizes: GroupSize[]; where: string } | null, add: Add): void {
  if (f.groupings.length === 0) return;
  const problems: string[] = [];
  const found: string[] = [];
  for (const by of f.groupings) {
    const choice = fdiReferenceFor(f.references, by);
    const s = sizesOf(by);
    const why = referenceReason(choice, s?.sizes ?? null, s?.where ?? '');
    if (why !== null) problems.push(`${by.join(' × ')}: ${why}`);
    else found.push(`${by.join(' × ')}: ${referenceSentence(referenceDesign(choice), { holm: false })}`);
  }
  add({
    id: 'fdi.reference',
    need: 'For each attribute set, a reference group chosen before the run, or every pair compared',
    met: problems.length === 0,
    detail: problems.length === 0 ? found.join(' ') : `${problems.join('; ')}; on the Groups step, or in the plan as fdi.references`,
    step: 'groups',
    fixes: problems.length === 0 ? [] : [{ kind: 'step', step: 'groups', label: 'Choose the reference groups for the fairness measures' }],
  });
}

function fdi(p: Project, plan: PlanDraftConfig, models: ModelFacts[] | undefined, add: Add, offer: Offer): void {
  const f = plan.fdi ?? { groupings: [] };
  const leave = untick('fdi', plan.sections);
  const source = f.source ?? { kind: 'verification' as const };
  if (source.kind === 'imported') {
    // Checked as it will be read (security/input-file.ts): a FIFO or a folder is named as such.
    let why: string | null = source.file ? null : 'no scores file is chosen';
    if (source.file && !existsSync(source.file) && !inputExists(source.file)) why = `the scores file ${source.file} cannot be found`;
    else if (source.file) {
      try {
        checkInputFileSync(source.file, 'csv-table', 'plan.fdi.source.file');
      } catch (err) {
        why = `the scores file cannot be used: ${(err as Error).message}`;
      }
    }
    const ok = why === null;
    add({
      id: 'fdi.recordings',
      need: 'Scored verification decisions (a CSV file)',
      met: ok,
      detail: ok ? `scores from ${source.file}` : why!,
      step: 'data',
      fixes: ok ? [] : [leave],
    });
    // The scores file's groups are read at run time, which then refuses a reference it lacks.
    fdiReferences(f, () => null, add);
    return;
  }
  const problem = datasetProblem(p, source.dataset, 'verification');
  if (problem !== null) {
    add({ id: 'fdi.recordings', need: 'Recordings for speaker-verification trials', met: false, detail: problem, step: 'data', fixes: [importFix('verification'), leave] });
    return;
  }
  const d = p.dataset(source.dataset)!;
  const clips = p.usable(d.id).filter((c) => c.speaker);
  const speakers = new Set(clips.map((c) => c.speaker)).size;
  add({
    id: 'fdi.recordings',
    need: 'Recordings for speaker-verification trials',
    met: speakers >= 2,
    detail: speakers >= 2 ? `${quote(d)}: ${plural(clips.length, 'recording')} of ${plural(speakers, 'speaker')}` : `${quote(d)} has ${plural(speakers, 'speaker')} with a speaker name; verification needs at least two`,
    step: 'data',
    fixes: speakers >= 2 ? [] : [...(p.mappingHas(d.id, 'speaker') ? [] : [{ kind: 'map-column', datasetId: d.id, column: 'speaker', label: `Choose the speaker column of ${quote(d)}` } as RequirementFix]), importFix('verification'), leave],
  });

  const ref = source.modelId;
  const m = models && ref ? findModel(models, ref) : undefined;
  const modelProblem = !ref ? 'no model is chosen to score the trials' : models && !m ? `the model ${ref} is no longer installed` : m?.task === 'asr' ? `${m.name} is a speech-recognition model and cannot score speaker trials` : null;
  add({
    id: 'fdi.model',
    need: 'A model that scores the verification trials',
    met: modelProblem === null,
    detail: modelProblem ?? `${m?.name ?? ref}`,
    step: 'models',
    fixes: modelProblem === null ? [] : [{ kind: 'step', step: 'models', label: 'Choose the scoring model' }],
  });

  // Per attribute set: groups with two speakers, one of whom has two recordings (a genuine and an impostor pair).
  const problems: string[] = [];
  const found: string[] = [];
  const usableByGrouping = new Map<string, Set<string>>();
  if (f.groupings.length === 0) problems.push('no attribute set (such as gender) has been chosen');
  for (const by of f.groupings) {
    const byGroup = new Map<string, Map<string, number>>();
    for (const c of clips) {
      const g = groupKey(c.groups, by);
      if (g === null) continue;
      const per = byGroup.get(g) ?? new Map<string, number>();
      per.set(c.speaker!, (per.get(c.speaker!) ?? 0) + 1);
      byGroup.set(g, per);
    }
    const usable = [...byGroup.entries()].filter(([, per]) => per.size >= 2 && [...per.values()].some((n) => n >= 2));
    usableByGrouping.set(JSON.stringify(by), new Set(usable.map(([g]) => g)));
    if (usable.length < 2) {
      problems.push(`${by.join(' × ')}: ${usable.length === 0 ? 'no group has' : `only ${usable[0]![0]} has`} two speakers, one of them with two or more recordings`);
    } else found.push(`${by.join(' × ')}: ${usable.map(([g, per]) => `${g} ${plural(per.size, 'speaker')}`).join(', ')}`);
  }
  add({
    id: 'fdi.speakers',
    need: 'In each attribute set, two or more groups with at least two speakers (one with two or more recordings)',
    met: problems.length === 0,
    detail: problems.length === 0 ? found.join('; ') : problems.join('; '),
    step: 'groups',
    fixes: problems.length === 0 ? [] : [{ kind: 'step', step: 'groups', label: 'Choose the attribute sets' }, importFix('verification')],
  });
  fdiReferences(f, (by) => {
    // Only the groups the run can build trials for (two speakers, one with two recordings); an
    // attribute set without two of them is refused above, so only its choice is checked here.
    const usable = usableByGrouping.get(JSON.stringify(by)) ?? new Set<string>();
    const sizes = referenceGroupSizes(clips, by, 'fdi').filter((s) => usable.has(s.group));
    offer(by, sizes);
    return usable.size < 2 ? null : { sizes, where: `${quote(d)} grouped by ${by.join(' × ')}` };
  }, add);
}

/**
 * Check a plan draft (or a full plan) against the project's data. Without `models` the
 * model checks only ask that one is chosen; with them, that it exists and suits the job.
 */
export function checkRequirements(db: Database.Database, draftInput: unknown, models?: ModelFacts[]): RequirementReport {
  const parsed = PlanDraft.safeParse(draftInput);
  if (!parsed.success) throw new UserError(`plan: ${parsed.error.issues[0]?.message ?? 'invalid'}`, 'plan');
  const plan = parsed.data;
  const p = new Project(db);
  const groupSizes: NonNullable<RequirementReport['groupSizes']> = [];
  const sections = SECTION_ORDER.filter((s) => plan.sections.includes(s)).map((section) => {
    const requirements: Requirement[] = [];
    const add: Add = (r) => requirements.push({ ...r, section });
    if (section === 'speat') speat(p, plan, models, add);
    if (section === 'ser') ser(p, plan, add);
    if (section === 'wer') wer(p, plan, models, add, (groupBy, sizes) => groupSizes.push({ section, groupBy, sizes }));
    if (section === 'fdi') fdi(p, plan, models, add, (groupBy, sizes) => groupSizes.push({ section, groupBy, sizes }));
    return { section, name: SECTION_PLAIN[section], ready: requirements.every((r) => r.met), requirements };
  });
  const reasons = sections.flatMap((s) => s.requirements.filter((r) => !r.met).map((r) => `${SECTION_SHORT[s.section]}: ${r.detail}`));
  return { ready: sections.length > 0 && reasons.length === 0, sections, reasons: sections.length === 0 ? ['no section of the audit is ticked'] : reasons, groupSizes };
}

/** Throw PlanNotReadyError, one reason per unmet requirement, unless every section can run. */
export function assertRequirements(db: Database.Database, plan: unknown, models?: ModelFacts[]): RequirementReport {
  const report = checkRequirements(db, plan, models);
  if (!report.ready) throw new PlanNotReadyError(report.reasons);
  return report;
}

/** Model facts from the engine's model manifests (built-in and imported). */
export function modelFacts(manifests: readonly { id: string; alias: string | null; name: string; task?: 'embedding' | 'asr' }[]): ModelFacts[] {
  return manifests.map((m) => ({ refs: [m.id, ...(m.alias ? [m.alias] : [])], name: m.name, task: m.task ?? 'embedding' }));
}

export type { RequirementStep };
