/**
 * Every section table as data: raw values plus a display format per column. The PDF
 * formats them for reading (each quantity at its precision, src/shared/format.ts); the CSV exports keep
 * full precision. One definition, so the two can never disagree.
 */
import type { AuditResults, ModelSummary, WerPrimaryTest, WerSection } from '../../shared/results';
import { fmt, fmtCi, fmtCount, fmtD, fmtDeltaPp, fmtP, fmtRate, fmtRelative, pText } from '../../shared/format';
import { speatSeAtCompared, testLabel } from '../../shared/charts/speat';
import { CORRECTION_NAMES, magnitude, modelName, recogniserName } from './narrative';
import { plural, WER_TEST_SHORT, WER_VERDICT_MIN_SPEAKERS, werAlpha, werRateRatio, werVerdicts } from '../../shared/wer-verdict';
import { wassersteinPairs } from '../../shared/fdi-pairs';
import { speakersText, speatUnit } from '../../shared/verdicts';
import { agreementCell } from '../../shared/ser-agreement';
import { serComparisonCell } from '../../shared/verdicts';
import { durationCheckText } from '../../shared/duration-check';
import { werNormalisationTables } from './wer-normalisation-tables';
import { verificationTables } from './verification-tables';
import { fdiThresholdDecimals, fmtThreshold } from '../../shared/threshold-format';

export type Cell = string | number | boolean | null;
/** pct: a rate as a percentage; pp: a difference of rates in percentage points; rel: a relative change in percent (src/shared/format.ts). */
export type ColumnFormat = 'text' | 'int' | 'num' | 'signed' | 'p' | 'pct' | 'pp' | 'rel' | 'hash';

export interface Column {
  title: string;
  format: ColumnFormat;
  /** Relative width in the PDF. */
  width: number;
  /** An empty cell ('') below a filled one continues it: one PDF cell spanning the rows (layout.ts cellSpans). */
  spansRows?: boolean;
  /** For 'num': fixed decimals instead of the formatter's (thresholds, src/shared/threshold-format.ts). */
  decimals?: number;
}

export interface ReportTable {
  /** File stem for the CSV export, e.g. "speat-results". */
  id: string;
  section: 'speat' | 'ser' | 'wer' | 'fdi' | 'appendix';
  title: string;
  columns: Column[];
  rows: Cell[][];
}

const col = (title: string, format: ColumnFormat = 'text', width = 1): Column => ({ title, format, width });

export function formatCell(value: Cell, format: ColumnFormat, decimals?: number): string {
  if (value === null || value === undefined) return '–';
  if (decimals !== undefined && typeof value === 'number') return fmtThreshold(value, decimals);
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'string') return value;
  switch (format) {
    case 'int':
      return fmtCount(value);
    case 'num':
      return fmt(value);
    case 'signed':
      return fmtD(value);
    case 'p':
      return fmtP(value);
    case 'pct':
      return fmtRate(value);
    case 'pp':
      return fmtDeltaPp(value);
    case 'rel':
      return fmtRelative(value);
    default:
      return String(value);
  }
}

function groupFacts(results: AuditResults, label: string, value: string, datasetId?: string) {
  const ds = datasetId ? results.datasets.filter((d) => d.id === datasetId) : results.datasets;
  for (const d of ds) {
    const g = d.groups.find((x) => x.label === label && x.value === value) ?? d.groups.find((x) => x.value === value);
    if (g) return g;
  }
  return undefined;
}

/** A model's execution provider as the report prints it, with a GPU that failed mid-run named. */
export function providerText(m: Pick<ModelSummary, 'provider' | 'threads' | 'providerSwitchedFrom'>): string {
  const base = `${m.provider} (${m.threads} threads)`;
  return m.providerSwitchedFrom ? `${base}; ${m.providerSwitchedFrom} failed during embedding and the clips after it ran on the CPU` : base;
}

