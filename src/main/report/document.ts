/**
 * The report's content: cover, executive summary, one section each for SpEAT, SER
 * propagation, WER and FDI, limitations and a reproducibility appendix. A pure function
 * of the results and the signer's details; the caller adds the signature placeholder.
 */
import PDFDocument from 'pdfkit';
import { PAPER_DEFAULTS } from '../../shared/plan';
import type { AuditResults, FdiGrouping, RunDecoder, Section, SpeatResult } from '../../shared/results';
import { testLabel } from '../../shared/charts/speat';
import { fdiThresholdDecimals, fmtThreshold } from '../../shared/threshold-format';
import { completeness, completenessText, type Completeness } from '../../shared/completeness';
import { SECTION_SHORT } from '../../shared/requirements';
import { fmt, fmtPValue, pText } from '../../shared/charts/format';
import { FIELD_GUIDE, glossarySection } from './glossary';
import { registerFonts, FONT_REGULAR } from './fonts';
import { CHART_STYLE, Layout, layoutOf, PAGE, sectionCharts } from './layout';
import { caveats, CORRECTION_NAMES, fdiFindings, modelName, serAgreementSentence, serFindings, speatFindings, werFindings, werHypothesesText, werSecondaryPermutationText, fdiTrialsText, syntheticText } from './narrative';
import { plural, werOverallStatement, werPrimaryStatement, werVerdicts } from '../../shared/wer-verdict';
import { decisionText, spellingsText } from '../../shared/label-text';
import { durationCheckText } from '../../shared/duration-check';
import { referenceSentence, werReferenceSentence } from '../../shared/reference-group';
import { verificationMethodText } from './verification-tables';
import { fdiTables, providerText, serTables, speatTables, werTables, type Cell, type ReportTable } from './tables';
import { showInvisibleInDocument } from './visible-text';
import { useXmp } from './xmp';
import { contextSection } from './audit-context-section';
import { findingsSection } from './findings-section';
import { checklistRows } from './checklist';
import type { FollowUpInput } from '../../shared/audit-context';
import { speatUnit } from '../../shared/verdicts';
import { impactRatioNote, impactRatios, impactRatioTable, NO_IMPACT_RATIO } from './impact-ratios';

/** The PDF/A level the report claims; checked by test/unit/report/archival.test.ts with poppler (veraPDF is the formal validator). */
export const PDFA_SUBSET = 'PDF/A-3b';
export const REPORT_LANG = 'en-GB';

export const SECTION_HEADINGS = {
  speat: '1. SpEAT: speech embedding association test',
  ser: '2. SER propagation: bias in speech emotion recognition',
  wer: '3. WER: word error rate by group',
  fdi: '4. FDI: fairness disagreement index',
} as const;

export interface DocumentMeta {
  auditor: string;
  organisation: string;
  now: Date;
  signerName: string;
  fingerprint: string;
  /** How the signing key is protected, for the limitations. */
  keyProtection: 'safeStorage' | 'passphrase' | 'passphrase-file' | 'protector';
  /** Remedial actions and re-audit date from the Report step; "not stated" where absent. */
  followUp?: FollowUpInput;
  /** The Equivox that builds this report: version and git commit, or that the build recorded none (src/main/report/build-info.ts). */
  build?: string;
}

export function createDocument(results: AuditResults, meta: DocumentMeta): PDFKit.PDFDocument {
  const info = {
    Title: `${results.audit.title}: bias audit report`,
    Author: `${meta.auditor}, ${meta.organisation}`,
    Subject: `Equivox audit ${results.audit.id} of project ${results.project.name}`,
    Keywords: 'speech, bias, fairness, audit, SpEAT, WER, FDI',
    Creator: `Equivox ${results.equivoxVersion}`,
    Producer: `Equivox ${results.equivoxVersion} (PDFKit)`,
    CreationDate: meta.now,
    ModDate: meta.now,
  };
  const doc = new PDFDocument({
    // PDF/A-3 is based on PDF 1.7; PDFKit's subset adds the sRGB output intent and pdfaid.
    pdfVersion: '1.7',
    subset: PDFA_SUBSET,
    size: 'A4',
    margins: { top: PAGE.margin, left: PAGE.margin, right: PAGE.margin, bottom: PAGE.bottom },
    bufferPages: true,
    autoFirstPage: true,
    lang: REPORT_LANG,
    // MarkInfo /Marked true and a structure tree; Layout tags everything it draws.
    tagged: true,
    displayTitle: true,
    info,
  });
  useXmp(doc, {
    title: info.Title,
    author: info.Author,
    subject: info.Subject,
    keywords: info.Keywords,
    producer: info.Producer,
    creatorTool: info.Creator,
    created: meta.now,
    modified: meta.now,
    identifier: `equivox:audit:${results.audit.id}`,
    lang: REPORT_LANG,
    // Declared only where the layout's PDF/UA checks hold once everything, the signature included, is drawn.
    pdfua: () => layoutOf(doc)?.uaProblems().length === 0,
  });
  showInvisibleInDocument(doc);
  registerFonts(doc);
  doc.font(FONT_REGULAR);
  const L = new Layout(doc);
  const status = completeness(results);
  cover(L, results, meta, status);
  contextSection(L, results, meta.followUp ?? {});
  reportDetails(L, results, meta);
  summary(L, results, status);
  const builders = { speat: speatSection, ser: serSection, wer: werSection, fdi: fdiSection } as const;
  for (const section of ['speat', 'ser', 'wer', 'fdi'] as const) {
    const notRun = status.notRun.find((n) => n.section === section);
    if (results[section]) builders[section](L, results);
    else if (notRun) {
      L.newPage();
      L.h1(`${SECTION_HEADINGS[section]}: not run`);
      L.p(`Not run: ${notRun.reason}.`, { bold: true, colour: INCOMPLETE_RED });
      L.p('This section was part of the audit plan but produced no results, so this report says nothing about it. Fix the cause named above and run the audit again for a complete report.');
    }
  }
  limitations(L, results, meta);
  appendix(L, results);
  footers(L, results);
  return doc;
}

