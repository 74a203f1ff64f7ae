/**
 * The audit plan: everything that decides an audit's numbers, as a typed, versioned
 * config. Locking a plan (pre-registration) freezes its canonical JSON and hash.
 */
import { z } from 'zod';
import { ReferenceChoice } from './reference-group';
import { AuditContext, statedContext } from './audit-context';

export const PLAN_SCHEMA_VERSION = 1 as const;

const Id = z.string().min(1).max(100);
const Label = z.string().trim().min(1).max(100);
const Temporal = z.enum(['mean', 'min', 'max']);
const Layer = z.enum(['sum', 'min', 'max', 'first', 'second', 'q1', 'q2', 'q3', 'penultimate', 'last']);

/** Numbers the SpEAT paper states; a plan below them is named in the report (METHODS.md: defaults follow the paper). */
export const PAPER_DEFAULTS = { attributePerSpeaker: 10, bootstrap: 10_000, serMaxSteps: 20_000 } as const;

/** The SpEAT paper's six tests and their human IAT D (Table 1). */
export const SPEAT_PRESETS = {
  'abled-disabled': { name: 'Abled / Disabled', humanIatD: 0.45 },
  'european-african-american': { name: 'European-American / African-American', humanIatD: 0.37 },
  'female-male': { name: 'Female / Male', humanIatD: 0.31 },
  'human-synthesized': { name: 'Human / Synthesized', humanIatD: 0.33 },
  'us-foreign-accent': { name: 'U.S. / Foreign accent', humanIatD: 0.32 },
  'young-old': { name: 'Young / Old', humanIatD: 0.49 },
} as const;
export type SpeatPreset = keyof typeof SPEAT_PRESETS;

/**
 * Bounds `audit run` enforces, here so that `audit lock` refuses what the run would
 * (issue 23.5): the FDI threshold sweep of src/main/stats/fdi.ts thresholdRange (from
 * <= to, at most 100,000 thresholds, counted the same way; test/unit/audits/lock-bounds.test.ts
 * checks the two agree), and a SpEAT test's X and Y (src/main/audits/speat-audit.ts and
 * src/main/data/speat-design.ts).
 */
export const MAX_FDI_THRESHOLDS = 100_000;

/** How many thresholds from:to:step gives, as thresholdRange counts them (within 1e-9 of a step). */
export function thresholdCount(from: number, to: number, step: number): number {
  return Math.floor((to - from) / step + 1e-9) + 1;
}

/** "Comparison 3": the placeholder older wizards gave a new comparison; never a name a report should print. */
export const PLACEHOLDER_COMPARISON_NAME = /^\s*Comparison\s+\d+\s*$/i;

/** A comparison's name from its groups ("us vs scotland"), used unless the auditor typed one. */
export function derivedComparisonName(t: { x: { value: string }; y: { value: string } }): string {
  return `${t.x.value} vs ${t.y.value}`;
}

/** The name a comparison goes by: the typed one, else derived from its groups (issue 21.6: "Comparison N" never reaches a plan). */
export function comparisonName(t: { name?: string; x: { value: string }; y: { value: string } }): string {
  const typed = t.name?.trim() ?? '';
  return typed === '' || PLACEHOLDER_COMPARISON_NAME.test(typed) ? derivedComparisonName(t) : typed;
}

export const SpeatTestPlan = z.strictObject({
  id: z.string().regex(/^[\w-]{1,60}$/, 'letters, digits, - and _ only'),
  /** Absent, empty or a "Comparison N" placeholder: derived from the groups. */
  name: z.string().max(200).optional(),
  preset: z.enum(Object.keys(SPEAT_PRESETS) as [SpeatPreset, ...SpeatPreset[]]).optional(),
  targetDataset: Id,
  /** X: the group hypothesised to sit closer to pleasant speech. */
  x: z.strictObject({ label: Label, value: z.string().min(1) }),
  y: z.strictObject({ label: Label, value: z.string().min(1) }),
  /** Match X and Y on these labels with a stratified sample per cell. */
  matchOn: z.array(Label).default([]),
  perCell: z.number().int().min(1).max(10_000).optional(),
  /** Cap on stimuli per group (random, seeded) after matching. */
  maxPerGroup: z.number().int().min(2).max(100_000).optional(),
}).superRefine((t, ctx) => {
  if (t.x.label !== t.y.label) ctx.addIssue({ code: 'custom', message: `X and Y must be values of the same label (got ${t.x.label} and ${t.y.label})`, path: ['y', 'label'] });
  else if (t.x.value === t.y.value) ctx.addIssue({ code: 'custom', message: `X and Y must be different groups (both are ${t.x.label} = ${t.x.value})`, path: ['y', 'value'] });
  if (t.matchOn.includes(t.x.label)) ctx.addIssue({ code: 'custom', message: `cannot match on "${t.x.label}", the label that defines X and Y`, path: ['matchOn'] });
}).transform((t) => ({ ...t, name: comparisonName(t) }));