export function modelsTable(results: AuditResults, section: ReportTable['section'], ids?: string[]): ReportTable {
  const models = ids ? results.models.filter((m) => ids.includes(m.id)) : results.models;
  return {
    id: `${section}-models`,
    section,
    title: 'Models',
    columns: [col('Model', 'text', 1.6), col('Family', 'text', 1), col('SHA-256', 'hash', 2.6), col('Layers', 'int', 0.6), col('Execution provider', 'text', 0.9)],
    rows: models.map((m) => [m.name, m.family, m.sha256, m.layers, providerText(m)]),
  };
}

export function speatTables(results: AuditResults): ReportTable[] {
  const s = results.speat;
  if (!s) return [];
  const target = results.datasets.find((d) => d.role === 'target');
  const data: ReportTable = {
    id: 'speat-data',
    section: 'speat',
    title: 'Data: target groups per test (Compared: clips compared after matching and caps, as the duration check uses; In dataset, Speakers and Mean duration (s): every usable clip of the group)',
    // A test's name, matching and duration check hold for both its rows: one cell spanning them.
    columns: [{ ...col('Test', 'text', 1.4), spansRows: true }, col('Group', 'text', 1), col('Compared', 'int', 0.8), col('In dataset', 'int', 0.8), col('Speakers', 'int', 0.8), col('Mean duration (s)', 'num', 0.8), { ...col('Matching', 'text', 1.2), spansRows: true }, { ...col('Duration check', 'text', 1.6), spansRows: true }],
    rows: s.tests.flatMap((t) =>
      [t.x, t.y].map((g, i) => {
        const f = groupFacts(results, g.label, g.value, target?.id);
        const dur = t.confounds.duration;
        return [
          i === 0 ? t.name : '',
          `${g.label} = ${g.value}`,
          g.n,
          f?.clips ?? null,
          f?.speakers ?? null,
          f?.meanDurationS ?? null,
          i === 0 ? (t.matching ? `on ${t.matching.on.join(', ')}${t.matching.perCell !== null ? `, ${t.matching.perCell} per cell` : ''}` : 'none') : '',
          i === 0 && dur ? durationCheckText(dur) : i === 0 ? 'not run' : '',
        ];
      }),
    ),
  };
  const attributes: ReportTable = {
    id: 'speat-attributes',
    section: 'speat',
    title: 'Data: attribute stimuli (pleasant A, unpleasant B), balanced per speaker by design: each attribute speaker gives its highest-rated clips to A and as many of its lowest-rated to B',
    columns: [col('Test', 'text', 1.6), col('Attribute dataset', 'text', 1.6), col('Per speaker', 'int', 0.8), col('A', 'int', 0.5), col('B', 'int', 0.5)],
    rows: s.tests.map((t) => [t.name, results.datasets.find((d) => d.id === t.attributes.datasetId)?.name ?? t.attributes.datasetId, t.attributes.perSpeaker, t.attributes.nA, t.attributes.nB]),
  };
  const extra: ReportTable[] = [];
  const checks = s.attributeChecks;
  if (checks) {
    const rows: (string | number | null)[][] = [];
    const g = checks.valenceByGender;
    if (g) rows.push([`Valence by speaker gender (Welch t-test)`, `${g.groups[0]} ${fmt(g.means[0])} (n ${g.n[0]}) vs ${g.groups[1]} ${fmt(g.means[1])} (n ${g.n[1]})`, `t(${fmt(g.df)}) = ${fmt(g.t)}`, g.p]);
    const a = checks.valenceByAge;
    if (a) rows.push([`Valence on speaker age (OLS slope)`, `slope ${fmt(a.slope)} per year (n ${a.n})`, `t(${a.df}) = ${fmt(a.t)}`, a.p]);
    for (const note of checks.notes) rows.push([note, '', '', null]);
    extra.push({
      id: 'speat-attribute-checks',
      section: 'speat',
      title: 'Confound checks on the attribute speech',
      columns: [col('Check', 'text', 2.2), col('Groups or estimate', 'text', 2.2), col('Statistic', 'text', 1), col('p', 'p', 0.6)],
      rows,
    });
  }
  const anova = s.familyAnova;
  if (anova) {
    extra.push({
      id: 'speat-family-anova',
      section: 'speat',
      title: 'Two-way ANOVA of d by model family and test',
      columns: [col('Source', 'text', 1.6), col('Sum of squares', 'num', 1), col('df', 'int', 0.5), col('F', 'num', 0.7), col('p', 'p', 0.7)],
      rows: anova.rows ? anova.rows.map((r) => [r.source, r.sumSq, r.df, r.f, r.pValue]) : [[anova.note ?? 'not computed', null, null, null, null]],
    });
  }
  const bySpeaker = s.results.some((r) => speatUnit(r) === 'speaker');
  const res: ReportTable = {
    id: 'speat-results',
    section: 'speat',
    title:
      `Results (temporal ${s.config.temporal}, layer ${s.config.layer}): the verdict uses the two-sided p adjusted (${CORRECTION_NAMES[s.config.correction]}); the one-sided p takes the SpEAT paper's direction (H1: d > 0), never behind a verdict; ` +
      (bySpeaker
        ? 'both are computed over the unit named (speaker: each speaker\'s recordings move between the groups together; clip: recordings treated as independent, as in the paper); SE and the 95% CI of d (bootstrap percentiles) at the stimuli compared, resampling speakers with all their recordings when the unit is the speaker'
        : 'unit: clip, recordings treated as independent (no speaker has two recordings), as in the paper; SE and the 95% CI of d (bootstrap percentiles) at the stimuli compared, resampling matched pairs'),
    columns: [col('Test', 'text', 1.0), col('Model', 'text', 1.3), col('d', 'signed', 0.55), col('d 95% CI', 'text', 0.9), col('Size', 'text', 0.85), col('Unit', 'text', 0.7), col('p one-sided', 'p', 0.62), col(`p one-sided ${CORRECTION_NAMES[s.config.correction]}`, 'p', 0.66), col('p two-sided', 'p', 0.62), col(`p two-sided ${CORRECTION_NAMES[s.config.correction]}`, 'p', 0.66), col('Permutations', 'text', 1.2), col('SE (n)', 'text', 0.8)],
    rows: s.results.map((r) => {
      const se = speatSeAtCompared(r);
      return [
        testLabel(results, r.testId),
        modelName(results, r.modelId),
        r.effectSize,
        r.ci95AtCompared ? fmtCi(r.ci95AtCompared) : null,
        magnitude(r.effectSize),
        speatUnit(r),
        r.pValue,
        r.pAdjusted[s.config.correction],
        r.pTwoSided ?? null,
        r.pTwoSidedAdjusted?.[s.config.correction] ?? null,
        `${r.permutations} ${r.exact ? 'exact' : 'sampled'}`,
        se ? `${fmt(se.standardError)} (${se.size})` : null,
      ];
    }),
  };
  const out = [data, attributes, ...extra, modelsTable(results, 'speat', [...new Set(s.results.map((r) => r.modelId))]), res];
  // The paper's test beside the speaker-level one (METHODS.md § The unit of inference): in the tables, never behind a verdict.
  const paper = s.results.filter((r) => r.clipLevel);
  if (paper.length > 0) {
    out.push({
      id: 'speat-paper-test',
      section: 'speat',
      title: "The SpEAT paper's test (clips as independent), for comparison only: it treats recordings of one speaker as independent, so its p can be far too small when speakers have several recordings; no verdict uses it",
      columns: [col('Test', 'text', 1.1), col('Model', 'text', 1.5), col('Speakers', 'text', 1.6), col('p one-sided', 'p', 0.7), col('p two-sided', 'p', 0.7), col('Permutations', 'text', 1.1)],
      rows: paper.map((r) => [
        testLabel(results, r.testId),
        modelName(results, r.modelId),
        r.speakers ? speakersText(r.speakers) : null,
        r.clipLevel!.pValue,
        r.clipLevel!.pTwoSided,
        `${r.clipLevel!.permutations} ${r.clipLevel!.exact ? 'exact' : 'sampled'}`,
      ]),
    });
  }
  if (s.grid && s.grid.length > 0) {
    const keys = [...new Set(s.grid.map((g) => `${g.testId}|${g.modelId}`))];
    const combos = [...new Set(s.grid.map((g) => `${g.temporal}|${g.layer}`))];
    out.push({
      id: 'speat-grid',
      section: 'speat',
      title: `Aggregation grid (Table 2 of the SpEAT paper): d per temporal × layer aggregation (${results.models.map((m, i) => `M${i + 1} = ${m.name}`).join('; ')})`,
      columns: [col('Temporal', 'text', 0.8), col('Layer', 'text', 1), ...keys.map((k) => {
        const [testId, modelId] = k.split('|') as [string, string];
        const mi = results.models.findIndex((m) => m.id === modelId);
        return col(`${testLabel(results, testId)} M${mi + 1}`, 'signed', 1);
      })],
      rows: combos.map((c) => {
        const [temporal, layer] = c.split('|') as [string, string];
        return [temporal, layer, ...keys.map((k) => s.grid!.find((g) => `${g.testId}|${g.modelId}` === k && g.temporal === temporal && g.layer === layer)?.effectSize ?? null)];
      }),
    });
  }
  return out;
}