const INCOMPLETE_RED = '#A4161A';

/** Page 1: the title in brief, then the findings (issue 34.1); the cover's details follow "About this audit". */
function cover(L: Layout, r: AuditResults, meta: DocumentMeta, status: Completeness): void {
  const doc = L.doc;
  doc.y = PAGE.margin;
  if (!status.complete) {
    // Before the title, so no reader takes a partial audit for a complete one.
    L.tagged('P', () => doc.font('DejaVuSans-Bold').fontSize(14).fillColor(INCOMPLETE_RED).text('Incomplete audit', PAGE.margin, doc.y, { width: PAGE.width - 2 * PAGE.margin }));
    L.tagged('P', () => doc.font(FONT_REGULAR).fontSize(8.5).fillColor(INCOMPLETE_RED).text(
      `${completenessText(status)}. Not run: ${status.notRun.map((n) => `${SECTION_SHORT[n.section]} (${n.reason})`).join('; ')}.`,
      PAGE.margin,
      doc.y + 2,
      { width: PAGE.width - 2 * PAGE.margin },
    ));
    doc.fillColor('#000000');
    L.gap(6);
  }
  L.p('Equivox bias audit report', { size: 9, colour: '#555555' });
  // The report's title: the one heading above the sections' H1s.
  L.heading(1, r.audit.title, () => doc.font('DejaVuSans-Bold').fontSize(16).fillColor('#1F3A5F').text(r.audit.title, PAGE.margin, doc.y, { width: PAGE.width - 2 * PAGE.margin }));
  doc.fillColor('#000000');
  L.gap(2);
  L.p(`${r.project.name} · run ${r.audit.id} · auditor ${meta.auditor}, ${meta.organisation} · ${meta.now.toISOString().slice(0, 10)}. Signed by ${meta.signerName}; the plan, build and certificate fingerprint are under “Report details”.`, { size: 8, colour: '#555555' });
  findingsSection(L, r);
}

/** What used to fill the cover: who, when, which plan and build, which certificate; after "About this audit". */
function reportDetails(L: Layout, r: AuditResults, meta: DocumentMeta): void {
  L.gap(10);
  L.h1('Report details');
  L.keyValues([
    ['Project', r.project.name],
    ['Audit', `${r.audit.title} (run ${r.audit.id})`],
    ['Auditor', meta.auditor],
    ['Organisation', meta.organisation],
    ['Report date', meta.now.toISOString().slice(0, 10)],
    ['Audit run', `${r.audit.startedAt} to ${r.audit.finishedAt}`],
    ['Plan', `${r.audit.planId}, version ${r.audit.planVersion}`],
    ['Plan hash (SHA-256)', r.audit.planSha256 ?? 'not locked'],
    ['Plan locked at', r.audit.lockedAt ?? 'not locked'],
    ['Equivox version', r.equivoxVersion],
    ['Methods version', r.methodsVersion ?? 'not recorded (results written before methods were versioned)'],
    // The Equivox that made this report, which may be newer than the one that ran the audit (above).
    ['Equivox build', meta.build ?? 'not recorded'],
    ['Signed by', meta.signerName],
    ['Certificate fingerprint (SHA-256)', meta.fingerprint],
  ], 165, 9);
  L.gap(8);
  L.p(
    'This report is digitally signed (PAdES baseline B-B) and archival (PDF/A-3b). Any change to the file invalidates the signature. Its evidence is attached inside it: the full results (results.json), every data table as CSV, the dataset manifests’ hashes, the locked plan when available, the commands that recompute the numbers, a signed statement of their SHA-256 and an in-toto attestation of the verdicts (equivox report extract writes them out). The detached statement (report.statement.json) and attestation (report.intoto.jsonl) also list the SHA-256 of this report, each dataset manifest and each model.',
    { size: 8.5, colour: '#555555' },
  );
}