export const SpeatPlan = z.strictObject({
  attributeDataset: Id,
  /** k highest and k lowest rated clips per attribute speaker (METHODS.md; the paper's k = 10). */
  attributePerSpeaker: z.number().int().min(1).max(1000).default(10),
  tests: z.array(SpeatTestPlan).min(1).max(50),
  temporal: Temporal.default('mean'),
  layer: Layer.default('sum'),
  permutations: z.number().int().min(100).max(10_000_000).default(10_000),
  /** Bootstrap resamples for the SE of d (the paper's R = 10,000). */
  bootstrap: z.number().int().min(0).max(100_000).default(10_000),
  sampleSizes: z.array(z.number().int().min(2)).max(100).default([2, 4, 6, 8, 10]),
  alpha: z.number().gt(0).lt(1).default(0.05),
  correction: z.enum(['bonferroni', 'holm', 'bh']).default('holm'),
  grid: z.boolean().default(false),
});

export const SerPlan = z.strictObject({
  /** Valence-rated dataset the regressors learn from (usually the attribute dataset). */
  valenceDataset: Id,
  learningRates: z.array(z.number().gt(0).lt(1)).min(1).max(6).default([1e-3, 1e-4, 1e-5]),
  batchSize: z.number().int().min(1).max(1024).default(32),
  maxSteps: z.number().int().min(1).max(200_000).default(20_000),
  hidden: z.number().int().min(1).max(4096).default(256),
  /** Validation every this many steps; the best checkpoint is kept (METHODS.md). */
  evalEvery: z.number().int().min(1).max(100_000).default(500),
  /** Patience-based early stopping changes results: off unless the plan asks, and the report says so. */
  earlyStopping: z.strictObject({ patience: z.number().int().min(1).max(1000) }).nullable().default(null),
  split: z.strictObject({ train: z.number().min(0.1), validation: z.number().min(0.05), test: z.number().min(0.05) }).default({ train: 0.7, validation: 0.15, test: 0.15 }),
});

/**
 * The recogniser behind imported hypotheses. Empty text is accepted while a plan is being
 * written (the wizard saves as the auditor types); the lock requires all three
 * (src/main/audits/requirements.ts).
 */
export const Recogniser = z.strictObject({
  name: z.string().trim().max(200),
  version: z.string().trim().max(100),
  /** Decoding settings in words: language model, beam, acoustic model, anything that changes its output. */
  settings: z.string().trim().max(2000),
});
export type RecogniserInfo = z.output<typeof Recogniser>;

/** "pocketsphinx 5prealpha (en-us acoustic model, default LM)": the recogniser as the report names it. */
export function recogniserLabel(r: { name: string; version: string; settings?: string }): string {
  return `${r.name} ${r.version}${r.settings ? ` (${r.settings})` : ''}`;
}

/** Which of a recogniser's fields are still empty, in words ('name', 'version', 'settings'). */
export function recogniserMissing(r: Partial<RecogniserInfo> | undefined): string[] {
  return (['name', 'version', 'settings'] as const).filter((k) => !(r?.[k] ?? '').trim());
}

