/**
 * SpEAT audit: for each model × test (× aggregation), effect size d, permutation p (the
 * paper's one-sided and the two-sided one behind verdicts), bootstrap SE against the number
 * of stimuli and at the number compared, the minimum detectable d; p adjusted across the
 * whole audit. When the target clips repeat a speaker, the speaker is the unit of all of
 * these (METHODS.md § The unit of inference) and the paper's clip-level test is kept beside
 * it; a speaker recorded in both groups keeps its two sets of clips together.
 */
import { SPEAT_PRESETS } from '../../shared/plan';
import type { LayerChoice, SpeatResult, SpeatSection, SpeatTestDesign, Temporal } from '../../shared/results';
import { attributeSets, designSpeatTest, type SpeatDesign } from '../data/speat-design';
import { isUsable, listClips, type Clip } from '../data/repository';
import { aggregate, loadEmbeddings, type ModelManifest, type StoredEmbedding } from '../inference';
import { adjustPValues, BootstrapPlan, olsRegression, speatAssociations, speatEffectSize, speatFromAssociations, speatMde, twoWayAnova, welchTTest, type BootstrapOptions } from '../stats';
import { fmt, pText } from '../../shared/charts/format';
import { UserError } from '../../shared/errors';
import { quoteUserText } from '../../shared/quote';
import { basename } from 'node:path';
import { durationTestName } from '../../shared/duration-check';
import type { AuditContext } from './context';
import { unitSeed } from './units';
import { attributeStimuliRecord } from './attribute-stimuli';

const TEMPORALS: Temporal[] = ['mean', 'min', 'max'];
const LAYERS: LayerChoice[] = ['sum', 'min', 'max', 'first', 'second', 'q1', 'q2', 'q3', 'penultimate', 'last'];

export interface DesignedTest {
  plan: NonNullable<AuditContext['plan']['speat']>['tests'][number];
  design: SpeatDesign;
  A: Clip[];
  B: Clip[];
  summary: SpeatTestDesign;
}

function usable(ctx: AuditContext, datasetId: string): Clip[] {
  return listClips(ctx.db, datasetId).filter((c) => isUsable(c) && c.sha256 !== null);
}

/** The stimuli of every test, chosen reproducibly from the plan's seed. SER reuses them. */
export function designTests(ctx: AuditContext): DesignedTest[] {
  const speat = ctx.plan.speat!;
  const attr = attributeSets(usable(ctx, speat.attributeDataset), speat.attributePerSpeaker);
  if (attr.A.length < 2) {
    throw new UserError(
      `the attribute dataset gives ${attr.A.length} pleasant clip(s): it needs valence ratings and speakers with at least ${2 * speat.attributePerSpeaker} rated clips each`,
      'plan.speat.attributeDataset',
    );
  }
  for (const s of attr.skipped) ctx.warn(`Attribute speaker ${s.speaker} was left out: ${s.reason}.`);
  return speat.tests.map((t) => {
    if (t.x.label !== t.y.label) throw new UserError(`test ${t.id}: X and Y must be values of the same label (got ${t.x.label} and ${t.y.label})`, `plan.speat.tests.${t.id}`);
    let design: SpeatDesign;
    try {
      design = designSpeatTest(usable(ctx, t.targetDataset), {
        label: t.x.label,
        x: t.x.value,
        y: t.y.value,
        matchOn: t.matchOn,
        ...(t.perCell !== undefined ? { perCell: t.perCell } : {}),
        ...(t.maxPerGroup !== undefined ? { maxPerGroup: t.maxPerGroup } : {}),
        seed: unitSeed(ctx.seed, `design/${t.id}`),
      });
    } catch (err) {
      throw new UserError(`test ${t.id}: ${(err as Error).message}`, `plan.speat.tests.${t.id}`);
    }
    if (design.X.length < 2) throw new UserError(`test ${t.id}: fewer than 2 stimuli per group (${t.x.value}: ${design.X.length}); check the group values`, `plan.speat.tests.${t.id}`);
    for (const w of design.warnings) ctx.warn(`SpEAT test "${t.name}": ${w}.`);
    const dc = design.durationCheck;
    const summary: SpeatTestDesign = {
      id: t.id,
      name: t.name,
      x: { label: t.x.label, value: t.x.value, n: design.X.length },
      y: { label: t.y.label, value: t.y.value, n: design.Y.length },
      attributes: { datasetId: speat.attributeDataset, perSpeaker: speat.attributePerSpeaker, nA: attr.A.length, nB: attr.B.length },
      humanIatD: t.preset ? SPEAT_PRESETS[t.preset].humanIatD : null,
      matching: t.matchOn.length ? { on: t.matchOn, perCell: t.perCell ?? null } : null,
      confounds: dc
        ? {
            duration: {
              test: dc.test,
              unit: dc.unit,
              units: dc.units,
              t: dc.t,
              df: dc.df,
              p: dc.pValue,
              meanX: mean(design.X.map((c) => c.durationS ?? 0)),
              meanY: mean(design.Y.map((c) => c.durationS ?? 0)),
            },
          }
        : {},
      stimuli: { x: design.X.map((c) => c.id), y: design.Y.map((c) => c.id), a: attr.A.map((c) => c.id), b: attr.B.map((c) => c.id) },
      durationsS: { x: design.X.map((c) => c.durationS), y: design.Y.map((c) => c.durationS) },
    };
    if (dc && dc.pValue < 0.05) {
      // Plain words and the shared number format (the report's appendix names the t statistic).
      ctx.warn(`SpEAT test "${t.name}": the recordings of ${t.x.value} and ${t.y.value} differ in length (${pText(dc.pValue)}, ${durationTestName(dc)}); length may confound the result.`);
    }
    return { plan: t, design, A: attr.A, B: attr.B, summary };
  });
}

