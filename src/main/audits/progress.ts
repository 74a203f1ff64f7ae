/**
 * Progress of a whole audit in the auditor's words, with an honest time left.
 *
 * Before the run, the audit's work is listed as stages (read each dataset with each
 * model, the association test, each emotion predictor, the recognition analysis, the
 * fairness measures), each with a cost in units whose speed on this computer is measured
 * (src/main/jobs/rates.ts). Every progress report then carries the stage's words (which
 * dataset, which model, what is counted), the fraction of the whole audit done and the
 * estimated seconds left; the job runner corrects that estimate by how fast this run
 * actually goes. When a stage ends its measured speed is recorded for the next estimate.
 *
 * Cost units (the keys of the rate book):
 * - embed:<model>      one recording of EMBED_REFERENCE_SECONDS read with a model (a longer one
 *                      counts by its length; cached recordings cost nothing)
 * - transcribe:<model> one recording transcribed by a speech-recognition model
 * - import:clip        one row of a spreadsheet imported (hash, decode, checks)
 * - speat:mdraw        a million draws of one association by the permutation test (the other
 *                      parts of SpEAT are counted in the same draws: speatCost below)
 * - ser:kstep          a thousand training steps of one emotion predictor
 * - wer:kfit           a thousand utterances in simulated audits fitted by the mixed model
 *                      (the rest of WER is counted in the same unit: werCost below)
 * - fdi:grouping       one attribute set's trials, threshold sweep and bootstrap (500 resamples)
 */
import type Database from 'better-sqlite3';
import type { AuditPlanConfig } from '../../shared/plan';
import { referenceGroupOf } from '../../shared/reference-group';
import type { ModelManifest } from '../inference';
import type { ProgressDetail, TaskContext } from '../jobs/task';
import { rateFor, recordRate, type RateBook } from '../jobs/rates';
import { binomialCapped } from '../stats/speat';
import { listClips } from '../data/repository';
import { unembeddedAudioCounter, usableClipCounter } from '../store/clips';
import { datasetNameLookup } from '../store/datasets';

export interface WorkStage {
  key: string;
  label: string;
  unit: string;
  /** Units of `rateKey` this stage costs. */
  cost: number;
  rateKey: string;
  fallbackKey?: string;
}

/** What the stage list needs to know about the data, from the database or (for the demo) from its description. */
export interface WorkFacts {
  datasetName(id: string): string;
  /** Usable recordings of a dataset that a model has not read yet. */
  toEmbed(datasetId: string, model: ModelManifest): number;
  /** Usable recordings of a dataset. */
  clips(datasetId: string): number;
  /**
   * Usable recordings of a dataset whose group `label` is `value` (what a SpEAT test can draw
   * its stimuli from). Optional: the demo's estimate, made before its import, has only clip
   * counts, and half the dataset per group stands in.
   */
  groupClips?(datasetId: string, label: string, value: string): number;
  /** Mean length in seconds of a dataset's usable recordings, where known (optional, as groupClips). */
  meanSeconds?(datasetId: string): number | null;
  /** The WER section's groups of a dataset by `groupBy`: utterances and distinct speakers of each (optional, as groupClips). */
  werGroups?(datasetId: string, groupBy: readonly string[]): WerGroupFacts[];
}

export interface WerGroupFacts {
  group: string;
  utterances: number;
  speakers: number;
}

/**
 * What SpEAT's time goes with, in millions of permutation draws, measured on 3 December 2026
 * (a speat-only audit of the demo's recordings, 1–2 models, 6–24 stimuli per group, 10³–2·10⁶
 * permutations, 0–10⁵ resamples, at load 2): the permutation test shuffles the smaller group's
 * associations, so it costs permutations × stimuli per group (about 5 ns a draw), unless all
 * the splits are fewer and are enumerated; a bootstrap resample of k pairs costs k draws of
 * pairs at 2.5 times a permutation draw; the rest of a comparison (its vectors, associations,
 * the simulated MDE, the stored result) about a million draws, its 30-cell grid 1.4 million
 * more, and the section's start (designing the tests, reading embeddings) 10 million. The
 * number of permutations alone, as it was costed before, said nothing: an own-data audit's
 * 200,000 permutations over 12 stimuli took a tenth of a second, estimated at 10–20 s.
 */
