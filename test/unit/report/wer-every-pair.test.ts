/**
 * A WER section with every pair compared (the plan chose it, issue 32.3), built by the real
 * analysis and section builder, as the report, its chart and its reproduce recipe show it:
 * each row names its pair, Holm over all pairs is said, no group is drawn as the reference,
 * the re-run command has no --reference-group, and the PDF says how the comparisons were
 * chosen. The sample results' WER section is replaced; everything else stays.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { werSectionFrom } from '../../../src/main/audits/wer-section';
import { createIdentity, loadSigningIdentity } from '../../../src/main/identity';
import { buildReport } from '../../../src/main/report';
import { reproduceSteps } from '../../../src/main/report/reproduce';
import { werTables } from '../../../src/main/report/tables';
import { analyseWer, type WerRow } from '../../../src/main/stats';
import { werGroupChart } from '../../../src/shared/charts';
import type { AuditResults } from '../../../src/shared/results';

const sample = JSON.parse(readFileSync(join(__dirname, '../../fixtures/report/results.sample.json'), 'utf8')) as AuditResults;

function utterance(id: string, group: string, speaker: string, words: number, errors: number): WerRow {
  const ref = Array.from({ length: words }, (_, k) => `w${k}`);
  return { id, group, speaker, reference: ref.join(' '), hypothesis: ref.map((w, k) => (k < errors ? `x${k}` : w)).join(' ') };
}
const rows: WerRow[] = [];
for (const [g, base] of [['en-gb', 2], ['en-in', 3], ['en-us', 1]] as const) {
  for (let s = 0; s < 5; s += 1) for (let u = 0; u < 3; u += 1) rows.push(utterance(`${g}${s}-${u}`, g, `${g}-${s}`, 9, (base + ((s + u) % 3)) % 9));
}
const analysis = analyseWer(rows, { bootstrap: 100, permutations: 300, seed: 3, secondaryNormalize: 'none' });
const results: AuditResults = {
  ...sample,
  wer: werSectionFrom(rows, analysis, { hypotheses: 'model', asrModel: 'fixture recogniser', groupBy: ['accent'], alpha: 0.05, nAGQ: 1, datasetId: 'd-asr', reference: { kind: 'every-pair' } }),
};

let text = '';
beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'equivox-pairs-'));
  const info = await createIdentity(join(dir, 'data'), { name: 'Ada Auditor', organisation: 'Fair Speech Lab' });
  const built = await buildReport(results, { identity: loadSigningIdentity(join(dir, 'data'), info.id), now: new Date('2026-12-05T10:00:00Z') });
  writeFileSync(join(dir, 'r.pdf'), built.pdf);
  text = execFileSync('pdftotext', ['-layout', join(dir, 'r.pdf'), '-'], { encoding: 'utf8' }).replace(/\s+/g, ' ');
}, 120_000);

describe('a WER section that compares every pair', () => {
  it('names each pair in the comparison tables and says Holm over all of them', () => {
    const wer = results.wer!;
    expect(wer.config.referenceGroup).toBeNull();
    const tables = werTables(results);
    const comparisons = tables.find((t) => t.id === 'wer-comparisons')!;
    expect(comparisons.title.startsWith('Every pair of groups compared (Holm over all 3 pairs)')).toBe(true);
    expect(comparisons.rows.map((r) => r[0])).toEqual(['en-in vs en-gb', 'en-us vs en-gb', 'en-us vs en-in']);
    expect(tables.find((t) => t.id === 'wer-secondary')!.rows.map((r) => r[0])).toEqual(['en-in vs en-gb', 'en-us vs en-gb', 'en-us vs en-in']);
    // No one group to measure from: the second normaliser's table has no Δ column.
    const second = tables.find((t) => t.id === 'wer-secondary-normaliser')!;
    expect(second.columns.map((c) => c.title).some((h) => h.startsWith('Δ WER vs'))).toBe(false);
    expect(second.rows.every((r) => r.length === second.columns.length)).toBe(true);
  });

  it('draws no reference bar and re-runs without --reference-group', () => {
    const chart = werGroupChart(results)!;
    expect(chart.caption).toContain('every pair of groups is compared; no group is the reference');
    const step = reproduceSteps(results).find((s) => s.section === 'wer')!;
    expect(step.argv).not.toContain('--reference-group');
  });

  it('the PDF says how the comparisons were chosen, and each finding names its pair', () => {
    expect(text).toContain('Every pair of groups compared, Holm over all pairs, chosen before the run.');
    expect(text).toContain('against');
    for (const c of results.wer!.comparisons) expect(text).toMatch(new RegExp(`${c.group}: word error rate [^•]*? for ${c.referenceGroup}:`));
  });
});
