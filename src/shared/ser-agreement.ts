/**
 * The SER sentences, one wording for the report and the app: the agreement sentence
 * (METHODS.md § SER propagation: "k of n (test × model) pairs", which regressor n counts, the
 * one-sided binomial p against chance) and, per model, how its selected regressor's predicted
 * valence differs between each test's groups, with the verdict from the speaker-level
 * comparison (METHODS.md § The unit of inference).
 */
import { fmt, fmtSigned, pText } from './charts/format';
import { magnitude } from './interpret';
import type { AuditResults } from './results';
import { serComparisonVerdict, serGate } from './verdicts';
import { plural } from './wer-verdict';

/** "k of n (test × model) pairs …, one-sided binomial p against chance": the agreement sentence, for the report and the app. */
export function serAgreementSentence(results: AuditResults): string {
  const ser = results.ser;
  if (!ser) return '';
  const { agree, total, pValue } = ser.agreement;
  const p = pValue ?? NaN;
  const chance = Number.isFinite(p) ? ` One-sided binomial test against chance (½): ${pText(p)}${p < 0.05 ? ', so the agreement is unlikely to be chance' : ', so the agreement could be chance'}.` : '';
  const pooled = ser.agreementPooled ? ` Counting instead the predictions of all ${plural(ser.config.learningRates.length, 'regressor')} pooled (the SpEAT paper’s statistic): ${ser.agreementPooled.agree} of ${ser.agreementPooled.total}${Number.isFinite(ser.agreementPooled.pValue ?? NaN) ? ` (${pText(ser.agreementPooled.pValue)})` : ''}.` : '';
  return `In ${agree} of ${total} (test × model) pairs, the emotion (valence) model's difference between the groups points the same way as the SpEAT effect size; each pair is scored with one regressor per model, the one selected on the validation split.${chance}${pooled}`;
}


/**
 * A pair's "same direction?" cell: yes or no, except for a model whose downstream regressor
 * could not be shown to have learned valence, whose pairs the agreement count leaves out (METHODS.md § Verdicts that hold):
 * a yes there would read as a propagation conclusion the gate forbids.
 */
export function agreementCell(model: { downstream?: { informative: boolean } }, agree: boolean): string {
  if (model.downstream?.informative === false) return 'not counted';
  return agree ? 'yes' : 'no';
}

/**
 * One sentence per model: for a regressor that could not be shown to have learned valence, why
 * no conclusion is drawn; otherwise, per test, the direction and Cohen's d over recordings (the
 * effect description) and the verdict on the difference of speaker means.
 */
export function serModelFindings(results: AuditResults): string[] {
  const ser = results.ser;
  if (!ser) return [];
  const name = (id: string) => results.models.find((m) => m.id === id)?.name ?? id;
  const out: string[] = [];
  for (const m of ser.models) {
    const sel = m.regressors.find((r) => r.selected) ?? m.regressors[0];
    if (!sel) continue;
    const gate = serGate(m);
    if (!gate.informative) {
      out.push(`${name(m.modelId)}, selected regressor (learning rate ${sel.learningRate}): ${gate.sentence}.`);
      continue;
    }
    const tests = m.tests.filter((t) => t.learningRate === sel.learningRate);
    const bits = tests.map((t) => {
      const design = results.speat?.tests.find((d) => d.id === t.testId);
      const x = design?.x.value ?? 'group X';
      const y = design?.y.value ?? 'group Y';
      const mag = magnitude(t.cohensD);
      const v = serComparisonVerdict(t.comparison, ser);
      const verdict = v
        ? `; the difference in mean predicted valence (${x} minus ${y}), ${v.detail}, ${v.unlikely ? 'is ' : ''}${v.phrase}`
        : t.comparison === null
          ? '; not tested: a group has fewer than 2 speakers'
          : '';
      // The comparison by the auditor's name (issue 34.2: one name everywhere), then its groups in words.
      const label = design?.name ?? `${x} vs ${y}`;
      if (mag === 'negligible') return `${label}: no notable difference between ${x} and ${y} speech (Cohen's d over recordings = ${fmtSigned(t.cohensD)})${verdict}`;
      return `${label}: ${t.cohensD > 0 ? x : y} speech is predicted as more positive than ${t.cohensD > 0 ? y : x} speech (Cohen's d over recordings = ${fmtSigned(t.cohensD)}, ${mag})${verdict}`;
    });
    // Results written before the speaker-level comparison carry no test: say so rather than imply one.
    const untested = tests.length > 0 && tests.every((t) => t.comparison === undefined) ? ' No significance test is run on these differences.' : '';
    out.push(`${name(m.modelId)}, selected regressor (learning rate ${sel.learningRate}, test-split R² = ${fmt(sel.r2)}): ${bits.join('; ')}.${untested}`);
  }
  return out;
}