export const SPEAT_COST = { stage: 10, comparison: 1, grid: 1.4, bootstrapDraw: 2.5 } as const;

type SpeatPlanConfig = NonNullable<AuditPlanConfig['speat']>;
type WerPlanConfig = NonNullable<AuditPlanConfig['wer']>;

/** Millions of draws of one SpEAT comparison (one model, one test) with `k` stimuli per group. */
export function speatComparisonCost(k: number, s: Pick<SpeatPlanConfig, 'permutations' | 'bootstrap' | 'sampleSizes' | 'grid'>): number {
  if (!(k >= 2)) return SPEAT_COST.comparison;
  const splits = binomialCapped(2 * k, k, s.permutations);
  const permutations = splits <= s.permutations ? splits : s.permutations * k;
  const sizes = s.sampleSizes.filter((x) => x <= k);
  // The SE at the compared number of stimuli is one more size unless the plan lists it.
  const drawn = sizes.reduce((a, x) => a + x, 0) + (sizes.includes(k) ? 0 : k);
  const bootstrap = s.bootstrap > 0 ? s.bootstrap * drawn * SPEAT_COST.bootstrapDraw : 0;
  return (permutations + bootstrap) / 1e6 + SPEAT_COST.comparison + (s.grid ? SPEAT_COST.grid : 0);
}

/**
 * What WER's time goes with, in thousands of utterances fitted, measured on 3 December 2026
 * (the demo's recognition data, copied to 48–480 utterances with 4–24 speakers a group, at
 * load 2–3): the power simulations behind each comparison's minimum detectable rate ratio
 * refit the mixed model to every simulated audit when both groups have five speakers or more
 * (a first round of a quarter of the simulations, at least 50, then all of them): 35–60 µs an
 * utterance a fit, seconds to tens of seconds in all, where the analysis itself took 25–45 ms.
 * Otherwise each simulation is 13 small permutation tests (about 0.1 of a thousand-utterance
 * fit for all 13). The rest of the section (reading, normalising and aligning the transcripts,
 * the tests, the stored result) is about 60 utterance-fits an utterance (the demo's 80
 * utterances: 0.2–0.3 s); its bootstrap and permutations add little (a hundredth of a unit per
 * thousand resamples per hundred utterances: 25,000 of them over 24 utterances, 4 ms).
 */
export const WER_COST = { perUtterance: 0.06, perKResample: 0.01, permutationSimulation: 0.0013 } as const;

/** Thousands of utterance-fits of the WER section over `utterances` usable recordings, in `groups` when known. */
export function werCost(utterances: number, w: Pick<WerPlanConfig, 'bootstrap' | 'permutations' | 'mdeSimulations' | 'referenceGroup'>, groups?: readonly WerGroupFacts[]): number {
  const n = groups ? groups.reduce((a, g) => a + g.utterances, 0) : utterances;
  const analysis = n * WER_COST.perUtterance + ((w.bootstrap + w.permutations) / 1000) * (n / 100) * WER_COST.perKResample;
  const S = w.mdeSimulations;
  if (S === 0) return analysis;
  // Without the groups (the demo's estimate before its import), one comparison by permutations.
  // The plan's reference group, or every pair (also when the plan names none, as the run does).
  const refName = referenceGroupOf(w.referenceGroup);
  const pairs = (n: number) => (n * (n - 1)) / 2;
  const comparisons = groups ? (refName === null ? pairs(groups.length) : Math.max(0, groups.length - 1)) : 1;
  const ref = refName !== null ? groups?.find((g) => g.group === refName) : undefined;
  const many = groups ? groups.filter((g) => g.speakers >= MIXED_MODEL_SPEAKERS) : [];
  const mixed = !groups ? 0 : refName === null ? pairs(many.length) : ref && ref.speakers >= MIXED_MODEL_SPEAKERS ? many.filter((g) => g !== ref).length : 0;
  const fits = Math.min(S, Math.max(50, Math.ceil(S / 4))) + S;
  return analysis + mixed * fits * (n / 1000) + (comparisons - mixed) * S * WER_COST.permutationSimulation;
}