/** What the sections that ran measure, in one paragraph that names only those sections. */
export function measuresText(ran: readonly Section[]): string {
  const downstream = ran.filter((s) => s !== 'speat');
  const what: Record<Exclude<Section, 'speat'>, string> = { ser: 'an emotion recogniser', wer: 'a speech recogniser', fdi: 'a speaker-verification decision' };
  const parts: string[] = [];
  if (ran.includes('speat')) parts.push('the SpEAT section measures associations inside the models’ embedding space (which groups’ voices sit closer to pleasant speech); it is not a measure of harm in a product.');
  if (downstream.length > 0) {
    const names = downstream.map((s) => SECTION_SHORT[s]);
    const list = names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
    const systems = downstream.map((s) => what[s as Exclude<Section, 'speat'>]);
    const sys = systems.length === 1 ? systems[0]! : `${systems.slice(0, -1).join(', ')} and ${systems[systems.length - 1]}`;
    parts.push(`The ${list} section${downstream.length === 1 ? ' measures' : 's measure'} the behaviour of ${downstream.length === 1 ? 'a downstream system' : 'downstream systems'}: ${sys}.`);
  }
  const text = parts.join(' ');
  return `What this audit measures: ${text.charAt(0).toLowerCase()}${text.slice(1)}`;
}

function summary(L: Layout, r: AuditResults, status: Completeness): void {
  L.newPage();
  L.h1('Executive summary');
  if (!status.complete) {
    L.p(`Incomplete audit: ${completenessText(status)}. This summary speaks only of the sections that ran.`, { bold: true, colour: INCOMPLETE_RED });
    L.bullets(status.notRun.map((n) => `${SECTION_SHORT[n.section]}: not run: ${n.reason}.`));
  }
  L.p(measuresText(status.ran));
  if (r.speat) {
    L.h2('SpEAT (association in the embedding space)');
    L.bullets(speatFindings(r));
  }
  if (r.ser) {
    L.h2('SER propagation (downstream emotion recognition)');
    L.bullets(serFindings(r));
  }
  if (r.wer) {
    L.h2('WER (downstream speech recognition)');
    L.bullets(werFindings(r));
  }
  if (r.fdi) {
    L.h2('FDI (do fairness metrics agree?)');
    L.bullets(fdiFindings(r));
  }
  L.h2('Caveats');
  L.bullets(caveats(r));
  L.p('A result that is unlikely to be chance shows a difference in these data; it does not prove bias in every use of the model, and a result that could be chance does not prove its absence.', { size: 8.5, colour: '#555555' });
}

/** Each impact-ratio table of a section with the note that says what its ratio is and is not (impact-ratios.ts). */
function impactRatioBlock(L: Layout, r: AuditResults, section: 'wer' | 'fdi'): void {
  for (const s of impactRatios(r).filter((x) => x.section === section)) {
    L.table(impactRatioTable(s));
    L.p(impactRatioNote(s), { size: 8.5 });
  }
}

function tables(L: Layout, list: ReportTable[]): void {
  for (const t of list) {
    if (t.id.startsWith('fdi-sweep')) L.table(t, 7);
    else L.table(t);
  }
}

/** A section's opening: new page, heading, the method in brief, then the data and results heading. */
function openSection(L: Layout, section: keyof typeof SECTION_HEADINGS, method: string[]): void {
  L.newPage();
  L.h1(SECTION_HEADINGS[section]);
  // Numbered like the section, so no two headings (and bookmarks) read the same.
  const n = SECTION_HEADINGS[section].split('.')[0]!;
  L.h2(`${n}.1 Method in brief`);
  for (const paragraph of method) L.p(paragraph);
  L.h2(`${n}.2 Data, models and results`);
}

/** The attribute sets' k per speaker against the paper's k = 10, stated when a plan differs. */
function attributeNote(s: NonNullable<AuditResults['speat']>): string {
  const ks = [...new Set(s.tests.map((t) => t.attributes.perSpeaker))];
  if (ks.length === 0) return '';
  const k = ks.join(' or ');
  const lower = ks.some((x) => x !== PAPER_DEFAULTS.attributePerSpeaker);
  return `Attribute stimuli: per rated speaker, the ${k} highest- and ${k} lowest-rated clips (A and B), so every rated speaker is equally present in both poles by design${lower ? `; the paper used ${PAPER_DEFAULTS.attributePerSpeaker}, and this plan sets ${k}` : ', as in the paper'}.`;
}

/** What changes when speakers are the unit (METHODS.md § The unit of inference); '' when every result is clip-level. */
function speakerUnitNote(s: NonNullable<AuditResults['speat']>): string {
  if (!s.results.some((x) => speatUnit(x) === 'speaker')) return '';
  return "Where the target recordings carry speaker ids and a speaker has more than one recording, the speaker is the unit (the results table's Unit column): recordings of one person are not independent, so the splits move whole speakers between the groups (a speaker recorded in both groups keeps its two sets of recordings and the split decides which is X), enumerated when all splits of the speakers fit in the permutations; the bootstrap resamples speakers with all their recordings (its sizes are then speakers per group) and the minimum detectable effect is simulated by drawing speakers. The paper's test, which treats recordings as independent, is shown beside it for comparison and is behind no verdict. ";
}

