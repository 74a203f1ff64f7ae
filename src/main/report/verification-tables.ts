/**
 * The FDI section's verification measures (issue 34.5) as report tables, in ISO/IEC 19795-10
 * terms: each group's equal error rate with its 95% CI and its false match and false
 * non-match rates at the reported threshold, then GARBE and FDR across the groups. The PDF
 * prints them and the report data exports them as CSV (allTables).
 */
import type { FdiGrouping, FdiSection } from '../../shared/results';
import { fmt } from '../../shared/format';
import { fmtThreshold } from '../../shared/threshold-format';
import type { Column, ColumnFormat, ReportTable } from './tables';

const col = (title: string, format: ColumnFormat = 'text', width = 1): Column => ({ title, format, width });

/** decimals: the section's threshold precision (src/shared/threshold-format.ts). */
export function verificationTables(g: FdiGrouping, suffix: string, decimals = 2): ReportTable[] {
  const v = g.verification;
  if (!v) return [];
  const by = g.groupBy.join(' × ');
  const unit = v.eerCi ? (v.eerCi.unit === 'speaker' ? '95% CI: bootstrap over speakers' : '95% CI: bootstrap over trials') : 'no CI computed';
  const groups = Object.keys(v.eer).sort((a, b) => a.localeCompare(b, 'en'));
  return [
    {
      id: `fdi-eer${suffix}`,
      section: 'fdi',
      title: `Equal error rate (EER) per group, and false match rate (FMR) and false non-match rate (FNMR) at threshold ${fmtThreshold(g.threshold, decimals)} (${by}; ${unit})`,
      columns: [
        col('Group', 'text', 1.4),
        col('Genuine trials', 'int'),
        col('Impostor trials', 'int'),
        col('EER', 'pct'),
        col('EER 95% CI low', 'pct'),
        col('EER 95% CI high', 'pct'),
        { ...col('EER threshold', 'num'), decimals },
        col('FMR', 'pct'),
        col('FNMR', 'pct'),
      ],
      rows: groups.map((name) => {
        const e = v.eer[name]!;
        const m = g.groups[name];
        return [name, e.genuine, e.impostor, e.eer, e.ci95?.[0] ?? null, e.ci95?.[1] ?? null, e.threshold, m?.fpr ?? null, m?.fnr ?? null];
      }),
    },
    {
      id: `fdi-garbe-fdr${suffix}`,
      section: 'fdi',
      title: `How evenly the groups share the errors at threshold ${fmtThreshold(g.threshold, decimals)} (${by}): GARBE (0 = equal rates, 1 = one group holds all errors) and FDR (1 = equal rates, lower = less even)`,
      columns: [
        col('GARBE', 'num'),
        col('Gini of FMR', 'num'),
        col('Gini of FNMR', 'num'),
        col('GARBE α', 'num', 0.8),
        col('FDR', 'num'),
        col('Largest FMR gap', 'pp'),
        col('Largest FNMR gap', 'pp'),
        col('FDR α', 'num', 0.8),
      ],
      rows: [[v.garbe.garbe, v.garbe.giniFmr, v.garbe.giniFnmr, v.garbe.alpha, v.fdr.fdr, v.fdr.fmrGap, v.fdr.fnmrGap, v.fdr.alpha]],
    },
  ];
}

/** The paragraph that defines the measures, for the section's opening (only when the results carry them). */
export function verificationMethodText(f: FdiSection): string | null {
  const v = f.groupings.find((g) => g.verification)?.verification;
  if (!v) return null;
  const ci = v.eerCi
    ? v.eerCi.unit === 'speaker'
      ? ` Its 95% CI comes from ${v.eerCi.resamples} bootstrap resamples of each group's speakers, each trial kept as often as both its speakers were drawn.`
      : ` Its 95% CI comes from ${v.eerCi.resamples} bootstrap resamples of each group's genuine and impostor trials (the trials do not name their speakers; if a speaker contributes many trials the CI is too narrow).`
    : '';
  return (
    'The field’s own measures stand beside the FDI, in the terms of ISO/IEC 19795-10: the false match rate (FMR) is the share of impostor trials accepted (this section’s FPR) and the false non-match rate (FNMR) the share of genuine trials rejected (its FNR). ' +
    `Each group's equal error rate (EER) is where its FMR and FNMR meet as the threshold moves, with the threshold where that happens.${ci} ` +
    `GARBE (Gini Aggregation Rate for Biometric Equitability, Howard et al. 2022) = α × Gini(FMR) + (1 − α) × Gini(FNMR) across the groups at the reported threshold, with Gini(x) = n/(n − 1) × Σ|xᵢ − xⱼ| / (2n² × mean x) over the n groups and α = ${fmt(v.garbe.alpha)}; 0 means every group has the same rates. ` +
    `FDR (Fairness Discrepancy Rate, de Freitas Pereira & Marcel 2021) = 1 − (α × the largest FMR difference between two groups + (1 − α) × the largest FNMR difference), α = ${fmt(v.fdr.alpha)}; 1 means every group has the same rates. ` +
    'The DET chart draws each group’s FNMR against its FMR over all thresholds. One measure alone can mislead: read them with the FDI and the per-group rates.' +
    // The verifier-quality gate of METHODS.md § Verdicts that hold applies to these rates as much as to the FDI.
    (f.groupings.some((g) => g.verifier?.informative === false)
      ? ' The verifier could not be shown to tell genuine from impostor trials apart (the AUC’s 95% CI reaches 0.5), so differences between the groups’ error rates here describe noise as much as the groups.'
      : '')
  );
}
