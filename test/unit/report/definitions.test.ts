/**
 * A recipient with only the PDF recomputes FDI from its attachments alone (issue 34.6): the
 * report carries definitions.md (the definitions its numbers follow, versioned, with this
 * audit's settings), reproduce.json names it and gives the FDI step's threshold,
 * orientation and alpha, and fdi-trials-*.csv the scored trials. An independent numpy/scipy
 * implementation of the attached definitions (test/golden/fdi_from_attachments.py) run on
 * the files `report extract` wrote gives the FDI, value and rank disagreement of the
 * attached results.json.
 *
 * The FDI grouping is made by the audit's own fdiGrouping from seeded scored trials of three
 * groups (with two groups every rank disagreement is 0 or 1 and a wrong tie rule or
 * orientation could pass unnoticed).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AuditResults, FdiGrouping } from '../../../src/shared/results';
import { createIdentity, loadSigningIdentity } from '../../../src/main/identity';
import { buildReport } from '../../../src/main/report';
import { DEFINITIONS_ATTACHMENT, DEFINITIONS_VERSION } from '../../../src/main/report/definitions';
import { extractReport } from '../../../src/main/report/extract';
import type { ReproduceStep } from '../../../src/main/report/reproduce';
import type { FdiItems } from '../../../src/main/stats';
import { fdiGrouping } from '../../../src/main/audits/fdi-grouping';
import { unitSeed } from '../../../src/main/audits/units';

const base = JSON.parse(readFileSync(join(__dirname, '../../fixtures/report/results.sample.json'), 'utf8')) as AuditResults;
let out: string;
let built: AuditResults;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'equivox-definitions-'));
  let state = 11;
  const rand = (): number => {
    state = (state * 1664525 + 1013904223) % 4294967296;
    return state / 4294967296;
  };
  // 360 trials in three groups whose score distributions differ in place and spread, so FPR, FNR and accuracy rank the groups differently.
  const names = ['a', 'b', 'c'];
  const groups = Array.from({ length: 360 }, (_, i) => names[i % 3]!);
  const labels = Int8Array.from({ length: 360 }, (_, i) => (Math.floor(i / 3) % 2 === 0 ? 1 : 0));
  const shift = { a: 0, b: 0.06, c: -0.04 } as Record<string, number>;
  const spread = { a: 0.3, b: 0.5, c: 0.4 } as Record<string, number>;
  const items: FdiItems = { groups, labels, scores: Float64Array.from(groups, (g, i) => (labels[i] ? 0.62 : 0.38) + shift[g]! + spread[g]! * (rand() - 0.5)) };
  const f = base.fdi!;
  const grouping: FdiGrouping = fdiGrouping(items, ['accent'], 0.5, null, { alpha: f.config.alpha, orientation: f.config.orientation, bootstrap: 50, nullPermutations: 50 }, unitSeed(base.audit.seed, 'fdi/accent'));
  built = { ...base, fdi: { ...f, config: { ...f.config, bootstrap: 50, nullPermutations: 50 }, groupings: [grouping] } };
  const info = await createIdentity(join(dir, 'data'), { name: 'Ada Auditor', organisation: 'Fair Speech Lab' });
  const { pdf } = await buildReport(built, { identity: loadSigningIdentity(join(dir, 'data'), info.id), now: new Date('2026-11-29T12:00:00Z') });
  writeFileSync(join(dir, 'report.pdf'), pdf);
  out = join(dir, 'extracted');
  extractReport(pdf, out);
});

describe('definitions inside the report', () => {
  it('report extract writes definitions.md: versioned, the sections the report holds, FDI’s orientation, tie rule and this audit’s settings', () => {
    const text = readFileSync(join(out, DEFINITIONS_ATTACHMENT), 'utf8');
    expect(text).toContain(`Version: ${DEFINITIONS_VERSION}.`);
    for (const h of ['## SpEAT', '## SER propagation', '## WER and CER', '## FDI']) expect(text).toContain(h);
    expect(text).toContain('ties get their average');
    expect(text).toContain('Orientation "harm" uses 1 - accuracy');
    expect(text).toContain(`This audit: orientation ${built.fdi!.config.orientation}, alpha ${built.fdi!.config.alpha}, threshold accent ${built.fdi!.groupings[0]!.threshold}`);
    expect(text).toContain('(ddof = 1)');
    const reproduce = JSON.parse(readFileSync(join(out, 'reproduce.json'), 'utf8')) as { definitions: string };
    expect(reproduce.definitions).toBe(DEFINITIONS_ATTACHMENT);
  });

  it('a numpy/scipy implementation of the attached definitions, on the extracted trials and recipe alone, gives the report’s FDI and rank disagreement', () => {
    const reproduce = JSON.parse(readFileSync(join(out, 'reproduce.json'), 'utf8')) as { steps: ReproduceStep[] };
    const step = reproduce.steps.find((s) => s.section === 'fdi')!;
    const arg = (name: string): string => step.argv[step.argv.indexOf(name) + 1]!;
    const r = spawnSync('python3', [join(__dirname, '../../golden/fdi_from_attachments.py'), join(out, arg('--input')), arg('--threshold'), arg('--orientation'), arg('--alpha')], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const mine = JSON.parse(r.stdout) as { fdi: number; valueDisagreement: number; rankDisagreement: number; groups: Record<string, { fpr: number; fnr: number; accuracy: number }> };
    const attached = (JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as AuditResults).fdi!.groupings[0]!;
    // Not a degenerate case: the metrics rank the three groups differently.
    expect(attached.rankDisagreement).toBeGreaterThan(0);
    expect(mine.rankDisagreement).toBeCloseTo(attached.rankDisagreement, 12);
    expect(mine.valueDisagreement).toBeCloseTo(attached.valueDisagreement, 12);
    expect(mine.fdi).toBeCloseTo(attached.fdi, 12);
    for (const [g, m] of Object.entries(attached.groups)) {
      expect(mine.groups[g]!.fpr).toBeCloseTo(m.fpr!, 12);
      expect(mine.groups[g]!.fnr).toBeCloseTo(m.fnr!, 12);
      expect(mine.groups[g]!.accuracy).toBeCloseTo(m.accuracy, 12);
    }
    // The paper's orientation gives a different rank disagreement here: the definitions' convention matters and is stated.
    const paper = spawnSync('python3', [join(__dirname, '../../golden/fdi_from_attachments.py'), join(out, arg('--input')), arg('--threshold'), 'paper', arg('--alpha')], { encoding: 'utf8' });
    expect((JSON.parse(paper.stdout) as { rankDisagreement: number }).rankDisagreement).not.toBeCloseTo(attached.rankDisagreement, 6);
  });
});