/**
 * A model's time goes with the audio it reads, not with the number of recordings: in the demo
 * run of bench:eta the speech-embedding model took 0.090, 0.100 and 0.064 s a recording for
 * datasets of 2.67, 3.38 and 2.25 s a recording on average, 0.029–0.034 s an audio second.
 * Costs count recordings of this length (the demo's average, what the rates were measured
 * on), so a rate book's figure per recording still reads as one for recordings like these.
 */
export const EMBED_REFERENCE_SECONDS = 2.7;

function lengthFactor(meanSeconds: number | null): number {
  return meanSeconds !== null && meanSeconds > 0 && Number.isFinite(meanSeconds) ? meanSeconds / EMBED_REFERENCE_SECONDS : 1;
}

/** A WER comparison is tested by the mixed model when both groups have this many speakers (stats/wer.ts MIXED_MODEL_MIN_SPEAKERS). */
const MIXED_MODEL_SPEAKERS = 5;

/** Stimuli per group a SpEAT test can have: the smaller group, capped by the plan; half the dataset when its groups are not known. */
function speatStimuli(t: SpeatPlanConfig['tests'][number], facts: WorkFacts): number {
  const k = facts.groupClips ? Math.min(facts.groupClips(t.targetDataset, t.x.label, t.x.value), facts.groupClips(t.targetDataset, t.y.label, t.y.value)) : Math.floor(facts.clips(t.targetDataset) / 2);
  return Math.min(k, t.maxPerGroup ?? Infinity);
}

export function modelKey(m: Pick<ModelManifest, 'alias' | 'id'>): string {
  return m.alias ?? m.id;
}

/** (dataset, model) pairs whose embeddings the sections read, in the order run.ts reads them. */
export function embeddingJobs(plan: AuditPlanConfig): { datasetId: string; model: string }[] {
  const jobs = new Map<string, { datasetId: string; model: string }>();
  const add = (datasetId: string, model: string) => jobs.set(`${datasetId}|${model}`, { datasetId, model });
  if (plan.sections.includes('speat') && plan.speat) {
    for (const m of plan.models) {
      add(plan.speat.attributeDataset, m);
      for (const t of plan.speat.tests) add(t.targetDataset, m);
    }
  }
  if (plan.sections.includes('ser') && plan.ser) for (const m of plan.models) add(plan.ser.valenceDataset, m);
  if (plan.sections.includes('fdi') && plan.fdi?.source.kind === 'verification') add(plan.fdi.source.dataset, plan.fdi.source.modelId);
  return [...jobs.values()];
}

