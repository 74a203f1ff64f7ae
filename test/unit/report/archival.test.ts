/**
 * PDF/A-3b (issue 24 item 1): the ISO 19005-3 requirements that can be checked without
 * veraPDF (not packaged for npm or Debian): every font embedded (pdffonts), XMP metadata
 * with pdfaid part 3 / conformance B matching the information dictionary (pdfinfo -meta,
 * parsed as XML by Python), an sRGB output intent, no transparency, no JavaScript, no
 * encryption, printable annotations, associated files with relationship and MIME type; and
 * the signature still covers the whole file (pdfsig).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AuditResults } from '../../../src/shared/results';
import { createIdentity, loadSigningIdentity } from '../../../src/main/identity';
import { buildReport } from '../../../src/main/report';
import { flattenSvgOpacity } from '../../../src/main/report/flatten-opacity';
import { isDict, isStream, nameOf, PdfDocument, type PdfDict, type PdfStream, type PdfValue } from '../../../src/main/report/pdf-parse';

const base = JSON.parse(readFileSync(join(__dirname, '../../fixtures/report/results.sample.json'), 'utf8')) as AuditResults;
// Characters XML must escape, in the title that goes into the XMP.
const results: AuditResults = { ...base, audit: { ...base.audit, title: 'Accents & dialects <pilot> "A"' } };

let dir: string;
let pdfPath: string;
let pdf: Buffer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'equivox-pdfa-'));
  const info = await createIdentity(join(dir, 'data'), { name: 'Ada Auditor', organisation: 'Fair Speech Lab' });
  pdf = (await buildReport(results, { identity: loadSigningIdentity(join(dir, 'data'), info.id), now: new Date('2026-11-29T12:00:00Z') })).pdf;
  pdfPath = join(dir, 'report.pdf');
  writeFileSync(pdfPath, pdf);
});

const run = (cmd: string, args: string[]): string => {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  return `${r.stdout}${r.stderr}`;
};

/** Every object's dictionary text and every decoded stream: where transparency or JavaScript would be named. */
function allObjectsText(bytes: Buffer): string {
  const parts: string[] = [bytes.toString('latin1')];
  const text = bytes.toString('latin1');
  for (const m of text.matchAll(/\/Filter \/FlateDecode\n>>\nstream\n/g)) {
    const start = m.index! + m[0].length;
    const end = text.indexOf('\nendstream', start);
    try {
      parts.push(inflateSync(bytes.subarray(start, end)).toString('latin1'));
    } catch {
      // Not every stream ends exactly before "\nendstream"; the dictionaries are in the raw text anyway.
    }
  }
  return parts.join('\n');
}