function mean(v: number[]): number {
  return v.reduce((a, b) => a + b, 0) / Math.max(1, v.length);
}

/**
 * The speaker a target clip counts as (METHODS.md § The unit of inference): its speaker id,
 * or, for a clip without one, a speaker of its own (an id no imported speaker can have).
 */
function speakerOf(c: Clip): string {
  return c.speaker ? `speaker:${c.speaker}` : `clip:${c.id}`;
}

/**
 * The targets' speakers as "s1", "s2", … in order of first appearance (X, then Y): what the
 * speaker-level test needs to be rerun from the report (`stats speat --associations`), which
 * must not carry the dataset's own speaker ids. Numbering by first appearance keeps the
 * rerun's sampled splits the audit's (speat-speakers.ts numbers speakers the same way).
 */
export function speakerPseudonyms(speakersX: readonly string[], speakersY: readonly string[]): { speakersX: string[]; speakersY: string[] } {
  const ids = new Map<string, string>();
  const name = (id: string) => {
    let p = ids.get(id);
    if (p === undefined) {
      p = `s${ids.size + 1}`;
      ids.set(id, p);
    }
    return p;
  };
  const x = speakersX.map(name);
  return { speakersX: x, speakersY: speakersY.map(name) };
}

/**
 * Embedding vectors for one aggregation, with the target stimuli's speakers; pairs where
 * either side lacks an embedding are dropped together.
 */
export function stimulusVectors(
  t: DesignedTest,
  emb: Map<string, StoredEmbedding>,
  temporal: Temporal,
  layer: LayerChoice,
): { X: Float64Array[]; Y: Float64Array[]; A: Float64Array[]; B: Float64Array[]; speakersX: string[]; speakersY: string[]; dropped: number } {
  const vec = (c: Clip) => {
    const e = emb.get(c.sha256!);
    return e ? aggregate(e, temporal, layer) : null;
  };
  const X: Float64Array[] = [];
  const Y: Float64Array[] = [];
  const speakersX: string[] = [];
  const speakersY: string[] = [];
  let dropped = 0;
  for (let i = 0; i < t.design.X.length; i += 1) {
    const x = vec(t.design.X[i]!);
    const y = vec(t.design.Y[i]!);
    if (x && y) {
      X.push(x);
      Y.push(y);
      speakersX.push(speakerOf(t.design.X[i]!));
      speakersY.push(speakerOf(t.design.Y[i]!));
    } else dropped += 1;
  }
  const A = t.A.map(vec).filter((v): v is Float64Array => v !== null);
  const B = t.B.map(vec).filter((v): v is Float64Array => v !== null);
  return { X, Y, A, B, speakersX, speakersY, dropped };
}