/** The audit's stages in run order, with their costs. `models` maps the plan's model references to manifests. */
export function auditStages(plan: AuditPlanConfig, models: Map<string, ModelManifest>, facts: WorkFacts): WorkStage[] {
  const out: WorkStage[] = [];
  embeddingJobs(plan).forEach((job, k) => {
    const m = models.get(job.model);
    if (!m || m.task === 'asr') return;
    out.push({
      key: `embed/${k}`,
      label: `Reading “${facts.datasetName(job.datasetId)}” with ${m.name}`,
      unit: 'recording',
      cost: facts.toEmbed(job.datasetId, m) * lengthFactor(facts.meanSeconds?.(job.datasetId) ?? null),
      rateKey: `embed:${modelKey(m)}`,
      fallbackKey: 'embed:model',
    });
  });
  const embedModels = plan.models.filter((r) => models.get(r)?.task !== 'asr').length;
  if (plan.sections.includes('speat') && plan.speat) {
    const s = plan.speat;
    const perModel = s.tests.reduce((a, t) => a + speatComparisonCost(speatStimuli(t, facts), s), 0);
    out.push({ key: 'speat', label: 'Association test (SpEAT): each comparison with each model', unit: 'comparison', cost: SPEAT_COST.stage + embedModels * perModel, rateKey: 'speat:mdraw' });
  }
  if (plan.sections.includes('ser') && plan.ser) {
    out.push({ key: 'ser', label: 'Training the emotion predictors (SER)', unit: 'step', cost: (embedModels * plan.ser.learningRates.length * plan.ser.maxSteps) / 1000, rateKey: 'ser:kstep' });
  }
  if (plan.sections.includes('wer') && plan.wer) {
    const w = plan.wer;
    const asr = w.hypotheses.source === 'model' ? models.get(w.hypotheses.modelId) : undefined;
    if (asr) {
      out.push({
        key: 'wer/transcribe',
        label: `Transcribing “${facts.datasetName(w.dataset)}” with ${asr.name}`,
        unit: 'recording',
        cost: facts.clips(w.dataset),
        rateKey: `transcribe:${modelKey(asr)}`,
        fallbackKey: 'transcribe:model',
      });
    }
    out.push({
      key: 'wer',
      label: 'Comparing recognition errors between groups (WER)',
      unit: 'analysis',
      cost: werCost(facts.clips(w.dataset), w, facts.werGroups?.(w.dataset, w.groupBy)),
      rateKey: 'wer:kfit',
    });
  }
  if (plan.sections.includes('fdi') && plan.fdi) {
    out.push({ key: 'fdi', label: 'Fairness measures (FDI): each attribute set', unit: 'attribute set', cost: plan.fdi.groupings.length * (1 + plan.fdi.bootstrap / 500), rateKey: 'fdi:grouping' });
  }
  return out;
}

/** Work facts read from a project database. */
export function databaseFacts(db: Database.Database): WorkFacts {
  const name = datasetNameLookup(db);
  const usable = usableClipCounter(db);
  const todo = unembeddedAudioCounter(db);
  // Read once per dataset: the stage list asks about the same dataset for each test.
  const listed = new Map<string, ReturnType<typeof listClips>>();
  const clipsOf = (id: string) => listed.get(id) ?? listed.set(id, listClips(db, id)).get(id)!;
  return {
    datasetName: (id) => name(id) ?? 'recordings',
    clips: (id) => usable(id),
    toEmbed: (id, m) => todo(id, m.id, m.settingsKey),
    // As the SpEAT design draws stimuli: usable, hashed, by the group label.
    meanSeconds: (id) => {
      const known = clipsOf(id).filter((c) => c.sha256 !== null && c.durationS !== null && c.durationS > 0);
      return known.length ? known.reduce((a, c) => a + c.durationS!, 0) / known.length : null;
    },
    groupClips: (id, label, value) => clipsOf(id).filter((c) => c.sha256 !== null && c.groups[label] === value).length,
    // As the WER section groups utterances: every label of groupBy present (it also needs the texts; an upper bound).
    werGroups: (id, groupBy) => {
      const groups = new Map<string, { utterances: number; speakers: Set<string> }>();
      for (const c of clipsOf(id)) {
        const parts = groupBy.map((l) => c.groups[l]);
        if (!parts.every((p) => p !== undefined && p !== '')) continue;
        const key = parts.join(' × ');
        const g = groups.get(key) ?? groups.set(key, { utterances: 0, speakers: new Set() }).get(key)!;
        g.utterances += 1;
        if (c.speaker) g.speakers.add(c.speaker);
      }
      return [...groups].map(([group, g]) => ({ group, utterances: g.utterances, speakers: g.speakers.size }));
    },
  };
}