export function serTables(results: AuditResults): ReportTable[] {
  const ser = results.ser;
  if (!ser) return [];
  return [
    {
      id: 'ser-data',
      section: 'ser',
      title: 'Data: valence-rated clips per split',
      columns: [col('Model', 'text', 2), col('Train', 'int'), col('Validation', 'int'), col('Test', 'int')],
      rows: ser.models.map((m) => [modelName(results, m.modelId), m.trainClips, m.validationClips, m.testClips]),
    },
    modelsTable(results, 'ser', ser.models.map((m) => m.modelId)),
    {
      id: 'ser-regressors',
      section: 'ser',
      title: 'Valence regressors (R² and RMSE, in valence-rating units, on the test split; the checkpoint kept is the one with the lowest validation loss)',
      columns: [col('Model', 'text', 2), col('Learning rate', 'text'), col('Steps run', 'int'), col('Checkpoint kept (step)', 'int'), col('R²', 'num'), col('RMSE (valence)', 'num'), col('Validation loss', 'num'), col('Selected', 'text')],
      rows: ser.models.flatMap((m) => m.regressors.map((r) => [modelName(results, m.modelId), String(r.learningRate), r.steps, r.bestStep ?? null, r.r2, r.rmse, r.validationLoss, r.selected])),
    },
    {
      id: 'ser-results',
      section: 'ser',
      title: "Results: SpEAT d against the emotion model's Cohen's d, per regressor and for all regressors' predictions pooled (Cohen's d and the means over recordings, as in the SpEAT paper)",
      columns: [col('Test', 'text', 1.2), col('Model', 'text', 1.6), col('Regressor', 'text', 0.9), col('SpEAT d', 'signed', 0.7), col("Cohen's d", 'signed', 0.7), col('Mean X', 'num', 0.6), col('Mean Y', 'num', 0.6), col('Agree', 'text', 0.5)],
      rows: ser.models.flatMap((m) => {
        const sel = m.regressors.find((r) => r.selected)?.learningRate;
        return [
          ...m.tests.map((t) => [testLabel(results, t.testId), modelName(results, m.modelId), `lr ${t.learningRate}${t.learningRate === sel ? ' (selected)' : ''}`, t.speatD, t.cohensD, t.meanX, t.meanY, agreementCell(m, t.agree)] as Cell[]),
          ...(m.pooled ?? []).map((t) => [testLabel(results, t.testId), modelName(results, m.modelId), 'all pooled', t.speatD, t.cohensD, null, null, agreementCell(m, t.agree)] as Cell[]),
        ];
      }),
    },
    {
      id: 'ser-comparisons',
      section: 'ser',
      title: `Does predicted valence differ between the groups? The selected regressor's predictions compared on speaker means (Welch t-test, unit named per row; recordings only where speakers are unknown), p adjusted over the ${ser.config.comparison?.tests ?? 0} verdicts`,
      columns: [col('Test', 'text', 1), col('Model', 'text', 1.6), col('Unit', 'text', 0.9), col('Mean X', 'num', 0.5), col('Mean Y', 'num', 0.5), col('X − Y', 'signed', 0.55), col('95% CI', 'text', 1), col('p', 'p', 0.5), col('p adj.', 'p', 0.55), col('MDE |X − Y| (80% power)', 'text', 0.8), col('Verdict', 'text', 1.3)],
      rows: ser.models.flatMap((m) => {
        const lr = m.regressors.find((r) => r.selected)?.learningRate;
        return m.tests
          .filter((t) => t.learningRate === lr && t.comparison !== undefined)
          .map((t) => {
            const c = t.comparison;
            const verdict = serComparisonCell(m, c, ser);
            if (!c) return [testLabel(results, t.testId), modelName(results, m.modelId), 'fewer than 2 speakers in a group', null, null, null, null, null, null, null, verdict] as Cell[];
            const unit = `${c.units.x} / ${c.units.y} ${c.unit === 'speaker' ? 'speakers' : 'recordings (speakers unknown)'}`;
            const mde = c.mde ? (c.mde.difference === null ? 'nothing' : `${fmt(c.mde.difference)} (d ${fmt(c.mde.d)})`) : null;
            return [testLabel(results, t.testId), modelName(results, m.modelId), unit, c.meanX, c.meanY, c.difference, fmtCi(c.ci95), c.pValue, c.pAdjusted ?? null, mde, verdict] as Cell[];
          });
      }),
    },
    {
      id: 'ser-agreement',
      section: 'ser',
      title: 'Sign agreement with SpEAT over (test × model) pairs, with the one-sided binomial p against chance (½)',
      columns: [col('Counted with', 'text', 2.4), col('Agree', 'int', 0.6), col('Pairs', 'int', 0.6), col('Binomial p', 'p', 0.8)],
      rows: [
        ['the regressor selected on validation (one per model)', ser.agreement.agree, ser.agreement.total, ser.agreement.pValue ?? null],
        ...(ser.agreementPooled ? [['all regressors pooled (the SpEAT paper)', ser.agreementPooled.agree, ser.agreementPooled.total, ser.agreementPooled.pValue ?? null] as Cell[]] : []),
      ],
    },
  ];
}

