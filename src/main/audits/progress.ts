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
 * - embed:<model>      one recording read with a model (cached recordings cost nothing)
 * - transcribe:<model> one recording transcribed by a speech-recognition model
 * - import:clip        one row of a spreadsheet imported (hash, decode, checks)
 * - speat:kresample    a thousand permutations or bootstrap resamples of one comparison
 * - ser:kstep          a thousand training steps of one emotion predictor
 * - wer:kresample      a thousand resamples over a hundred utterances
 * - fdi:grouping       one attribute set's trials, threshold sweep and bootstrap (500 resamples)
 */
import type Database from 'better-sqlite3';
import type { AuditPlanConfig } from '../../shared/plan';
import type { ModelManifest } from '../inference';
import type { ProgressDetail, TaskContext } from '../jobs/task';
import { rateFor, recordRate, type RateBook } from '../jobs/rates';
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
      cost: facts.toEmbed(job.datasetId, m),
      rateKey: `embed:${modelKey(m)}`,
      fallbackKey: 'embed:model',
    });
  });
  const embedModels = plan.models.filter((r) => models.get(r)?.task !== 'asr').length;
  if (plan.sections.includes('speat') && plan.speat) {
    const s = plan.speat;
    const perTest = (s.permutations + s.bootstrap * s.sampleSizes.length + (s.grid ? 30 : 0)) / 1000;
    out.push({ key: 'speat', label: 'Association test (SpEAT): each comparison with each model', unit: 'comparison', cost: embedModels * s.tests.length * perTest, rateKey: 'speat:kresample' });
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
      cost: ((w.bootstrap + w.permutations) / 1000) * (facts.clips(w.dataset) / 100),
      rateKey: 'wer:kresample',
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
  return {
    datasetName: (id) => name(id) ?? 'recordings',
    clips: (id) => usable(id),
    toEmbed: (id, m) => todo(id, m.id, m.settingsKey),
  };
}

export function estimatedSeconds(stages: readonly WorkStage[], rates: RateBook): number[] {
  return stages.map((s) => s.cost * rateFor(rates, s.rateKey, s.fallbackKey));
}

/**
 * Turns the stages' own progress reports into whole-job progress. Section code keeps
 * reporting its short stage names ("SpEAT", "SER training"); `stageOf` says which work
 * stage each name belongs to. Stages before the current one count as done.
 */
export class WorkTracker {
  private readonly est: number[];
  private readonly total: number;
  private current = -1;
  private started = Date.now();

  constructor(
    private readonly task: TaskContext,
    readonly stages: WorkStage[],
    rates: RateBook,
    /** Where measured rates are recorded; null: do not record (a resumed run's cached work would look fast). */
    private readonly recordIn: string | null,
    /** Seconds of work done before this tracker (e.g. the demo's import) and still to come after it. */
    private readonly around: { before: number; after: number } = { before: 0, after: 0 },
  ) {
    this.est = estimatedSeconds(stages, rates);
    this.total = this.est.reduce((a, b) => a + b, 0) + around.before + around.after;
  }

  /** Estimated seconds of the tracked stages, for a caller that adds its own. */
  get seconds(): number {
    return this.est.reduce((a, b) => a + b, 0);
  }

  private enter(index: number): void {
    if (index <= this.current) return;
    this.leaveCurrent();
    this.current = index;
    this.started = Date.now();
  }

  private leaveCurrent(): void {
    const s = this.stages[this.current];
    if (s && this.recordIn) recordRate(this.recordIn, s.rateKey, (Date.now() - this.started) / 1000, s.cost);
  }

  /** Call once the last stage is over, to record its speed. */
  finish(): void {
    this.leaveCurrent();
    this.current = this.stages.length;
  }

  /** Whole-job detail for a report in stage `index` that is `fraction` done. */
  detail(index: number, fraction: number): Required<Pick<ProgressDetail, 'overall' | 'estimatedSecondsLeft'>> {
    const f = Math.min(1, Math.max(0, fraction));
    const before = this.around.before + this.est.slice(0, index).reduce((a, b) => a + b, 0) + (this.est[index] ?? 0) * f;
    const left = this.total - before;
    return { overall: this.total > 0 ? before / this.total : 0, estimatedSecondsLeft: Math.max(0, left) };
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
