/**
 * The report's text as a reader gets it (issue 34.3), read back with `pdftotext -layout`
 * from a report built from the sample results (test/fixtures/report/make-sample.ts, made by
 * the real pipeline's statistics): no word of what the report drew is broken mid-word, no
 * number carries more than 6 significant digits, and every all-capitals abbreviation is in
 * the glossary. The strings drawn are recorded at PDFKit's text() as the report calls it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import PDFDocument from 'pdfkit';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { createIdentity, loadSigningIdentity } from '../../../src/main/identity';
import { buildReport } from '../../../src/main/report';
import { glossaryTerms } from '../../../src/main/report/glossary';
import { fitColumnWidths, Layout } from '../../../src/main/report/layout';
import { formatCell, type ReportTable } from '../../../src/main/report/tables';
import { fdiFromMetrics } from '../../../src/main/stats';
import { fdiUpperBound } from '../../../src/shared/fdi-range';
import type { AuditResults } from '../../../src/shared/results';
import { brokenWords, offPrecision, overlongNumbers, significantDigits } from '../../support/report-text';

const results = JSON.parse(readFileSync(join(__dirname, '../../fixtures/report/results.sample.json'), 'utf8')) as AuditResults;

const drawn: string[] = [];
/** Every table the report drew, as Layout.table got it. */
const tables: ReportTable[] = [];
let text = '';

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'equivox-report-text-'));
  const info = await createIdentity(join(dir, 'data'), { name: 'Ada Auditor', organisation: 'Fair Speech Lab' });
  const identity = loadSigningIdentity(join(dir, 'data'), info.id);
  const original = PDFDocument.prototype.text;
  const originalTable = Layout.prototype.table;
  const spy = vi.spyOn(PDFDocument.prototype, 'text').mockImplementation(function (this: PDFKit.PDFDocument, ...args: unknown[]) {
    if (typeof args[0] === 'string') drawn.push(args[0]);
    return (original as (...a: unknown[]) => PDFKit.PDFDocument).apply(this, args);
  });
  const tableSpy = vi.spyOn(Layout.prototype, 'table').mockImplementation(function (this: Layout, t: ReportTable, size?: number) {
    tables.push(t);
    return originalTable.call(this, t, size);
  });
  try {
    const built = await buildReport(results, { identity, now: new Date('2026-11-29T12:00:00Z') });
    const file = join(dir, 'report.pdf');
    writeFileSync(file, built.pdf);
    text = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
  } finally {
    spy.mockRestore();
    tableSpy.mockRestore();
  }
}, 120_000);

describe('the report text read back', () => {
  it('records what was drawn', () => {
    expect(drawn.length).toBeGreaterThan(200);
    expect(text).toContain('Glossary');
  });

  it('breaks no word mid-word: every word drawn reads back whole as often as it was drawn', () => {
    // Hashes are meant to break anywhere; their hex runs hold no words of 4 letters or more.
    expect(brokenWords(drawn, text)).toEqual([]);
  });

  it('the check finds a word broken across lines', () => {
    expect(brokenWords(['Compared with the reference'], 'Compare\nd with the reference')).toEqual([{ word: 'Compared', drawn: 1, read: 0 }]);
  });

  it('prints no number with more than 6 significant digits', () => {
    expect(significantDigits('0.8619640767605488')).toBe(16);
    expect(overlongNumbers('swept from 0.8619640767605488 to 0.99')).toHaveLength(1);
    expect(overlongNumbers('hash 342d39c5910678ce6 and v20250625 and 0.0095')).toEqual([]);
    expect(overlongNumbers(text)).toEqual([]);
  });

  it('prints every value of a 2-decimal column with 2 decimals, small ones too (issue 34.3: −0.0095 and +0.00022 among 0.42s)', () => {
    expect(offPrecision(['0.42', '−0.05', '+1.25', '0.00', '12.34%', '+0.73 pp', '–', '−0.0095', '+0.00022', '-0.0047', '0.0067', '−0.00', '-0.00'])).toEqual(['−0.0095', '+0.00022', '-0.0047', '0.0067', '−0.00', '-0.00']);
    const fixed = new Set(['num', 'signed', 'pct', 'pp', 'rel']);
    const cells = tables.flatMap((t) =>
      t.columns.flatMap((c, i) => (fixed.has(c.format) && c.decimals === undefined ? t.rows.filter((r) => typeof r[i] === 'number').map((r) => formatCell(r[i]!, c.format)) : [])),
    );
    // The sample holds values below 0.01 in such columns (FDI's FNR 0.0067, SER's mean −0.0047, a grid d of 0.0026).
    expect(tables.length).toBeGreaterThan(20);
    expect(cells.length).toBeGreaterThan(200);
    expect(cells).toContain('0.01');
    expect(offPrecision(cells)).toEqual([]);
    // What was checked is what the PDF drew.
    const drawnSet = new Set(drawn);
    expect(cells.filter((c) => !drawnSet.has(c))).toEqual([]);
  });

  it('defines every all-capitals abbreviation it prints in the glossary', () => {
    const terms = glossaryTerms();
    // Names from the data (groups, models, tests, datasets) are the auditor's words, not the report's.
    const dataNames = [
      ...results.models.map((m) => m.name),
      ...results.datasets.flatMap((d) => [d.name, ...d.groups.flatMap((g) => [g.label, g.value])]),
      ...(results.speat?.tests ?? []).flatMap((t) => [t.name, t.x.value, t.y.value]),
      results.audit.title,
    ];
    let scanned = text;
    for (const n of dataNames) scanned = scanned.split(n).join(' ');
    // SHA-256 fingerprints (AB:CD:…) and roman numerals (DCT-II) are not abbreviations.
    scanned = scanned.replace(/\b(?:[0-9A-F]{2}:){3,}[0-9A-F]{2}\b/g, ' ').replace(/-II\b/g, '');
    const found = new Set([...scanned.matchAll(/(?<![\p{L}\p{N}])([A-Z][A-Z0-9]*[A-Z])(?:-256)?s?(?![\p{L}])/gu)].map((m) => (m[0].startsWith('SHA') ? 'SHA-256' : m[1]!)));
    const fromData = new Set(dataNames.flatMap((n) => n.match(/[A-Z][A-Z0-9]*[A-Z]/g) ?? []));
    const missing = [...found].filter((a) => !terms.has(a) && !fromData.has(a));
    expect(found.size).toBeGreaterThan(10);
    expect(missing).toEqual([]);
  });
});