export function werTables(results: AuditResults): ReportTable[] {
  const wer = results.wer;
  if (!wer) return [];
  const groups = Object.keys(wer.groups).sort((a, b) => a.localeCompare(b, 'en'));
  const verdicts = werVerdicts(wer);
  // Every pair: each row names its two groups.
  const comparisonName = (c: WerSection['comparisons'][number]) => (wer.config.referenceGroup !== null ? c.group : `${c.group} vs ${c.referenceGroup}`);
  const out: ReportTable[] = [
    {
      id: 'wer-data',
      section: 'wer',
      title: `Data: ${results.datasets.find((d) => d.id === wer.datasetId)?.name ?? wer.datasetId}, grouped by ${wer.config.groupBy.join(' × ')}`,
      columns: [col('Group', 'text', 1.4), col('Utterances', 'int'), col('Speakers', 'int'), col('Reference words', 'int'), col('Total duration (s)', 'num'), col('Mean duration (s)', 'num')],
      rows: groups.map((g) => {
        const r = wer.groups[g]!;
        const f = groupFacts(results, wer.config.groupBy[0] ?? '', g, wer.datasetId);
        return [g, r.utterances, r.speakers, r.referenceWords, f?.totalDurationS ?? null, f?.meanDurationS ?? null];
      }),
    },
  ];
  {
    const r = wer.config.recogniser;
    out.push({
      id: 'wer-models',
      section: 'wer',
      title: 'Speech recogniser',
      columns: [col('Hypotheses', 'text', 0.9), col('Recogniser', 'text', 1.4), col('Version', 'text', 1.1), col('Settings', 'text', 2.2)],
      rows: [[
        wer.config.hypotheses === 'model' ? 'transcribed here' : 'imported',
        r ? r.name : recogniserName(wer),
        r ? r.version : null,
        r ? r.settings : wer.config.asrLanguage ? `language ${wer.config.asrLanguage}, ${wer.config.asrTask ?? 'transcribe'}` : null,
      ]],
    });
  }
  out.push(
    {
      id: 'wer-groups',
      section: 'wer',
      title: 'Results per group',
      columns: [col('Group', 'text', 1.3), col('WER', 'pct', 0.7), col('95% CI low', 'pct', 0.8), col('95% CI high', 'pct', 0.8), col('CER', 'pct', 0.7), col('S', 'int', 0.5), col('D', 'int', 0.5), col('I', 'int', 0.5), col('MER', 'pct', 0.7), col('WIL', 'pct', 0.7)],
      rows: groups.map((g) => {
        const r = wer.groups[g]!;
        return [g, r.wer, r.ci95?.[0] ?? null, r.ci95?.[1] ?? null, r.cer, r.substitutions, r.deletions, r.insertions, r.mer, r.wil];
      }),
    },
    {
      id: 'wer-comparisons',
      section: 'wer',
      title: `${wer.config.referenceGroup !== null ? `Comparisons against ${wer.config.referenceGroup}` : `Every pair of groups compared (Holm over all ${wer.comparisons.length} pairs)`}: one verdict each, from the primary test's p (Holm-adjusted, α = ${werAlpha(wer)}); other tests are secondary${wer.comparisons.some((c) => c.mixed) ? "; the rate ratio's 95% CI is the mixed model's Wald interval" : ''}`,
      columns: [
        col(wer.config.referenceGroup !== null ? 'Group' : 'Groups', 'text', 1.2),
        col('Δ WER (pp)', 'pp', 0.7),
        col('Relative Δ', 'rel', 0.7),
        col('Rate ratio', 'num', 0.6),
        col('95% CI', 'text', 0.9),
        col('Primary test', 'text', 1.1),
        col('p', 'p', 0.6),
        col('p Holm', 'p', 0.6),
        col('Verdict', 'text', 1.1),
      ],
      rows: wer.comparisons.map((c, i) => {
        const v = verdicts[i]!;
        const rr = werRateRatio(c);
        return [comparisonName(c), c.absoluteDelta, c.relativeDelta, rr.value, rr.ci95 ? fmtCi(rr.ci95) : null, v.test ? WER_TEST_SHORT[v.test] : `none (< ${WER_VERDICT_MIN_SPEAKERS} speakers)`, v.pValue, v.pAdjusted, v.label];
      }),
    },
    {
      id: 'wer-secondary',
      section: 'wer',
      title: 'Secondary tests of the same comparisons: shown for transparency, never the basis of a verdict ("primary" marks the test used above)',
      columns: [
        col(wer.config.referenceGroup !== null ? 'Group' : 'Groups', 'text', 1.2),
        col('Mixed model p, secondary', 'p', 1),
        col('Poisson rate ratio', 'num', 0.8),
        col('Poisson χ²(1)', 'num', 0.8),
        col('Poisson p, secondary', 'p', 0.9),
        col(`${wer.config.by === 'speaker' ? 'Speaker' : 'Utterance'} permutation p, secondary`, 'p', 1.1),
      ],
      rows: wer.comparisons.map((c, i) => {
        const v = verdicts[i]!;
        const secondary = (test: WerPrimaryTest, p: number | null | undefined): Cell => (v.test === test ? 'primary' : p ?? null);
        return [
          comparisonName(c),
          // The mixed model's Wald p: secondary (the likelihood-ratio test, bootstrap-calibrated below 20 speakers per group, is primary).
          secondary('mixed-poisson', c.mixed?.pValue),
          c.poisson.rateRatio,
          c.poisson.devianceDrop,
          c.poisson.pValue,
          secondary(wer.config.by === 'speaker' ? 'speaker-permutation' : 'utterance-permutation', c.permutationPValue),
        ];
      }),
    },
  );
  if (wer.mixed) {
    out.push({
      id: 'wer-mixed-model',
      section: 'wer',
      title: 'Mixed-effects Poisson regression: per comparison and overall (errors ~ group + offset(log words) + (1 | speaker))',
      columns: [col('Term', 'text', 1.4), col('b', 'signed', 0.6), col('SE', 'num', 0.6), col('Wald p', 'p', 0.6), col('Rate ratio', 'num', 0.7), col('95% CI low', 'num', 0.7), col('95% CI high', 'num', 0.7), col('Statistic', 'text', 1.6)],
      rows: [
        ...wer.comparisons.map((c) => {
          // Where the verdict's test is the bootstrap-calibrated LR test, its statistic and how many replicates gave its p.
          const b = c.primary?.bootstrap;
          const lr = c.primary?.test === 'mixed-poisson-lr' && c.primary.statistic !== undefined ? `LR = ${fmt(c.primary.statistic)}; χ²(1) ${pText(c.primary.pValue)}` : '';
          const stat = b ? `LR = ${fmt(b.statistic)}; bootstrap ${pText(c.primary!.pValue)} from ${plural(b.replicates, 'replicate')} (at most ${b.maxReplicates})` : lr;
          return [`${c.group} vs ${c.referenceGroup}`, c.mixed?.coefficient ?? null, c.mixed?.standardError ?? null, c.mixed?.pValue ?? null, c.mixed?.rateRatio ?? null, c.mixed?.ci95[0] ?? null, c.mixed?.ci95[1] ?? null, stat] as Cell[];
        }),
        ['Speaker variance', null, null, null, null, null, null, `σ² = ${fmt(wer.mixed.speakerVariance)}${wer.mixed.singular ? ' (boundary)' : ''}, ${plural(wer.mixed.speakers, 'speaker')}`],
        [wer.overallPrimary === null ? 'Group factor (likelihood ratio; secondary, no verdict)' : 'Group factor (likelihood ratio)', null, null, wer.mixed.overall.pValue, null, null, null, `χ² = ${fmt(wer.mixed.overall.chi2)}, ${plural(wer.mixed.overall.df, 'degree')} of freedom; log-likelihood ${fmt(wer.mixed.logLikelihood)}`],
      ],
    });
  }
  if (wer.calibration && Object.keys(wer.calibration).length > 0) {
    out.push({
      id: 'wer-calibration',
      section: 'wer',
      title: `Confidence calibration of ${recogniserName(wer)} per group (accuracy = 1 − utterance WER, clipped to [0, 1]; ECE over 10 bins)`,
      columns: [col('Group', 'text', 1.4), col('Mean confidence', 'num', 0.9), col('Mean accuracy', 'num', 0.9), col('ECE', 'num', 0.7)],
      rows: Object.entries(wer.calibration).map(([g, c]) => [g, c.meanConfidence, c.accuracy, c.ece]),
    });
  }
  out.push(...werNormalisationTables(wer));
  return out;
}