export function embeddingsFor(ctx: AuditContext, m: ModelManifest, tests: DesignedTest[]): Map<string, StoredEmbedding> {
  const clips = new Map<string, Clip>();
  for (const t of tests) for (const c of [...t.design.X, ...t.design.Y, ...t.A, ...t.B]) if (!clips.has(c.sha256!)) clips.set(c.sha256!, c);
  const nonFinite: string[] = [];
  const emb = loadEmbeddings(ctx.db, m.id, m.settingsKey, [...clips.keys()], nonFinite);
  if (nonFinite.length > 0) {
    const names = nonFinite.slice(0, 5).map((sha) => quoteUserText(basename(clips.get(sha)!.path), 100));
    ctx.warn(`Model ${m.name}: the stored embeddings of ${nonFinite.length} recording(s) hold values that are not numbers (NaN or infinite) and were left out: ${names.join(', ')}${nonFinite.length > 5 ? ` and ${nonFinite.length - 5} more` : ''}.`);
  }
  return emb;
}

type UnitResult = Omit<SpeatResult, 'pAdjusted' | 'pTwoSidedAdjusted'>;

/** Stream offset of the bootstrap SE at the compared number of stimuli (apart from the plan's sizes). */
const COMPARED_SIZE_STREAM = 500;

/** A label's value for a clip: its group labels first, then free metadata (case-insensitive name). */
function labelOf(c: Clip, names: string[]): string | undefined {
  for (const source of [c.groups, c.metadata]) {
    for (const [k, v] of Object.entries(source)) if (names.includes(k.toLowerCase()) && v !== '') return v;
  }
  return undefined;
}

/** The SpEAT paper's confound checks on the valence-rated attribute speech. */
export function attributeChecks(ctx: AuditContext): NonNullable<SpeatSection['attributeChecks']> {
  const rated = usable(ctx, ctx.plan.speat!.attributeDataset).filter((c) => c.valence !== null);
  const notes: string[] = [];
  let valenceByGender: NonNullable<SpeatSection['attributeChecks']>['valenceByGender'] = null;
  const byGender = new Map<string, number[]>();
  for (const c of rated) {
    const g = labelOf(c, ['gender', 'sex']);
    if (g !== undefined) byGender.set(g, [...(byGender.get(g) ?? []), c.valence!]);
  }
  const two = [...byGender.entries()].filter(([, v]) => v.length >= 2).sort((a, b) => b[1].length - a[1].length || (a[0] < b[0] ? -1 : 1)).slice(0, 2);
  if (two.length === 2) {
    two.sort((a, b) => (a[0] < b[0] ? -1 : 1));
    const r = welchTTest(two[0]![1], two[1]![1]);
    const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
    valenceByGender = { groups: [two[0]![0], two[1]![0]], t: r.t, df: r.df, p: r.pValue, means: [mean(two[0]![1]), mean(two[1]![1])], n: [two[0]![1].length, two[1]![1].length] };
    if (byGender.size > 2) notes.push(`Valence by gender compares the two largest groups (${two.map(([g]) => g).join(', ')}); ${byGender.size - 2} other value(s) left out.`);
  } else notes.push('Valence by speaker gender was not tested: the attribute dataset has no gender label with two groups of at least two rated clips.');
  let valenceByAge: NonNullable<SpeatSection['attributeChecks']>['valenceByAge'] = null;
  const aged = rated.map((c) => ({ age: Number(labelOf(c, ['age'])), valence: c.valence! })).filter((x) => Number.isFinite(x.age));
  if (aged.length >= 3 && new Set(aged.map((x) => x.age)).size >= 2) {
    const r = olsRegression(aged.map((x) => x.age), aged.map((x) => x.valence));
    valenceByAge = { slope: r.slope, t: r.t, df: r.df, p: r.pValue, n: r.n };
  } else notes.push('Valence was not regressed on speaker age: the attribute dataset has no numeric age for at least three rated clips.');
  return { valenceByGender, valenceByAge, notes };
}

/** Two-way ANOVA of d by model family × test; needs replication (two models of a family). */
export function familyAnova(results: UnitResult[], families: Map<string, string>): NonNullable<SpeatSection['familyAnova']> {
  const fam = results.map((r) => families.get(r.modelId) ?? 'unknown');
  const tests = results.map((r) => r.testId);
  if (new Set(fam).size < 2 || new Set(tests).size < 2) return { rows: null, note: 'The ANOVA of d by model family and test needs at least two model families and two tests.' };
  const rows = twoWayAnova(results.map((r) => r.effectSize), fam, tests, { a: 'model family', b: 'test' });
  const residual = rows.find((r) => r.source === 'Residual')!;
  if (residual.df < 1) return { rows: null, note: 'The ANOVA of d by model family and test needs replication: at least two models of one family.' };
  return { rows: rows.map((r) => ({ ...r, f: Number.isFinite(r.f) ? r.f : null, pValue: Number.isFinite(r.pValue) ? r.pValue : null })), note: null };
}