describe('FDI range and table widths', () => {
  it('FDI never exceeds its stated upper bound (random metrics, 2–6 groups), and a reversed pair reaches the pair bound', () => {
    let state = 7;
    const rand = (): number => ((state = (state * 1664525 + 1013904223) % 4294967296) / 4294967296);
    for (let k = 2; k <= 6; k += 1) {
      let max = 0;
      for (let i = 0; i < 2000; i += 1) {
        const m = [0, 1, 2].map(() => Float64Array.from({ length: k }, () => Math.floor(rand() * 4) / 3));
        max = Math.max(max, fdiFromMetrics(m).fdi);
      }
      expect(max).toBeLessThanOrEqual(fdiUpperBound(k) + 1e-12);
      // Two metrics in opposite order reach both parts' maxima: D = 1 only for 2 groups, R = ⌊k²/2⌋/k always.
      const up = Float64Array.from({ length: k }, (_, g) => g / (k - 1));
      const down = Float64Array.from(up).reverse();
      expect(fdiFromMetrics([up, down]).rankDisagreement).toBeCloseTo(Math.floor((k * k) / 2) / k, 12);
    }
    // Exhaustive search with three metrics over {0, 1/3, 2/3, 1} (python3 with numpy and scipy.stats.rankdata, the definition of METHODS.md § FDI): 2 groups reach 2/3, 3 groups 1.
    expect(fdiUpperBound(2)).toBe(1);
    expect(fdiUpperBound(3)).toBeCloseTo(7 / 6, 12);
    expect(fdiUpperBound(4)).toBe(1.5);
  });

  it('widens a column to its longest word, taking the room from the others', () => {
    const w = fitColumnWidths([100, 100, 100], [150, 20, 20]);
    expect(w.reduce((a, b) => a + b, 0)).toBeCloseTo(300, 9);
    expect(w[0]).toBeGreaterThanOrEqual(105 - 1e-9); // capped at 35% of the table
    expect(w[1]).toBeGreaterThanOrEqual(20);
    expect(fitColumnWidths([50, 50], [10, 10])).toEqual([50, 50]);
    // Needs the page cannot hold: each column gets the same share of its need (here 300/400), not its given width.
    const tight = fitColumnWidths([200, 50, 50], [100, 100, 200]);
    expect(tight.reduce((a, b) => a + b, 0)).toBeCloseTo(300, 9);
    expect(tight.map((x, i) => x / [100, 100, 105][i]!)).toEqual([300 / 305, 300 / 305, 300 / 305].map((v) => expect.closeTo(v, 9)));
  });
});
