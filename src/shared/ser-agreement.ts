/**
 * The SER agreement sentence (METHODS.md § SER propagation): "k of n (test × model) pairs",
 * which regressor n counts, and the one-sided binomial p against chance. One wording for
 * the report and the app.
 */
import { pText } from './charts/format';
import type { AuditResults } from './results';
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
 * A pair's "same direction?" cell: yes or no, except for a model whose downstream regressor did
 * not learn valence, whose pairs the agreement count leaves out (METHODS.md § Verdicts that hold):
 * a yes there would read as a propagation conclusion the gate forbids.
 */
export function agreementCell(model: { downstream?: { informative: boolean } }, agree: boolean): string {
  if (model.downstream?.informative === false) return 'not counted';
  return agree ? 'yes' : 'no';
}