/** The share of a SpEAT unit's progress bar given to its permutation test. */
const PERMUTATION_SHARE = 0.6;

export async function runSpeat(ctx: AuditContext, tests: DesignedTest[]): Promise<SpeatSection> {
  const speat = ctx.plan.speat!;
  const results: UnitResult[] = [];
  const grid: NonNullable<SpeatSection['grid']> = [];
  const total = ctx.models.size * tests.length;
  // The MDE is stated at the level a verdict needs: alpha over the audit's tests (Bonferroni,
  // which is also Holm's and Benjamini–Hochberg's strictest step).
  const mdeAlpha = speat.alpha / Math.max(1, total);
  let done = 0;
  for (const [ref, m] of ctx.models) {
    const emb = embeddingsFor(ctx, m, tests);
    for (const t of tests) {
      ctx.task.throwIfCancelled();
      const key = `speat/${m.id}/${t.plan.id}/${speat.temporal}/${speat.layer}`;
      const seed = unitSeed(ctx.seed, key);
      // Outside the unit: a resumed run must repeat the warning, not lose it with the stored unit.
      const v = stimulusVectors(t, emb, speat.temporal, speat.layer);
      if (v.dropped > 0) ctx.warn(`SpEAT test "${t.plan.name}", model ${m.name}: ${v.dropped} stimulus pair(s) had no embedding and were left out.`);
      const unit = await ctx.units.once<UnitResult>(key, 'speat', () => {
        if (v.X.length < 2 || v.A.length < 1 || v.B.length < 1) throw new UserError(`test ${t.plan.id} with model ${ref}: too few embedded stimuli`);
        const s = speatAssociations({ X: v.X, Y: v.Y, A: v.A, B: v.B });
        // The label already counts comparisons, so no unit is appended to it; the bar moves within the unit.
        const step = (what: string, fraction: number) =>
          ctx.task.progress('SpEAT', done, total, { label: `SpEAT: comparison ${done + 1} of ${total}, ${what}`, unit: '', stageFraction: (done + fraction) / total });
        // Speakers with several clips make the speaker the unit: the verdict's p, the bootstrap and the MDE move whole speakers.
        const speakers = { X: v.speakersX, Y: v.speakersY };
        const r = speatFromAssociations(s.X, s.Y, {
          permutations: speat.permutations,
          seed,
          speakers,
          // The permutations are most of a unit's time; bootstrap and power share the rest.
          onProgress: (f) => step(`permutations ${Math.floor(f * 100)}%`, f * PERMUTATION_SHARE),
        });
        step('bootstrap standard errors and power', PERMUTATION_SHARE);
        const bySpeaker = r.unit === 'speaker';
        const n = s.X.length;
        // Sizes are stimuli per group, or speakers per group when speakers are the unit.
        const largest = bySpeaker ? Math.min(r.speakers!.onlyX + r.speakers!.both, r.speakers!.onlyY + r.speakers!.both) : n;
        const sizes = speat.sampleSizes.filter((k) => k <= largest);
        const bootstrap: BootstrapOptions = { resamples: speat.bootstrap, seed, design: bySpeaker ? { kind: 'speakers', speakersX: v.speakersX, speakersY: v.speakersY } : { kind: 'paired' } };
        // bootstrapSpeatSE's points, the one at the stimuli compared keeping its replicates for the CI.
        const plan = speat.bootstrap > 0 ? new BootstrapPlan(s.X, s.Y, bootstrap) : null;
        const se = plan ? sizes.map((k, si) => plan.point(k, si, !bySpeaker && k === n)) : [];
        // The SE behind a whisker is the one at the stimuli compared, not at the paper's 10; its
        // resamples also give d's percentile 95% CI (the same draws, so no extra resampling).
        const compared = !plan
          ? null
          : bySpeaker
            ? plan.comparedPoint(COMPARED_SIZE_STREAM, true)
            : (se.find((p) => p.size === n) ?? new BootstrapPlan(s.X, s.Y, { ...bootstrap, sizeIndexOffset: COMPARED_SIZE_STREAM }).point(n, 0, true));
        const atCompared = compared ? compared.standardError : null;
        const ci = compared?.ci95 && compared.ci95.every(Number.isFinite) ? compared.ci95 : null;
        const mde = speatMde(s.X, s.Y, { alpha: mdeAlpha, permutations: speat.permutations, paired: true, seed, ...(bySpeaker ? { speakers } : {}) });
        return {
          testId: t.plan.id,
          modelId: m.id,
          temporal: speat.temporal,
          layer: speat.layer,
          effectSize: r.effectSize,
          pValue: r.pValue,
          pTwoSided: r.pTwoSided,
          favoured: r.favoured,
          exact: r.exact,
          permutations: r.permutations,
          unit: r.unit,
          ...(r.speakers ? { speakers: r.speakers } : {}),
          ...(r.clipLevel ? { clipLevel: r.clipLevel } : {}),
          standardErrorAtCompared: atCompared !== null && Number.isFinite(atCompared) ? atCompared : null,
          ci95AtCompared: ci,
          mde: { d: mde.d, alpha: mde.alpha, power: mde.power, stimuli: mde.stimuli, method: mde.method, unit: mde.unit, ...(mde.speakers ? { speakers: mde.speakers } : {}) },
          standardErrors: se.map((p) => ({ size: p.size, standardError: p.standardError })),
          associations: { X: Array.from(s.X), Y: Array.from(s.Y), ...(bySpeaker ? speakerPseudonyms(v.speakersX, v.speakersY) : {}) },
        };
      });
      results.push(unit);
      if (speat.grid) {
        const cells = await ctx.units.once(`speat-grid/${m.id}/${t.plan.id}`, 'speat', () =>
          TEMPORALS.flatMap((temporal) =>
            LAYERS.map((layer) => {
              const v = stimulusVectors(t, emb, temporal, layer);
              const s = speatAssociations({ X: v.X, Y: v.Y, A: v.A, B: v.B });
              return { testId: t.plan.id, modelId: m.id, temporal, layer, effectSize: speatEffectSize(s.X, s.Y) };
            }),
          ),
        );
        grid.push(...cells);
      }
      done += 1;
      ctx.task.progress('SpEAT', done, total);
    }
  }
  const checks = attributeChecks(ctx);
  const vg = checks.valenceByGender;
  if (vg && vg.p < 0.05) {
    ctx.warn(`Pleasantness ratings of the rated speech differ by speaker gender (${vg.groups[0]} ${fmt(vg.means[0])} vs ${vg.groups[1]} ${fmt(vg.means[1])} on average; ${pText(vg.p)}, Welch t-test): the pleasant and unpleasant recordings may partly stand for gender.`);
  }
  const va = checks.valenceByAge;
  if (va && va.p < 0.05) ctx.warn(`Pleasantness ratings of the rated speech change with speaker age (${fmt(va.slope)} per year; ${pText(va.p)}, linear regression): the pleasant and unpleasant recordings may partly stand for age.`);
  const adjust = (ps: number[]) => ({ bonferroni: adjustPValues(ps, 'bonferroni'), holm: adjustPValues(ps, 'holm'), bh: adjustPValues(ps, 'bh') });
  const adj = adjust(results.map((r) => r.pValue));
  // The verdict's p (METHODS.md § Verdicts that hold): two-sided, adjusted over the audit.
  const adj2 = results.every((r) => r.pTwoSided !== undefined) ? adjust(results.map((r) => r.pTwoSided!)) : null;
  return {
    config: {
      permutations: speat.permutations,
      bootstrap: speat.bootstrap,
      sampleSizes: speat.sampleSizes,
      alpha: speat.alpha,
      correction: speat.correction,
      temporal: speat.temporal,
      layer: speat.layer,
    },
    tests: tests.map((t) => t.summary),
    results: results.map((r, i) => ({
      ...r,
      pAdjusted: { bonferroni: adj.bonferroni[i]!, holm: adj.holm[i]!, bh: adj.bh[i]! },
      ...(adj2 ? { pTwoSidedAdjusted: { bonferroni: adj2.bonferroni[i]!, holm: adj2.holm[i]!, bh: adj2.bh[i]! } } : {}),
    })),
    ...(speat.grid ? { grid } : {}),
    attributeChecks: checks,
    // The same clips and k the selection above used, so the record is that selection.
    attributeStimuli: attributeStimuliRecord(speat.attributeDataset, usable(ctx, speat.attributeDataset), speat.attributePerSpeaker),
    familyAnova: familyAnova(results, new Map([...ctx.models.values()].map((m) => [m.id, m.family]))),
  };
}