export function estimatedSeconds(stages: readonly WorkStage[], rates: RateBook): number[] {
  return stages.map((s) => s.cost * rateFor(rates, s.rateKey, s.fallbackKey));
}

/**
 * Turns the stages' own progress reports into whole-job progress. Section code keeps
 * reporting its short stage names ("SpEAT", "SER training"); `stageOf` says which work
 * stage each name belongs to. Stages before the current one count as done.
 *
 * Each report carries two views: `overall` and `estimatedSecondsLeft` from the rate book
 * alone, and `pacedOverall` and `pacedSecondsLeft` from this run's own measurements
 * (StagePace below): one stage's estimate can be off five-fold while another's is right,
 * which no single correction for the whole job can mend.
 */
export class WorkTracker {
  private readonly est: number[];
  private readonly total: number;
  private current = -1;
  private started: number;
  private readonly created: number;
  private readonly pace: StagePace;
  /** The paced fraction last reported: the bar never moves back when an estimate grows. */
  private shownFraction = 0;

  constructor(
    private readonly task: TaskContext,
    readonly stages: WorkStage[],
    rates: RateBook,
    /** Where measured rates are recorded; null: do not record (a resumed run's cached work would look fast). */
    private readonly recordIn: string | null,
    /** Work done before this tracker (e.g. the demo's import) and still to come after it. */
    private readonly around: WorkAround = { before: 0, after: 0 },
    /** Milliseconds; a test passes a simulated clock. */
    private readonly clock: () => number = Date.now,
  ) {
    this.est = estimatedSeconds(stages, rates);
    this.total = this.est.reduce((a, b) => a + b, 0) + around.before + around.after;
    this.created = clock();
    this.started = this.created;
    this.pace = new StagePace(
      stages.map((s, i) => ({ key: s.rateKey, estimated: this.est[i]!, measuredHere: rates[s.rateKey] !== undefined })),
      around,
      this.created / 1000,
    );
  }

  /** Estimated seconds of the tracked stages, for a caller that adds its own. */
  get seconds(): number {
    return this.est.reduce((a, b) => a + b, 0);
  }

  /** Seconds since this tracker was made: what its work took, for the tracker that follows it (`around.beforeTook`). */
  get took(): number {
    return (this.clock() - this.created) / 1000 + (this.around.beforeTook ?? this.around.before);
  }

  private enter(index: number): void {
    if (index <= this.current) return;
    this.leaveCurrent();
    this.current = index;
    this.started = this.clock();
    this.pace.enter(index, this.started / 1000);
  }

  private leaveCurrent(): void {
    const s = this.stages[this.current];
    if (!s) return;
    const now = this.clock();
    this.pace.leave(this.current, now / 1000);
    // A stage is timed from its start to its end, its start-up included (it recurs), so even a
    // quick one is recorded as it went: left unrecorded it keeps the build machine's rate, which
    // can be a hundred times too slow (the demo's FDI: 5 s estimated, 0.15 s taken), and recorded
    // as a quarter of a second, as it was until 4 December, it made the last stages of the next
    // run look twice as long as they were (bench:eta's 90 % readings of 1.5).
    if (this.recordIn) recordRate(this.recordIn, s.rateKey, (now - this.started) / 1000, s.cost, QUICK_STAGE_SECONDS);
  }

  /** Call once the last stage is over, to record its speed. */
  finish(): void {
    this.leaveCurrent();
    this.current = this.stages.length;
  }

  /** Whole-job detail for a report in stage `index` that is `fraction` done. */
  detail(index: number, fraction: number): Required<Pick<ProgressDetail, 'overall' | 'estimatedSecondsLeft' | 'pacedOverall' | 'pacedSecondsLeft'>> {
    const f = Math.min(1, Math.max(0, fraction));
    const before = this.around.before + this.est.slice(0, index).reduce((a, b) => a + b, 0) + (this.est[index] ?? 0) * f;
    const left = this.total - before;
    if (index === this.current) this.pace.report(index, f, this.clock() / 1000);
    return { overall: this.total > 0 ? before / this.total : 0, estimatedSecondsLeft: Math.max(0, left), ...this.paced() };
  }

