/**
 * The verification measures beside FDI (issue 34.5) in the report: the FDI grouping built by
 * the audit's fdiGrouping from the golden trials of test/golden/verification_golden.py, its
 * EER and GARBE/FDR tables (PDF and report-data CSV), the reproduce recipe's `stats fdi`
 * giving the same `verification`, and the DET chart on probit axes drawn from the data.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AuditResults } from '../../../src/shared/results';
import { fdiGrouping } from '../../../src/main/audits/fdi-grouping';
import { fdiTables } from '../../../src/main/report/tables';
import { verificationMethodText } from '../../../src/main/report/verification-tables';
import { definitionsText } from '../../../src/main/report/definitions';
import { reportDataFiles } from '../../../src/main/report';
import { reproduceSteps } from '../../../src/main/report/reproduce';
import { renderChartSvg } from '../../../src/main/report/charts';
import { Options, type CliContext } from '../../../src/main/cli/args';
import { statsCommands } from '../../../src/main/cli/stats';
import { parseCommandLine } from '../../../src/main/cli/usage';
import { fdiDetChart, probit, sectionCharts } from '../../../src/shared/charts';
import { unitSeed } from '../../../src/main/stats/seeds';
import type { FdiItems } from '../../../src/main/stats';

interface Trial {
  group: string;
  label: 0 | 1;
  score: number;
  enrol: string;
  test: string;
}
const golden = JSON.parse(readFileSync(join(__dirname, '../../golden/verification_golden.json'), 'utf8')) as {
  trials: Trial[];
  eer: Record<string, { eer: number; threshold: number }>;
  garbe_fdr: { threshold: number; garbe: number; fdr: number; fmrGap: number };
};
const base = JSON.parse(readFileSync(join(__dirname, '../../fixtures/report/results.sample.json'), 'utf8')) as AuditResults;

const items: FdiItems = {
  groups: golden.trials.map((t) => t.group),
  labels: Int8Array.from(golden.trials, (t) => t.label),
  scores: Float64Array.from(golden.trials, (t) => t.score),
  speakers: { enrol: golden.trials.map((t) => t.enrol), test: golden.trials.map((t) => t.test) },
};
const tau = golden.garbe_fdr.threshold;
const f = base.fdi!;
const grouping = fdiGrouping(items, ['group'], tau, null, { alpha: 0.5, orientation: 'harm', bootstrap: 200, nullPermutations: 50 }, unitSeed(base.audit.seed, 'fdi/group'));
const results: AuditResults = { ...base, fdi: { ...f, config: { ...f.config, threshold: tau, thresholdRule: 'given', bootstrap: 200, nullPermutations: 50 }, groupings: [grouping] } };

describe('verification measures in the FDI section', () => {
  it('the EER table holds each group’s golden EER and threshold with a speaker-bootstrap CI, and FMR/FNMR at the threshold; GARBE and FDR as numpy has them', () => {
    const tables = fdiTables(results);
    const eer = tables.find((t) => t.id === 'fdi-eer')!;
    expect(eer.title).toMatch(/bootstrap over speakers/);
    expect(eer.rows.map((r) => r[0])).toEqual(['g0', 'g1', 'g2']);
    for (const row of eer.rows) {
      const want = golden.eer[row[0] as string]!;
      expect(row[3] as number).toBeCloseTo(want.eer, 12);
      expect(row[6]).toBe(want.threshold);
      expect(row[4] as number).toBeLessThanOrEqual(row[5] as number);
      expect([row[7], row[8]]).toEqual([grouping.groups[row[0] as string]!.fpr, grouping.groups[row[0] as string]!.fnr]);
    }
    const gf = tables.find((t) => t.id === 'fdi-garbe-fdr')!;
    expect(gf.rows[0]![0] as number).toBeCloseTo(golden.garbe_fdr.garbe, 12);
    expect(gf.rows[0]![4] as number).toBeCloseTo(golden.garbe_fdr.fdr, 12);
    expect(gf.rows[0]![5] as number).toBeCloseTo(golden.garbe_fdr.fmrGap, 12);
  });

  it('the report data exports both tables as CSV at full precision', () => {
    const files = reportDataFiles(results);
    const eer = files.find((x) => x.name === 'fdi-eer.csv')!.data.toString('utf8').replace(/^\uFEFF/, '');
    expect(eer.split(/\r?\n/)[0]).toBe('Group,Genuine trials,Impostor trials,EER,EER 95% CI low,EER 95% CI high,EER threshold,FMR,FNMR');
    expect(eer).toContain(`g1,12,12,${golden.eer.g1!.eer},`);
    expect(files.some((x) => x.name === 'fdi-garbe-fdr.csv')).toBe(true);
  });

  it('the section states both formulas with their α, and says when the verifier is at chance that the gaps describe noise', () => {
    const text = verificationMethodText(results.fdi!)!;
    expect(text).toContain('GARBE (Gini Aggregation Rate for Biometric Equitability, Howard et al. 2022) = α × Gini(FMR) + (1 − α) × Gini(FNMR)');
    expect(text).toContain('and α = 0.50');
    expect(text).toContain('FDR (Fairness Discrepancy Rate, de Freitas Pereira & Marcel 2021) = 1 − (α × the largest FMR difference');
    expect(text).toContain('bootstrap resamples of each group\'s speakers');
    expect(text).not.toContain('noise');
    const chance = { ...results.fdi!, groupings: [{ ...grouping, verifier: { ...grouping.verifier!, informative: false } }] };
    expect(verificationMethodText(chance)).toContain('describe noise as much as the groups');
    // The recipient's definitions.md carries the same definitions.
    const defs = definitionsText(results);
    for (const t of ['GARBE = a Gini(FMR) + (1 - a) Gini(FNMR), a = 0.5', 'FDR = 1 - (a max_{g,h} |FMR_g - FMR_h|', 'EER = (FNMR + FMR) / 2']) expect(defs).toContain(t);
  });

  it('results written before the measures render without their tables or chart', () => {
    const { verification: _v, ...old } = grouping;
    const before: AuditResults = { ...results, fdi: { ...results.fdi!, groupings: [old] } };
    expect(fdiTables(before).some((t) => t.id.startsWith('fdi-eer'))).toBe(false);
    expect(fdiDetChart(before, 0)).toBeNull();
    expect(sectionCharts(before, 'fdi').map((c) => c.id)).toEqual(['fdi-sweep-0', 'fdi-disparities-0']);
  });

  it('the reproduce recipe’s `stats fdi` on the attached trials gives the same verification measures', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'equivox-verif-'));
    try {
      for (const file of reportDataFiles(results)) writeFileSync(join(dir, file.name), file.data);
      const step = reproduceSteps(results).find((s) => s.section === 'fdi')!;
      const argv = step.argv.map((a) => (a.endsWith('.csv') ? join(dir, a) : a));
      const ctx: CliContext = { log: () => {}, progress: () => {} };
      const r = JSON.parse(JSON.stringify(await statsCommands.find((c) => c.path.join(' ') === 'stats fdi')!.run(new Options(parseCommandLine(argv)), [], ctx))) as { verification: unknown };
      expect(r.verification).toEqual(JSON.parse(JSON.stringify(grouping.verification)));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('DET chart', () => {
  const spec = fdiDetChart(results, 0)!;
  const series = spec.option.series as { type: string; name: string; data: ({ value: number[] } | number[])[]; lineStyle?: { type: unknown }; symbol?: string }[];

  it('one line per group on probit axes, each with its own dash and marker, the operating points and the FMR = FNMR diagonal', () => {
    expect(sectionCharts(results, 'fdi').map((c) => c.id)).toContain('fdi-det-0');
    const lines = series.filter((s) => s.type === 'line' && s.name !== 'FMR = FNMR');
    expect(lines.map((s) => s.name)).toEqual(['g0', 'g1', 'g2']);
    expect(new Set(lines.map((s) => JSON.stringify(s.lineStyle!.type))).size).toBe(3);
    expect(new Set(lines.map((s) => s.symbol)).size).toBe(3);
    for (const s of lines) {
      const det = grouping.verification!.det[s.name]!;
      const finite = det.fmr.map((x, k) => [x, det.fnmr[k]!]).filter(([x, y]) => x! > 0 && x! < 1 && y! > 0 && y! < 1);
      expect(s.data.map((d) => (d as { value: number[] }).value)).toEqual(finite.map(([x, y]) => [probit(x!), probit(y!)]));
    }
    const ops = series.filter((s) => s.type === 'scatter');
    expect(ops.map((s) => s.data[0])).toEqual(['g0', 'g1', 'g2'].map((g) => [probit(grouping.groups[g]!.fpr!), probit(grouping.groups[g]!.fnr!)]));
  });

  it('the axes span the data’s rates, tick at rates labelled as percentages, and the SVG draws them', () => {
    const x = spec.option.xAxis as { min: number; max: number; axisLabel: { customValues: number[]; formatter: (v: number) => string } };
    const all = series.filter((s) => s.type === 'line' && s.name !== 'FMR = FNMR').flatMap((s) => s.data.flatMap((d) => (d as { value: number[] }).value));
    expect(x.min).toBeLessThanOrEqual(Math.min(...all));
    expect(x.max).toBeGreaterThanOrEqual(Math.max(...all));
    // Rates with 12 trials per label: 1/12 to 11/12, so the axes run from 5% to 95%.
    expect(x.axisLabel.customValues.map((v) => x.axisLabel.formatter(v))).toEqual(['5%', '10%', '20%', '30%', '40%', '50%', '60%', '70%', '80%', '90%', '95%']);
    const svg = renderChartSvg(spec, 480);
    for (const text of ['False match rate (FMR), probit scale', '50%', 'FMR = FNMR', 'g1']) expect(svg).toContain(text);
  });
});