export const WerPlan = z.strictObject({
  dataset: Id,
  hypotheses: z.discriminatedUnion('source', [
    z.strictObject({
      source: z.literal('column'),
      /** Who produced the imported hypotheses; `audit lock` refuses a column without it (METHODS.md § Verdicts that hold, Provenance). */
      recogniser: Recogniser.optional(),
    }),
    z.strictObject({
      source: z.literal('model'),
      modelId: Id,
      /** Whisper: the language spoken in this dataset (a code such as de), or auto to detect it per recording. Default: English. */
      language: z.string().regex(/^(auto|[a-z]{2,3})$/, 'a language code such as en or de, or auto').optional(),
      /** Whisper: transcribe (default) or translate into English. */
      task: z.enum(['transcribe', 'translate']).optional(),
    }),
  ]).default({ source: 'column' }),
  /** One label, or several for intersectional groups. */
  groupBy: z.array(Label).min(1).max(4),
  /**
   * The group every other is compared with, or every pair (Holm over all pairs), chosen
   * before the run (METHODS.md § The unit of inference): a draft may leave it out, a lock
   * may not (src/main/audits/requirements.ts). A bare string is a group the auditor named.
   */
  referenceGroup: ReferenceChoice.optional(),
  normalize: z.enum(['basic', 'none', 'english', 'whisper-english', 'whisper-basic']).default('basic'),
  /** A second normaliser whose per-group WER the section reports beside the primary one; never the basis of a verdict. */
  secondaryNormalize: z.enum(['basic', 'none', 'english', 'whisper-english', 'whisper-basic']).optional(),
  bootstrap: z.number().int().min(0).max(100_000).default(1000),
  permutations: z.number().int().min(0).max(1_000_000).default(10_000),
  /** Resampling unit of CIs and permutations; auto: speakers when every utterance has a speaker id (METHODS.md). */
  by: z.enum(['auto', 'utterance', 'speaker']).default('auto'),
  /** Significance level of the verdict ("unlikely to be chance"), after Holm's adjustment over the comparisons. */
  alpha: z.number().gt(0).lt(1).default(0.05),
  /** Mixed model: 1 = Laplace (lme4's default), more = adaptive Gauss–Hermite quadrature with that many nodes. */
  nAGQ: z.number().int().min(1).max(25).default(1),
  /** Simulated audits behind each comparison's minimum detectable rate ratio (METHODS.md § Verdicts that hold, Power); 0: not computed. */
  mdeSimulations: z.number().int().min(0).max(10_000).default(200),
});

export const FdiPlan = z.strictObject({
  source: z.discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('verification'), dataset: Id, modelId: Id, trialsPerGroup: z.number().int().min(10).max(1_000_000).default(400) }),
    /** A CSV of scored decisions: group label column(s), label (1 genuine/positive, 0 otherwise), score. */
    z.strictObject({ kind: z.literal('imported'), file: z.string().min(1) }),
  ]),
  groupings: z.array(z.array(Label).min(1).max(4)).min(1).max(10),
  /** Per attribute set (matched by its labels): the reference group or every pair, chosen before the run; required to lock, as for WER. */
  references: z.array(z.strictObject({ groupBy: z.array(Label).min(1).max(4), reference: ReferenceChoice })).max(10).optional(),
  orientation: z.enum(['harm', 'paper']).default('harm'),
  alpha: z.number().min(0).max(1).default(0.5),
  /** Decision threshold; absent: the equal-error-rate threshold over all trials. */
  threshold: z.number().optional(),
  /** Threshold sweep; absent: 21 thresholds from the 1st to the 99th percentile of the scores (METHODS.md § Verdicts that hold). */
  thresholds: z
    .strictObject({ from: z.number(), to: z.number(), step: z.number().positive() })
    .superRefine((t, ctx) => {
      if (!(t.to >= t.from)) ctx.addIssue({ code: 'custom', message: `the threshold sweep must go up: from (${t.from}) must be at most to (${t.to})`, path: ['to'] });
      else if (!(thresholdCount(t.from, t.to, t.step) <= MAX_FDI_THRESHOLDS)) {
        const n = thresholdCount(t.from, t.to, t.step);
        ctx.addIssue({
          code: 'custom',
          message: `${Number.isFinite(n) ? `${n.toLocaleString('en')} thresholds` : 'too many thresholds'} from ${t.from} to ${t.to} in steps of ${t.step}; at most ${MAX_FDI_THRESHOLDS.toLocaleString('en')}: use a larger step`,
          path: ['step'],
        });
      }
    })
    .optional(),
  bootstrap: z.number().int().min(0).max(100_000).default(500),
  /** Shuffles of group labels for the FDI's permutation null (0: none). */
  nullPermutations: z.number().int().min(0).max(100_000).default(1000),
}).superRefine((f, ctx) => {
  const sets = new Set(f.groupings.map((g) => JSON.stringify(g)));
  const seen = new Set<string>();
  f.references?.forEach((r, i) => {
    const key = JSON.stringify(r.groupBy);
    if (!sets.has(key)) ctx.addIssue({ code: 'custom', message: `a reference group is given for the attribute set ${r.groupBy.join(' × ')}, which the plan does not group by`, path: ['references', i, 'groupBy'] });
    else if (seen.has(key)) ctx.addIssue({ code: 'custom', message: `the attribute set ${r.groupBy.join(' × ')} has two reference groups`, path: ['references', i, 'groupBy'] });
    seen.add(key);
  });
});

