/**
 * A group name holding a right-to-left override (U+202E) or another invisible character
 * cannot reorder what a reader of the signed report or of the CSV exports sees (issue
 * 23, item 7): both show the character written out as "<U+202E>". Checked by reading
 * the built PDF with poppler (pdftotext, pdfinfo) and the exported CSVs with the CSV
 * parser; the set of characters escaped is checked against Python's unicodedata.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseCsvRecords } from '../../../src/main/data/csv';
import { createIdentity, loadSigningIdentity } from '../../../src/main/identity';
import { buildReport, verifyReport, writeExports } from '../../../src/main/report';
import type { AuditResults } from '../../../src/shared/results';
import { invisibleCharacters, showInvisible } from '../../../src/shared/visible-text';

const RLO = '\u202E';
const GROUP = `fe${RLO}elam`; // shown raw, a reader would see "female"
const SHOWN = 'fe<U+202E>elam';
/** Every bidi control: none may reach the output raw. */
const BIDI = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;

const dir = mkdtempSync(join(tmpdir(), 'equivox-bidi-'));
let results: AuditResults;
let pdfFile: string;

beforeAll(async () => {
  const sample = readFileSync(join(import.meta.dirname, '../../fixtures/report/results.sample.json'), 'utf8');
  expect(sample).toContain('"female"');
  results = JSON.parse(sample.replaceAll('"female"', JSON.stringify(GROUP))) as AuditResults;
  results.audit = { ...results.audit, title: `Pilot ${RLO}tiduA` };
  // Comparisons go by their name everywhere (issue 34.2), the chart's axis included: name the group's comparison after it.
  for (const t of results.speat!.tests) if (t.x.value === GROUP) t.name = `${GROUP} vs ${t.y.value}`;
  const info = await createIdentity(join(dir, 'data'), { name: 'Ada Auditor', organisation: 'Lab' });
  const identity = loadSigningIdentity(join(dir, 'data'), info.id);
  // The report's --auditor override is free text too.
  const { pdf } = await buildReport(results, { identity, auditor: `Ann ${RLO}x`, now: new Date('2026-12-01T10:00:00Z') });
  pdfFile = join(dir, 'report.pdf');
  writeFileSync(pdfFile, pdf);
}, 60_000);

describe('the PDF', () => {
  it('pdftotext finds the group name written out, in tables, sentences and charts, and no bidi control', () => {
    const text = execFileSync('pdftotext', [pdfFile, '-'], { encoding: 'utf8' });
    expect(text).not.toMatch(BIDI);
    expect(text.split(SHOWN).length - 1).toBeGreaterThanOrEqual(4);
    // The SpEAT effect chart's axis label (drawn from SVG, not by PDFKit's text()).
    expect(text).toContain(`${SHOWN} vs male`);
    expect(text).toContain('Ann <U+202E>x');
    expect(text).toContain('Pilot <U+202E>tiduA');
  });

  it('the Info dictionary (the viewer’s title bar) shows it written out too', () => {
    const info = execFileSync('pdfinfo', [pdfFile], { encoding: 'utf8' });
    expect(info).toMatch(/^Title: +Pilot <U\+202E>tiduA: bias audit report$/m);
    expect(info).toMatch(/^Author: +Ann <U\+202E>x, Lab$/m);
    expect(info).not.toMatch(BIDI);
  });

  it('is still a valid signed report', () => {
    expect(verifyReport(readFileSync(pdfFile))).toMatchObject({ valid: true, coversWholeFile: true });
  });
});

describe('the CSV exports', () => {
  it('every cell that names the group shows "<U+202E>", none holds a bidi control', () => {
    const files = writeExports(results, join(dir, 'exports')).filter((f) => f.endsWith('.csv'));
    let seen = 0;
    for (const f of files) {
      const raw = readFileSync(f, 'utf8');
      expect(raw, f).not.toMatch(BIDI);
      for (const r of parseCsvRecords(raw)) for (const cell of r.fields) if (cell.includes(SHOWN)) seen += 1;
    }
    expect(seen).toBeGreaterThan(0);
  });
});

describe('showInvisible and invisibleCharacters', () => {
  it('escape exactly the control, format, line- and paragraph-separator characters (but ZWNJ, ZWJ; tab and line breaks kept in text)', () => {
    // Reference: Python 3.11's unicodedata (Unicode 14.0):
    //   python3 -c "import unicodedata as u; print(' '.join('%X' % c for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF and u.category(chr(c)) in ('Cc','Cf','Zl','Zp')))"
    // Node's ICU knows a newer Unicode; code points unassigned (Cn) in 14.0 may differ.
    const py = execFileSync('python3', ['-c', "import unicodedata as u; print(' '.join('%X' % c for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF and u.category(chr(c)) in ('Cc','Cf','Zl','Zp')))"], { encoding: 'utf8' });
    const expected = new Set(py.trim().split(' ').map((h) => parseInt(h, 16)));
    for (const keep of [0x200c, 0x200d]) expected.delete(keep);
    const actual = new Set<number>();
    for (let cp = 0; cp < 0x110000; cp += 1) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      if (invisibleCharacters(String.fromCodePoint(cp)).length > 0) actual.add(cp);
    }
    const differ = [...new Set([...expected, ...actual])].filter((cp) => expected.has(cp) !== actual.has(cp));
    // Any difference must be a code point that Unicode 14.0 had not assigned yet.
    const categories = differ.length === 0 ? '' : execFileSync('python3', ['-c', `import unicodedata as u; print(' '.join(u.category(chr(c)) for c in [${differ.join(',')}]))`], { encoding: 'utf8' }).trim();
    expect(categories.split(' ').filter((c) => c !== '' && c !== 'Cn')).toEqual([]);
    expect(actual.has(0x202e) && actual.has(0x2066) && actual.has(0x200e) && actual.has(0x061c) && actual.has(0xfeff) && actual.has(0xe0001)).toBe(true);
    for (const cp of actual) {
      const ch = String.fromCodePoint(cp);
      expect(showInvisible(ch)).toBe(ch === '\t' || ch === '\n' || ch === '\r' ? ch : `<U+${cp.toString(16).toUpperCase().padStart(4, '0')}>`);
    }
  });

  it('leave every other text as it is, and applying twice changes nothing more', () => {
    for (const s of ['Zoë Ångström', 'שלום', 'می\u200Cخواهم', 'a\tb\nc', '张伟 👩‍💻']) expect(showInvisible(s)).toBe(s);
    const once = showInvisible(`x${RLO}y\u2067z`);
    expect(once).toBe('x<U+202E>y<U+2067>z');
    expect(showInvisible(once)).toBe(once);
    expect(invisibleCharacters(`a${RLO}b${RLO}\u200B`)).toEqual(['U+202E', 'U+200B']);
  });
});