describe('PDF/A-3b report', () => {
  it('embeds every font (pdffonts)', () => {
    const rows = run('pdffonts', [pdfPath]).trim().split('\n').slice(2);
    expect(rows.length).toBeGreaterThanOrEqual(2);
    for (const row of rows) expect(row.split(/\s+/).slice(-5, -4)[0], row).toBe('yes');
  });

  it('has XMP metadata that parses as XML, with pdfaid part 3 / B and the information dictionary’s values', () => {
    const meta = run('pdfinfo', ['-meta', pdfPath]);
    const info = run('pdfinfo', [pdfPath]);
    expect(info).toMatch(/Metadata Stream:\s+yes/);
    expect(info).toMatch(/Encrypted:\s+no/);
    expect(info).toMatch(/JavaScript:\s+no/);
    const py = `
import sys, xml.etree.ElementTree as ET
root = ET.fromstring(sys.stdin.read().strip())
ns = {'rdf': 'http://www.w3.org/1999/02/22-rdf-syntax-ns#', 'dc': 'http://purl.org/dc/elements/1.1/', 'pdfaid': 'http://www.aiim.org/pdfa/ns/id/', 'xmp': 'http://ns.adobe.com/xap/1.0/', 'pdf': 'http://ns.adobe.com/pdf/1.3/'}
f = lambda p: root.find('.//' + p, ns).text
print('\\n'.join([f('pdfaid:part'), f('pdfaid:conformance'), f('dc:title/rdf:Alt/rdf:li'), f('dc:creator/rdf:Seq/rdf:li'), f('dc:identifier'), f('xmp:CreateDate'), f('xmp:ModifyDate'), f('pdf:Producer'), f('dc:language/rdf:Bag/rdf:li')]))
`;
    const fields = execFileSync('python3', ['-c', py], { input: meta, encoding: 'utf8' }).trim().split('\n');
    const infoField = (k: string): string => new RegExp(`^${k}:\\s+(.*)$`, 'm').exec(info)![1]!;
    expect(fields).toEqual(['3', 'B', infoField('Title'), infoField('Author'), `equivox:audit:${results.audit.id}`, '2026-11-29T12:00:00Z', '2026-11-29T12:00:00Z', infoField('Producer'), 'en-GB']);
    expect(fields[2]).toBe('Accents & dialects <pilot> "A": bias audit report');
  });

  it('has an sRGB output intent, printable annotations and associated files with relationship and MIME type (catalog walk)', () => {
    const doc = new PdfDocument(pdf);
    const root = doc.resolve(doc.trailer.entries.get('Root')) as PdfDict;
    const intents = doc.resolve(root.entries.get('OutputIntents'));
    expect(Array.isArray(intents)).toBe(true);
    const intent = doc.resolve((intents as PdfValue[])[0]) as PdfDict;
    expect(nameOf(intent.entries.get('S'))).toBe('GTS_PDFA1');
    const profile = doc.resolve(intent.entries.get('DestOutputProfile'));
    expect(isStream(profile)).toBe(true);
    const icc = doc.decode(profile as PdfStream);
    // An ICC profile: "acsp" at byte 36, RGB data colour space at 16.
    expect(icc.subarray(36, 40).toString('latin1')).toBe('acsp');
    expect(icc.subarray(16, 20).toString('latin1')).toBe('RGB ');
    const af = doc.resolve(root.entries.get('AF')) as PdfValue[];
    expect(af.length).toBeGreaterThan(10);
    for (const ref of af) {
      const spec = doc.resolve(ref) as PdfDict;
      expect(['Data', 'Supplement', 'Source']).toContain(nameOf(spec.entries.get('AFRelationship')));
      const ef = doc.resolve(spec.entries.get('EF'));
      expect(isDict(ef)).toBe(true);
      const file = doc.resolve((ef as PdfDict).entries.get('F'));
      expect(isStream(file)).toBe(true);
      const sub = nameOf((file as PdfStream).dict.entries.get('Subtype'));
      // definitions.md is text/markdown (RFC 7763).
      expect(['text/csv', 'application/json', 'text/markdown']).toContain(sub);
      const params = doc.resolve((file as PdfStream).dict.entries.get('Params')) as PdfDict;
      expect(params.entries.has('ModDate')).toBe(true);
    }
    const text = pdf.toString('latin1');
    const annots = [...text.matchAll(/\/Type \/Annot\n([\s\S]*?)>>\nendobj/g)];
    expect(annots.length).toBeGreaterThan(0);
    for (const a of annots) expect(Number(/\/F (\d+)/.exec(a[1]!)?.[1]) & 0b100111, a[1]).toBe(4);
  });

  it('uses no transparency (no soft masks, groups or alpha below 1) and no JavaScript', () => {
    const all = allObjectsText(pdf);
    expect(all).not.toMatch(/\/SMask|\/S \/Transparency|\/Group\b/);
    const alphas = [...all.matchAll(/\/(?:ca|CA) ([\d.]+)/g)].map((m) => Number(m[1]));
    expect(alphas.every((a) => a === 1)).toBe(true);
    expect(all).not.toMatch(/\/JavaScript|\/JS\b/);
    expect(all).not.toMatch(/\/Encrypt\b/);
  });

  it('is still signed over the whole file (pdfsig)', () => {
    const out = run('pdfsig', [pdfPath]);
    expect(out).toContain('Signature is Valid.');
    expect(out).toContain('Total document signed');
  });
});

describe('flattenSvgOpacity', () => {
  it('replaces translucent colours by what they show over white, and drops clip paths', () => {
    // #1f77b4 at 0.5 over white: (31+255)/2, (119+255)/2, (180+255)/2 = 143, 187, 217.5 → 8f bb da (rounded half up)
    const svg = '<svg><g clip-path="url(#c)"><rect fill="#1f77b4" fill-opacity="0.5"/><path stroke="rgba(0,0,0,0.25)" fill="none"/><circle fill="#fff" opacity="0.2"/></g></svg>';
    const out = flattenSvgOpacity(svg);
    expect(out).toBe('<svg><g><rect fill="#8fbbda"/><path stroke="#bfbfbf" fill="none"/><circle fill="#ffffff"/></g></svg>');
  });
});