  /** The whole job as it stands, between stages' reports (the demo's "Locking the plan" after its import). */
  report(): Required<Pick<ProgressDetail, 'overall' | 'estimatedSecondsLeft' | 'pacedOverall' | 'pacedSecondsLeft'>> {
    const doneIndex = Math.min(this.current, this.stages.length);
    return doneIndex >= this.stages.length ? { overall: this.total > 0 ? (this.total - this.around.after) / this.total : 0, estimatedSecondsLeft: this.around.after, ...this.paced() } : this.detail(Math.max(0, doneIndex), 0);
  }

  private paced(): { pacedOverall: number; pacedSecondsLeft: number } {
    const { done, left } = this.pace.estimate(this.clock() / 1000);
    const fraction = done + left > 0 ? done / (done + left) : 1;
    this.shownFraction = Math.max(this.shownFraction, Math.min(1, fraction));
    return { pacedOverall: this.shownFraction, pacedSecondsLeft: Math.max(0, left) };
  }

  /** A task context for section code: its progress reported in words with the whole job's fraction. */
  context(stageOf: (sectionStage: string) => string | undefined): TaskContext {
    return {
      cancelled: () => this.task.cancelled(),
      throwIfCancelled: () => this.task.throwIfCancelled(),
      progress: (stage, done, total, detail) => {
        const key = stageOf(stage);
        const index = key === undefined ? this.current : this.stages.findIndex((s) => s.key === key);
        if (index >= 0) this.enter(index);
        const s = this.stages[this.current];
        const fraction = detail?.stageFraction ?? (total > 0 ? done / total : 0);
        this.task.progress(stage, done, total, {
          label: detail?.label ?? s?.label ?? stage,
          unit: detail?.unit ?? s?.unit ?? '',
          ...(this.current >= 0 && this.current < this.stages.length ? this.detail(this.current, fraction) : {}),
        });
      },
    };
  }
}

/** Work before and after a tracker's stages (the demo's import before its audit), in estimated seconds. */
export interface WorkAround {
  before: number;
  after: number;
  /** Seconds the work before really took, when the caller measured it; otherwise its estimate stands in. */
  beforeTook?: number;
}

/** Shorter than this a stage's measurement is timer noise and not recorded (src/main/jobs/rates.ts). */
const QUICK_STAGE_SECONDS = 0.01;
/** A stage's own pace counts fully once this share of it, and this many seconds, have been measured. */
const TRUST_FRACTION = 0.1;
const TRUST_SECONDS = 1;
/** Stages estimated at less than this say nothing about the pace (cached recordings cost nothing). */
const EVIDENCE_SECONDS = 0.1;
/** How far this run's pace may differ from the rates: the clamp the job runner used. */
const RATIO_MIN = 0.05;
const RATIO_MAX = 20;

interface PacedStage {
  key: string;
  /** Seconds from the rate book. */
  estimated: number;
  /** Whether that rate was measured on this computer (otherwise it is the build machine's). */
  measuredHere: boolean;
}

interface StageTimes {
  start?: number;
  end?: number;
  /** The stage's first report with work done: its pace is measured from there, its start-up excluded. */
  anchor?: { t: number; f: number };
  last?: { t: number; f: number };
  /** Reports since the anchor's half-way point to now, for the recent pace. */
  points: { t: number; f: number }[];
}

/**
 * Seconds left from the stages' measured durations. A finished stage counts with what it
 * took; the current one, once some of it is measured, with its own pace since its first
 * measured units (its start-up does not recur); a stage not started yet with its estimate
 * scaled by how this run's stages of the same rate have gone against theirs, else those
 * whose rates came from the same place (measured here or on the build machine), else all.
 * The fraction done is the seconds spent over those plus the seconds left, so the two agree.
 * Times are in seconds on the tracker's clock.
 */