function speatSection(L: Layout, r: AuditResults): void {
  const s = r.speat!;
  openSection(L, 'speat', [
    `For target groups X and Y and attribute sets A (pleasant speech) and B (unpleasant speech), each clip w gets s(w) = mean cosine similarity to A − mean cosine similarity to B. The effect size is d = (mean s over X − mean s over Y) / standard deviation of s over X ∪ Y (ddof 1). Positive d: X sits closer to pleasant speech than Y. Two permutation p-values come from the same equal-size splits of X ∪ Y, ${s.config.permutations} permutations (enumerated when all splits fit), seeded: the two-sided p (a difference at least as large in either direction), which is behind every verdict and its adjustment because X and Y are named in an arbitrary order, and the SpEAT paper's one-sided p (H1: d > 0), shown in the tables as such. Standard errors come from ${s.config.bootstrap.toLocaleString('en')} bootstrap resamples of the target stimuli at sizes ${s.config.sampleSizes.join(', ')}${s.config.bootstrap < PAPER_DEFAULTS.bootstrap ? ` (below the paper's ${PAPER_DEFAULTS.bootstrap.toLocaleString('en')}: this plan lowers it for speed, so the standard errors are less precise)` : ''}. ${speakerUnitNote(s)}${attributeNote(s)} Multiple comparisons across all ${s.results.length} tests: Bonferroni, Holm and Benjamini–Hochberg are shown; the summary uses ${CORRECTION_NAMES[s.config.correction]} at α = ${s.config.alpha}.`,
    `Embeddings: per layer, the ${s.config.temporal} over frames (temporal aggregation), then layer aggregation "${s.config.layer}". Hidden states follow Hugging Face transformers' output_hidden_states (N+1 states; state 0 is the transformer's input); the SpEAT authors' code differs in places (wav2vec 2.0 state 0 before the positional convolution; HuBERT's state 0; Whisper before the final layer norm), so layer-level numbers may differ from the paper's.`,
  ]);
  const list = speatTables(r);
  tables(L, list.filter((t) => t.id !== 'speat-grid'));
  L.p(NO_IMPACT_RATIO.speat, { size: 8.5 });
  const charts = sectionCharts(r, 'speat', CHART_STYLE);
  charts.forEach((c, i) => L.chart(c, `Figure 1.${i + 1}`));
  const grid = list.find((t) => t.id === 'speat-grid');
  if (grid) {
    L.table(grid, 6.8);
  }
}

/** How the SER verdicts are tested, with their unit (METHODS.md § The unit of inference); '' for results written before. */
export function serComparisonMethod(ser: NonNullable<AuditResults['ser']>): string {
  const cfg = ser.config.comparison;
  if (!cfg) return '';
  return `Whether the selected regressor's predicted valence differs between the groups is judged on speakers, not recordings: each speaker's predictions are averaged and the two groups' speaker means compared with Welch's t-test and its 95% CI (over recordings only where speakers are unknown, as the table says), the p adjusted over the ${plural(cfg.tests, 'comparison')} (${CORRECTION_NAMES[cfg.correction]}, α = ${cfg.alpha}); models whose regressor could not be shown to have learned valence get no verdict. `;
}

function serSection(L: Layout, r: AuditResults): void {
  const ser = r.ser!;
  const c = ser.config;
  const budget = c.maxSteps === 20_000 ? `${c.maxSteps.toLocaleString('en')} steps (the paper's budget)` : `${c.maxSteps.toLocaleString('en')} steps (the paper used 20,000; this plan sets ${c.maxSteps.toLocaleString('en')})`;
  const stopping = c.earlyStopping
    ? `Early stopping was ON (set in the plan): training stopped after ${plural(c.earlyStopping.patience, 'validation check')} without improvement, which changes results against training for the full budget.`
    : 'No early stopping: every regressor trains for the full budget.';
  openSection(L, 'ser', [
    `A downstream valence (emotion) regressor after Yang et al. (2021): a softmax-weighted sum of the hidden states, a linear layer to 256 units, the mean over frames and a linear output, trained with MSE on valence ratings scaled to [0, 1], Adam, batch ${c.batchSize}, ${budget}, one model per learning rate (${c.learningRates.join(', ')}). Preprocessing: ${c.preprocessing ?? 'none stated'}. Validation loss every ${c.evalEvery ?? 100} steps; the checkpoint with the lowest validation loss is kept. ${stopping} Split ${fmt(c.split.train)}/${fmt(c.split.validation)}/${fmt(c.split.test)} (train/validation/test); the regressor is selected on the validation split, never the test split.`,
    `For each SpEAT test, each regressor predicts valence for the target clips and Cohen's d (pooled SD, ddof 1, over recordings) compares the groups, for the selected regressor and, as in the SpEAT paper, for all regressors' predictions pooled; "agree" means the sign of Cohen's d equals the sign of SpEAT d. ${serComparisonMethod(ser)}${serAgreementSentence(r)}`,
  ]);
  tables(L, serTables(r));
  L.p(NO_IMPACT_RATIO.ser, { size: 8.5 });
  sectionCharts(r, 'ser', CHART_STYLE).forEach((c2, i) => L.chart(c2, `Figure 2.${i + 1}`));
}

function werSection(L: Layout, r: AuditResults): void {
  const w = r.wer!;
  const norms = {
    basic: 'basic: Unicode NFKC, lowercase, punctuation removed except apostrophes inside words, whitespace collapsed',
    none: 'none: text used as given',
    english: 'english: basic rules plus digits and common contractions expanded',
    'whisper-english': 'whisper-english: Whisper’s EnglishTextNormalizer (openai/whisper v20250625, as used by the Open ASR Leaderboard): lowercase; [bracketed] and (parenthesised) text dropped; fillers hmm, mm, mhm, mmm, uh, um dropped; contractions expanded (won’t → will not, ain’t → aint, gonna → going to, ’s → is) and titles spelled out (mr → mister); accents removed; spelled-out numbers written as digits with currency and percent signs (twenty one dollars → $21); British spellings made American (colour → color); other punctuation and symbols removed',
    'whisper-basic': 'whisper-basic: Whisper’s BasicTextNormalizer (openai/whisper v20250625): lowercase; [bracketed] and (parenthesised) text dropped; marks, symbols and punctuation replaced by spaces; accents kept',
  };
  const norm = norms[w.config.normalize];
  const second = w.secondary ? ` Beside it, for comparison with other studies, each group’s WER under a second normaliser, ${norms[w.secondary.normalize]} (descriptive only; the verdicts use the first).` : '';
  const rules =
    (w.ruleChanges
      ? ' The rule table counts, per group, the reference and hypothesis words each whisper-english rule family changed (the words that would differ if that family alone were switched off): a family that changes many more words for one group, such as contractions typical of a dialect, moves that group’s WER.'
      : '') + (w.utterances ? ' report-data/wer-utterances.csv holds every utterance as compared, normalised.' : '');
  const mixed = w.mixed
    ? ` The mixed-effects model (errors ~ group + offset(log words) + (1 | speaker), Poisson, maximum likelihood with ${w.mixed.nAGQ === 1 ? 'the Laplace approximation, as lme4’s glmer' : `adaptive Gauss–Hermite quadrature with ${w.mixed.nAGQ} nodes`}) estimates a speaker variance of ${fmt(w.mixed.speakerVariance)}${w.mixed.singular ? ' (on its boundary: no speaker variation beyond chance)' : ''} over ${plural(w.mixed.speakers, 'speaker')}; standard errors from the Hessian of the deviance, as lme4.`
    : '';
  openSection(L, 'wer', [
    `${werHypothesesText(w)} Normalisation, applied to reference and hypothesis alike: ${norm}.${second}${rules} Word errors are the minimum edit distance (substitutions + deletions + insertions, unit costs); a group's WER is its total errors divided by its total reference words (pooled). 95% CIs: percentile bootstrap over ${w.config.by === 'speaker' ? 'speakers (each speaker’s utterances together)' : 'utterances'}, ${w.config.bootstrap} resamples.${w.config.referenceGroup !== null ? ` Each group is compared with the reference group ${w.config.referenceGroup}.` : ''}${w.config.reference || w.config.referenceGroup === null ? ` ${werReferenceSentence(w.config)}` : ''}`,
    `${werPrimaryStatement(w)}${mixed} ${werOverallStatement(w).text} Secondary, never the basis of a verdict: the fixed-effects Poisson regression (rate ratio and likelihood-ratio χ² with 1 degree of freedom; it treats every word as independent)${werSecondaryPermutationText(w)}.`,
  ]);
  tables(L, werTables(r));
  impactRatioBlock(L, r, 'wer');
  sectionCharts(r, 'wer', CHART_STYLE).forEach((c, i) => L.chart(c, `Figure 3.${i + 1}`));
}

/**
 * How the FDI's CI and null were drawn, by unit (METHODS.md § The unit of inference, FDI):
 * speakers when the trials name them, trials otherwise (and in results written before).
 */
export function fdiUncertaintyText(f: NonNullable<AuditResults['fdi']>): string {
  const bySpeaker = f.groupings.length > 0 && f.groupings.every((g) => g.fdiCi?.unit === 'speaker');
  const ci = f.config.bootstrap > 0
    ? bySpeaker
      ? `CI: ${f.config.bootstrap} bootstrap resamples of speakers within each group; a trial belongs to two speakers (enrolment and test), so each resample keeps a trial as often as both its speakers were drawn (resamples leaving a group without genuine or impostor trials are left out).`
      : `CI: ${f.config.bootstrap} bootstrap resamples of trials within groups${f.groupings.some((g) => g.fdiCi?.unit === 'trial') ? ' (the trials do not name their speakers; if a speaker contributes many trials the CI is too narrow)' : ''}.`
    : 'No bootstrap CI was computed.';
  const nulls = f.groupings.filter((g) => g.null);
  const speakerNull = nulls.length > 0 && nulls.every((g) => g.null!.unit === 'speaker');
  const nul = nulls.length === 0
    ? ''
    : speakerNull
      ? ' The noise null shuffles group labels among the enrolment speakers, each keeping all its trials.'
      : ' The noise null shuffles group labels among the trials (within genuine and within impostor trials).';
  return `${ci}${nul}`;
}

function fdiSection(L: Layout, r: AuditResults): void {
  const f = r.fdi!;
  // How each attribute set's groups are compared, as chosen before the run (results written before say nothing).
  const refs = f.groupings.filter((g) => g.reference).map((g) => `${g.groupBy.join(' × ')}: ${referenceSentence(g.reference!, { holm: false })}`);
  openSection(L, 'fdi', [
    `Verification decisions score ≥ threshold, per group: false positive rate, false negative rate and accuracy, their disparities (max − min), worst-group accuracy and Wasserstein-1 distances between the groups' score distributions. Each metric is normalised over groups to [0, 1] (orientation "${f.config.orientation}"${f.config.orientation === 'harm' ? ': 1 − accuracy, so every metric grows with harm' : ': accuracy as published, which on its own produces rank disagreement'}). FDI = mean over metric pairs of α × value disagreement + (1 − α) × rank disagreement, α = ${f.config.alpha}. Thresholds swept from ${fmtThreshold(f.config.thresholds.from)} to ${fmtThreshold(f.config.thresholds.to)} by ${fmtThreshold(f.config.thresholds.step)}; the reported threshold is ${fmtThreshold(f.config.threshold, fdiThresholdDecimals(f))}${f.config.thresholdRule === "equal-error-rate" ? " (the equal-error-rate threshold over all trials)" : " (set in the plan)"}. ${fdiUncertaintyText(f)}`,
    ...(refs.length > 0 ? [`Reference groups, per attribute set. ${refs.join(' ')}`] : []),
    ...[verificationMethodText(f)].filter((t): t is string => t !== null),
  ]);
  const list = fdiTables(r);
  tables(L, list.filter((t) => !t.id.startsWith('fdi-sweep')));
  impactRatioBlock(L, r, 'fdi');
  sectionCharts(r, 'fdi', CHART_STYLE).forEach((c, i) => L.chart(c, `Figure 4.${i + 1}`));
  tables(L, list.filter((t) => t.id.startsWith('fdi-sweep')));
}

function limitations(L: Layout, r: AuditResults, meta: DocumentMeta): void {
  L.newPage();
  L.h1('Limitations');
  // Each caveat is printed once, in the summary (issue 21.6); this page points back to it.
  const items = [
    ...(caveats(r).length > 0 ? ['The caveats listed in the executive summary apply to every section.'] : []),
    'SpEAT measures association in the embedding space, not harm in a product; a downstream system may amplify, reduce or not reflect it. The SER, WER and FDI sections show behaviour of specific downstream systems on these data only.',
    'Group labels come from the datasets’ metadata; the groups are only as accurate and as complete as those labels, and other factors (recording conditions, sentence content, speaking style) can differ between groups.',
    'Statistical significance depends on sample size: large groups make small differences significant, small groups hide large ones. Effect sizes and confidence intervals matter more than p-values.',
  ];
  if (meta.keyProtection === 'passphrase-file') {
    items.push('The signing key was protected by a random passphrase stored in a file (permissions 0600) next to it in the Equivox data folder, because no passphrase or operating-system key store was available. Anyone who can read that folder can sign as this auditor.');
  }
  if (meta.fingerprint && meta.signerName) {
    items.push('The signature shows the report has not changed since signing and which certificate signed it. A self-signed certificate does not prove identity by itself: compare the fingerprint under “Report details” with one obtained from the auditor.');
  }
  L.bullets(items);
}

const DECODER_SOURCES: Record<RunDecoder['source'], string> = { EQUIVOX_FFMPEG: 'named by EQUIVOX_FFMPEG', bundled: 'bundled with Equivox', PATH: 'found on PATH' };

/** The appendix's line on which ffmpeg decoded the audio. */
export function decoderText(decoder: RunDecoder | null): string {
  if (decoder === null) return 'none found: only WAV files read in process';
  const from = decoder.package ? `, from ${decoder.package}` : '';
  return `ffmpeg ${decoder.version} (${DECODER_SOURCES[decoder.source]}${from}), SHA-256 ${decoder.sha256}`;
}

/** Label sets listed in the appendix; the rest are counted (every one is in the dataset's record). */
const LABEL_SETS_IN_REPORT = 100;

/**
 * How each dataset's labels were made one (METHODS.md § "The unit of inference", Labels):
 * the spellings that differed only in case, spaces or invisible characters and the
 * auditor's decision on each, then what was unified without asking and what a folder
 * import skipped. Nothing when no dataset had any.
 */
function labelAppendix(L: Layout, r: AuditResults): void {
  const withLabels = r.datasets.filter((d) => d.labels);
  if (withLabels.length === 0) return;
  const sets = withLabels.flatMap((d) => d.labels!.sets.map((s) => ({ d, s })));
  const total = withLabels.reduce((n, d) => n + d.labels!.setsTotal, 0);
  if (total > 0) {
    const rows: Cell[][] = sets.slice(0, LABEL_SETS_IN_REPORT).map(({ d, s }) => [d.name, s.kind === 'speaker' ? `${s.column} (speaker)` : s.column, spellingsText(s), decisionText(s)]);
    if (total > rows.length) rows.push(['', '', `… and ${total - rows.length} more sets`, '']);
    L.table({
      id: 'appendix-labels',
      section: 'appendix',
      title: 'Labels that differed only in case, spaces or invisible characters, as the auditor decided before import',
      columns: [
        { title: 'Dataset', format: 'text', width: 1.4 },
        { title: 'Column', format: 'text', width: 1 },
        { title: 'Spellings (recordings)', format: 'text', width: 2.2 },
        { title: 'Decision', format: 'text', width: 1.6 },
      ],
      rows,
    });
  }
  const notes: string[] = [];
  for (const d of withLabels) {
    const l = d.labels!;
    if (l.unifiedTotal > 0) notes.push(`${d.name}: ${plural(l.unifiedTotal, 'label')} written in more than one way (accents as separate marks, spaces at the ends) made the same without asking, as Unicode NFC and trimming do.`);
    if (l.skippedFiles) notes.push(`${d.name}: ${plural(l.skippedFiles.count, 'file')} in the folder skipped as not recordings (${l.skippedFiles.examples.join(', ')}${l.skippedFiles.count > l.skippedFiles.examples.length ? ', …' : ''}).`);
  }
  if (notes.length > 0) L.bullets(notes, 8.5);
}

/** The FDI noise null as the appendix lists it (issue 34.2: the p it computes is printed). */
export function fdiNullText(g: FdiGrouping): string {
  const n = g.null;
  if (!n) return 'no noise null computed';
  return `${n.unit === 'speaker' ? 'speaker-label' : 'label'} shuffle null ${pText(n.pValue)} over ${n.permutations.toLocaleString('en')} shuffles (mean ${fmt(n.mean)}, 95th percentile ${fmt(n.q95)})${Object.keys(g.groups).length === 2 ? ', never small with two groups, so no verdict' : ''}`;
}

const adjustedText = (a: { bonferroni: number; holm: number; bh: number }): string => `Bonferroni ${fmtPValue(a.bonferroni)}, Holm ${fmtPValue(a.holm)}, BH ${fmtPValue(a.bh)}`;

/**
 * A SpEAT result's permutation test in the appendix, each p labelled one- or two-sided: the
 * two-sided p (behind the verdict) first, the paper's one-sided p after it (issue 34.2).
 */
export function speatAppendixPs(x: SpeatResult): string {
  const how = `unit: ${speatUnit(x)}; ${x.permutations} ${x.exact ? 'exact' : 'sampled'}`;
  const two = x.pTwoSided !== undefined ? `two-sided ${pText(x.pTwoSided)}${x.pTwoSidedAdjusted ? ` (${adjustedText(x.pTwoSidedAdjusted)}), behind the verdict; ` : ', behind the verdict; '}` : '';
  return `permutation test (${how}), d = ${fmt(x.effectSize)}, ${two}one-sided ${pText(x.pValue)} (${adjustedText(x.pAdjusted)})${two ? ", the SpEAT paper's direction" : ''}`;
}

function appendix(L: Layout, r: AuditResults): void {
  L.newPage();
  L.h1('Appendix: reproducibility');
  L.table({
    id: 'appendix-datasets',
    section: 'appendix',
    title: 'Datasets',
    columns: [
      { title: 'Dataset', format: 'text', width: 1.6 },
      { title: 'Role', format: 'text', width: 0.8 },
      { title: 'Clips', format: 'int', width: 0.5 },
      { title: 'Excluded', format: 'int', width: 0.75 },
      { title: 'Synthetic', format: 'text', width: 0.75 },
      { title: 'Manifest SHA-256', format: 'hash', width: 2.6 },
    ],
    rows: r.datasets.map((d) => [d.name, d.role, d.clips, d.excluded, syntheticText(d.synthetic), d.manifestSha256 ?? 'none']),
  });
  L.table({
    id: 'appendix-groups',
    section: 'appendix',
    title: 'Groups in each dataset',
    columns: [
      { title: 'Dataset', format: 'text', width: 1.6 },
      { title: 'Group', format: 'text', width: 1.4 },
      { title: 'Clips', format: 'int', width: 0.6 },
      { title: 'Speakers', format: 'int', width: 0.6 },
      { title: 'Total duration (s)', format: 'num', width: 0.8 },
      { title: 'Mean duration (s)', format: 'num', width: 0.8 },
    ],
    rows: r.datasets.flatMap((d) => d.groups.map((g) => [d.name, `${g.label} = ${g.value}`, g.clips, g.speakers, g.totalDurationS, g.meanDurationS])),
  });
  labelAppendix(L, r);
  L.table({
    id: 'appendix-models',
    section: 'appendix',
    title: 'Models',
    columns: [
      { title: 'Model', format: 'text', width: 1.1 },
      { title: 'Front end', format: 'text', width: 0.9 },
      { title: 'Hidden states', format: 'text', width: 2.6 },
      { title: 'Dims', format: 'text', width: 0.5 },
      { title: 'Licence / source', format: 'text', width: 1 },
      { title: 'SHA-256', format: 'hash', width: 1.9 },
    ],
    rows: r.models.map((m) => [m.name, m.frontEnd, m.hiddenStates, [...new Set(m.dims)].join(', '), [m.licence, m.source].filter(Boolean).join(', ') || (m.builtin ? 'bundled' : '–'), m.sha256]),
  });
  L.h2('Sampling, normalisation and seeds');
  const items: string[] = [`Seed for every random step (permutations, bootstrap, splits, training): ${r.audit.seed}.`];
  if (r.speat) {
    for (const t of r.speat.tests) {
      items.push(`${t.name}: ${t.x.n} × ${t.y.n} target stimuli; matching ${t.matching ? `on ${t.matching.on.join(', ')}` : 'none'}; attributes ${t.attributes.perSpeaker} highest- and lowest-rated clips per speaker (A = ${t.attributes.nA}, B = ${t.attributes.nB}).`);
    }
  }
  if (r.wer) items.push(`WER normalisation "${r.wer.config.normalize}"; grouping by ${r.wer.config.groupBy.join(' × ')}; bootstrap by ${r.wer.config.by}.`);
  if (r.fdi) items.push(`${fdiTrialsText(r.fdi)}; orientation ${r.fdi.config.orientation}.`);
  if (r.audit.deviations.length > 0) {
    for (const d of r.audit.deviations) items.push(`Deviation from the locked plan at ${d.path}: locked ${JSON.stringify(d.locked)}, used ${JSON.stringify(d.used)}.`);
  } else items.push('No deviations from the locked plan.');
  L.bullets(items, 8.5);
  L.h2('Software');
  L.keyValues(
    [
      ['Equivox', r.equivoxVersion],
      ['Node.js', r.environment.node],
      ['ONNX Runtime', r.environment.onnxruntime],
      ['Platform', `${r.environment.platform} ${r.environment.arch}, ${r.environment.cpus} CPUs`],
      ...(r.environment.decoder !== undefined ? [['Audio decoder', decoderText(r.environment.decoder)] as [string, string]] : []),
      ['Execution providers', [...new Set(r.models.map(providerText))].join(', ') || '–'],
    ],
    130,
    8.5,
  );
  L.h2('Statistical tests');
  const tests: string[] = [];
  if (r.speat) {
    for (const x of r.speat.results) {
      const paper = x.clipLevel ? ` The paper's test (clips as independent): one-sided ${pText(x.clipLevel.pValue)}, two-sided ${pText(x.clipLevel.pTwoSided)} (${x.clipLevel.permutations} ${x.clipLevel.exact ? 'exact' : 'sampled'}).` : '';
      tests.push(`SpEAT ${testLabel(r, x.testId)} × ${modelName(r, x.modelId)}: ${speatAppendixPs(x)}.${paper}`);
    }
    for (const t of r.speat.tests) {
      const dur = t.confounds.duration;
      if (dur) tests.push(`Duration confound ${t.name}: ${durationCheckText(dur)}; mean durations ${fmt(dur.meanX)} s vs ${fmt(dur.meanY)} s.`);
    }
  }
  if (r.wer) {
    const verdicts = werVerdicts(r.wer);
    r.wer.comparisons.forEach((c, i) => {
      const v = verdicts[i]!;
      const mixed = c.mixed ? `; mixed model b = ${fmt(c.mixed.coefficient)} (SE ${fmt(c.mixed.standardError)}), Wald ${pText(c.mixed.pValue)}` : '';
      const b = c.primary?.bootstrap;
      const boot = b
        ? `, likelihood ratio ${fmt(b.statistic)} against ${plural(b.replicates, 'bootstrap replicate')} (at most ${b.maxReplicates}, ${b.hits} reaching it; unit: speaker)`
        : c.primary?.statistic !== undefined
          ? `, likelihood ratio ${fmt(c.primary.statistic)} against χ² with 1 degree of freedom (unit: speaker)`
          : '';
      const primary = v.tested ? `primary ${v.testName}, ${pText(v.pValue)} (Holm ${pText(v.pAdjusted)})${boot}` : `no verdict (${v.phrase.replace(/^gets no verdict: /, '')})`;
      tests.push(`WER ${c.group} vs ${c.referenceGroup}: ${primary}. Secondary: Poisson likelihood-ratio χ²(1) = ${fmt(c.poisson.devianceDrop)}, ${pText(c.poisson.pValue)}; permutation ${pText(c.permutationPValue)} (${c.permutationExact ? 'exact' : `${r.wer!.config.permutations} permutations`})${mixed}.`);
    });
    tests.push(`WER overall: ${werOverallStatement(r.wer).text} Fixed-effects Poisson (secondary): χ² = ${fmt(r.wer.overall.devianceDrop)} with ${plural(r.wer.overall.df, 'degree')} of freedom, ${pText(r.wer.overall.pValue)}.`);
  }
  if (r.fdi) for (const g of r.fdi.groupings) tests.push(`FDI ${g.groupBy.join(' × ')}: percentile bootstrap CI (${r.fdi.config.bootstrap} resamples) ${g.fdiCi95 ? `[${fmt(g.fdiCi95[0])}, ${fmt(g.fdiCi95[1])}]` : 'not computed'}; ${fdiNullText(g)}.`);
  L.bullets(tests, 8);
  L.h2('Reporting checklist');
  L.table({
    id: 'appendix-checklist',
    section: 'appendix',
    title: `Reporting checklist of the ASR-bias field guide (${FIELD_GUIDE})`,
    columns: [
      { title: 'Item', format: 'text', width: 2 },
      { title: 'Reported', format: 'text', width: 2 },
    ],
    rows: checklistRows(r),
  });
  glossarySection(L);
}

function footers(L: Layout, r: AuditResults): void {
  const doc = L.doc;
  const range = doc.bufferedPageRange();
  for (let i = range.start; i < range.start + range.count; i += 1) {
    doc.switchToPage(i);
    const bottom = doc.page.margins.bottom;
    doc.page.margins.bottom = 0;
    L.artifact(() => doc.font(FONT_REGULAR).fontSize(7).fillColor('#777777').text(`Equivox bias audit · ${r.audit.title} · page ${i + 1} of ${range.count}`, PAGE.margin, PAGE.height - 36, { width: PAGE.width - 2 * PAGE.margin, align: 'center', lineBreak: false }), 'Pagination');
    doc.page.margins.bottom = bottom;
  }
  doc.fillColor('#000000');
}