export const AuditPlan = z.strictObject({
  schema: z.literal(PLAN_SCHEMA_VERSION).default(PLAN_SCHEMA_VERSION),
  title: z.string().trim().min(1).max(200),
  seed: z.number().int().min(0).max(2 ** 32 - 1).default(20_240_601),
  sections: z.array(z.enum(['speat', 'ser', 'wer', 'fdi'])).min(1),
  models: z.array(Id).default([]),
  speat: SpeatPlan.optional(),
  ser: SerPlan.optional(),
  wer: WerPlan.optional(),
  fdi: FdiPlan.optional(),
  /** System, purpose, data provenance and independence (src/shared/audit-context.ts); blank fields dropped, absent when none stated, so older plans keep their hash. */
  context: AuditContext.optional().transform(statedContext),
}).superRefine((plan, ctx) => {
  for (const s of plan.sections) {
    if (!plan[s]) ctx.addIssue({ code: 'custom', message: `the plan runs ${s} but has no ${s} settings`, path: [s] });
  }
  if ((plan.sections.includes('speat') || plan.sections.includes('ser')) && plan.models.length === 0) {
    ctx.addIssue({ code: 'custom', message: 'choose at least one model for SpEAT and SER', path: ['models'] });
  }
  if (plan.sections.includes('ser') && !plan.sections.includes('speat')) {
    ctx.addIssue({ code: 'custom', message: 'SER propagation compares against SpEAT: include the speat section', path: ['sections'] });
  }
});

export type AuditPlanInput = z.input<typeof AuditPlan>;
export type AuditPlanConfig = z.output<typeof AuditPlan>;

/**
 * Every dataset a plan reads, in the order of its sections (SpEAT's attribute set, its
 * targets, SER's ratings, WER's recordings, FDI's trials), each once: what a lock pins and
 * a run fingerprints and summarises.
 */
export function planDatasetIds(plan: AuditPlanConfig): string[] {
  const ids = new Set<string>();
  if (plan.speat) {
    ids.add(plan.speat.attributeDataset);
    for (const t of plan.speat.tests) ids.add(t.targetDataset);
  }
  if (plan.ser) ids.add(plan.ser.valenceDataset);
  if (plan.wer) ids.add(plan.wer.dataset);
  if (plan.fdi?.source.kind === 'verification') ids.add(plan.fdi.source.dataset);
  return [...ids];
}

/** JSON with sorted keys and no whitespace: the form that is hashed when a plan is locked. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/** Paths where two plans differ, for the deviation section of the report. */
export function planDifferences(locked: unknown, used: unknown, path = ''): { path: string; locked: unknown; used: unknown }[] {
  if (canonicalJson(locked) === canonicalJson(used)) return [];
  const isObj = (v: unknown) => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (isObj(locked) && isObj(used)) {
    const keys = [...new Set([...Object.keys(locked as object), ...Object.keys(used as object)])].sort();
    return keys.flatMap((k) => planDifferences((locked as Record<string, unknown>)[k], (used as Record<string, unknown>)[k], path ? `${path}.${k}` : k));
  }
  return [{ path: path || '(plan)', locked: locked ?? null, used: used ?? null }];
}