export class StagePace {
  private readonly times: StageTimes[];
  private current = -1;

  constructor(
    private readonly stages: readonly PacedStage[],
    private readonly around: WorkAround,
    private readonly created: number,
  ) {
    this.times = stages.map(() => ({ points: [] }));
  }

  enter(index: number, t: number): void {
    this.current = index;
    this.times[index]!.start = t;
  }

  leave(index: number, t: number): void {
    const s = this.times[index];
    if (s?.start !== undefined) s.end = t;
  }

  report(index: number, f: number, t: number): void {
    const s = this.times[index];
    if (!s || s.start === undefined) return;
    s.last = { t, f };
    if (!s.anchor && f > 0) s.anchor = { t, f };
    if (!s.anchor) return;
    s.points.push({ t, f });
    // Only the second half of what was measured is read: older reports are not needed again.
    const mid = (s.anchor.t + t) / 2;
    let drop = 0;
    while (drop + 1 < s.points.length && s.points[drop + 1]!.t <= mid) drop += 1;
    if (drop > 0) s.points.splice(0, drop);
  }

  /** Seconds spent so far and seconds left, at time `now`. */
  estimate(now: number): { done: number; left: number } {
    const evidence = this.finishedEvidence();
    const c = this.current;
    let left = 0;
    const cur = c >= 0 && c < this.stages.length ? this.times[c] : undefined;
    if (cur?.start !== undefined && cur.end === undefined) {
      const stage = this.stages[c]!;
      const own = this.currentStage(stage, cur, now, this.ratioFor(stage, evidence));
      left += own.left;
      // What is measured of the current stage is evidence for those after it, as far as it is trusted.
      if (own.trust > 0 && stage.estimated >= EVIDENCE_SECONDS) evidence.push({ stage, took: own.trust * own.duration, estimated: own.trust * stage.estimated });
    }
    for (let j = Math.max(0, c + 1); j < this.stages.length; j += 1) {
      const stage = this.stages[j]!;
      left += stage.estimated * this.ratioFor(stage, evidence);
    }
    left += this.around.after * ratioOf(evidence);
    const before = this.around.beforeTook ?? this.around.before;
    return { done: before + Math.max(0, now - this.created), left };
  }

  /** The current stage: seconds left, its projected whole duration, and how far its own pace is trusted (0–1). */
  private currentStage(stage: PacedStage, s: StageTimes, now: number, ratio: number): { left: number; duration: number; trust: number } {
    const elapsed = Math.max(0, now - s.start!);
    const f = s.last?.f ?? 0;
    const prior = stage.estimated * ratio;
    // Before any count, a stage that outlasts its estimate is not about to end: it is
    // given half as long again as it has run rather than a "0 s left".
    const priorLeft = f > 0 ? (1 - f) * prior : Math.max(prior - elapsed, elapsed / 2);
    let perStage: number | null = null;
    let measuredShare = 0;
    let measuredSeconds = 0;
    if (s.anchor && s.last && s.last.f > s.anchor.f && s.last.t > s.anchor.t) {
      measuredShare = s.last.f - s.anchor.f;
      measuredSeconds = s.last.t - s.anchor.t;
      perStage = measuredSeconds / measuredShare;
      // The pace of the second half of what was measured, when it has moved: a stage's units
      // can change speed (SER trains one model's predictors, then a larger model's), and the
      // rest goes as the latest part did, not as the average since the start.
      const recent = s.points[0];
      if (recent && s.last.f > recent.f && s.last.t - recent.t >= TRUST_SECONDS / 2) perStage = (s.last.t - recent.t) / (s.last.f - recent.f);
    } else if (f > 0 && elapsed > 0) {
      // Only the first count so far: its time includes the stage's start-up, an upper bound.
      perStage = elapsed / f;
      measuredShare = f;
      measuredSeconds = elapsed;
    }
    const trust = perStage === null ? 0 : Math.min(1, measuredShare / TRUST_FRACTION) * Math.min(1, measuredSeconds / TRUST_SECONDS);
    const measuredLeft = perStage === null ? 0 : (1 - f) * perStage;
    const left = trust * measuredLeft + (1 - trust) * priorLeft;
    return { left, duration: elapsed + left, trust };
  }