export function fdiTables(results: AuditResults): ReportTable[] {
  const fdi = results.fdi;
  if (!fdi) return [];
  const out: ReportTable[] = [
    {
      id: 'fdi-data',
      section: 'fdi',
      title: 'Data: verification trials',
      columns: [col('Dataset', 'text', 2), col('Source', 'text'), col('Genuine trials', 'int'), col('Impostor trials', 'int'), col('Model', 'text', 1.6)],
      rows: [[fdi.datasetId === null ? `imported scores${fdi.file ? ` (${fdi.file})` : ''}` : (results.datasets.find((d) => d.id === fdi.datasetId)?.name ?? fdi.datasetId), fdi.config.source, fdi.trials.genuine, fdi.trials.impostor, modelName(results, fdi.config.modelId)]],
    },
  ];
  if (fdi.config.modelId) out.push(modelsTable(results, 'fdi', [fdi.config.modelId]));
  // One precision for every threshold the section names, enough to tell them apart (issue 34.2).
  const td = fdiThresholdDecimals(fdi);
  fdi.groupings.forEach((g, gi) => {
    const suffix = fdi.groupings.length > 1 ? `-${gi + 1}` : '';
    out.push(
      {
        id: `fdi-groups${suffix}`,
        section: 'fdi',
        title: `Per group at threshold ${fmtThreshold(g.threshold, td)} (${g.groupBy.join(' × ')})`,
        columns: [col('Group', 'text', 1.4), col('Trials', 'int'), col('FPR', 'num'), col('FNR', 'num'), col('Accuracy', 'num')],
        rows: Object.entries(g.groups).map(([name, m]) => [name, m.n, m.fpr, m.fnr, m.accuracy]),
      },
      {
        id: `fdi-wasserstein${suffix}`,
        section: 'fdi',
        title: `Wasserstein-1 distance between the score distributions of each pair of groups (${g.groupBy.join(' × ')}; 0 = identical, independent of the threshold)`,
        columns: [col('Group', 'text', 1.4), col('Compared with', 'text', 1.4), col('Wasserstein-1', 'num', 0.9)],
        rows: wassersteinPairs(g).map((x) => [x.a, x.b, x.distance]),
      },
      {
        id: `fdi-indices${suffix}`,
        section: 'fdi',
        title: `Disagreement indices and disparities (95% CI: ${g.fdiCi?.unit === 'speaker' ? 'bootstrap over speakers' : 'bootstrap over trials'})`,
        // The noise null's p beside the FDI it tests (issue 34.2: computed, so shown where FDI is); '–' where there is none (two groups).
        columns: [col('FDI', 'num'), col('95% CI low', 'num'), col('95% CI high', 'num'), col('Null p', 'p'), col('Value disagr.', 'num'), col('Rank disagr.', 'num'), col('FPR disp.', 'num'), col('FNR disp.', 'num'), col('Accuracy disp.', 'num'), col('Worst-group acc.', 'num')],
        rows: [[g.fdi, g.fdiCi95?.[0] ?? null, g.fdiCi95?.[1] ?? null, g.null?.pValue ?? null, g.valueDisagreement, g.rankDisagreement, g.disparities.fpr, g.disparities.fnr, g.disparities.accuracy, g.worstGroupAccuracy]],
      },
      {
        id: `fdi-alpha${suffix}`,
        section: 'fdi',
        title: 'Sensitivity of FDI to alpha (weight of value vs rank disagreement)',
        columns: g.alphaSensitivity.map((a) => col(`α = ${fmt(a.alpha)}`, 'num')),
        rows: [g.alphaSensitivity.map((a) => a.fdi)],
      },
      {
        id: `fdi-sweep${suffix}`,
        section: 'fdi',
        title: 'Threshold sweep',
        columns: [{ ...col('Threshold', 'num'), decimals: td }, col('FDI', 'num'), col('Value disagr.', 'num'), col('Rank disagr.', 'num'), col('FPR disp.', 'num'), col('FNR disp.', 'num'), col('Accuracy disp.', 'num')],
        rows: g.sweep.map((s) => [s.threshold, s.fdi, s.valueDisagreement, s.rankDisagreement, s.disparities.fpr, s.disparities.fnr, s.disparities.accuracy]),
      },
    );
    out.push(...verificationTables(g, suffix, td));
  });
  return out;
}

export function allTables(results: AuditResults): ReportTable[] {
  return [...speatTables(results), ...serTables(results), ...werTables(results), ...fdiTables(results)];
}