  private finishedEvidence(): Evidence[] {
    const out: Evidence[] = [];
    this.stages.forEach((stage, i) => {
      const s = this.times[i]!;
      if (s.start !== undefined && s.end !== undefined && stage.estimated >= EVIDENCE_SECONDS) out.push({ stage, took: s.end - s.start, estimated: stage.estimated });
    });
    if (this.around.beforeTook !== undefined && this.around.before >= EVIDENCE_SECONDS) out.push({ stage: null, took: this.around.beforeTook, estimated: this.around.before });
    return out;
  }

  /**
   * How this run goes against the rates, for a stage: its rate key's stages, else those whose
   * rates came from the same place, else (for a build-machine rate) the work before the
   * tracker; a rate measured here is not judged by how far the build machine's were off nor
   * by the import, but one from the build machine is judged by anything measured.
   */
  private ratioFor(stage: PacedStage, evidence: Evidence[]): number {
    const same = evidence.filter((e) => e.stage?.key === stage.key);
    if (same.length) return ratioOf(same);
    const origin = evidence.filter((e) => e.stage !== null && e.stage.measuredHere === stage.measuredHere);
    if (origin.length) return stage.measuredHere ? shrunk(origin) : ratioOf(origin);
    // The work before the tracker (the demo's import: ffmpeg decoding, hashing, database writes)
    // is another kind of work: its pace against the build machine's rate says how fast this
    // computer is, but against a rate measured here it says only how that import went. In
    // bench:eta (3 and 4 December) a second demo's import ran 1.6 and 1.7 times slower than the
    // first's while the models after it read at the first run's speed or faster, and scaling
    // them by the import showed 1.57 and 1.92 times the time left at 20 %.
    const before = evidence.filter((e) => e.stage === null);
    if (before.length && !stage.measuredHere) return ratioOf(before);
    return stage.measuredHere ? 1 : ratioOf(evidence);
  }
}

interface Evidence {
  /** null: the work before the tracker. */
  stage: PacedStage | null;
  took: number;
  estimated: number;
}

/**
 * Other kinds of work's pace, for a rate measured here: what is left of their deviation after
 * this computer's speed (which the rate already holds) is partly a change that every kind of
 * work shares (a laptop gone to battery, a steady load) and partly that stage's own noise, which
 * is large for a stage of a second or two (start-up, another user's burst). So the ratio is
 * taken in log terms with weight E / (E + SHRINK_SECONDS), E the estimated seconds it rests on:
 * a 10-second stage three times slower carries about 2.1-fold, a one-second stage 1.4 times
 * slower about 1.06-fold. In bench:eta (4 December) a second demo's acoustic-baseline stages
 * (about a second) ran 1.4 times slower than measured while the speech-embedding model after
 * them read at its measured speed; carried whole, that showed 1.55 times the time left at 30 %.
 */
function shrunk(evidence: readonly Evidence[]): number {
  const seconds = evidence.reduce((a, e) => a + e.estimated, 0);
  const w = seconds / (seconds + SHRINK_SECONDS);
  return Math.exp(w * Math.log(ratioOf(evidence)));
}

const SHRINK_SECONDS = 5;

function ratioOf(evidence: readonly Evidence[]): number {
  const estimated = evidence.reduce((a, e) => a + e.estimated, 0);
  if (!(estimated > 0)) return 1;
  return Math.min(RATIO_MAX, Math.max(RATIO_MIN, evidence.reduce((a, e) => a + e.took, 0) / estimated));
}
