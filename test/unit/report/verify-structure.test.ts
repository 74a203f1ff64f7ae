/**
 * `report verify` reads the PDF's structure (issue 23.3): the signature is the /V of the
 * /Sig field reached from the trailer's /Root → /AcroForm → /Fields, never the last
 * "/ByteRange" in the file's text. A genuine report whose title and project name hold
 * "/ByteRange [0 100 200 300]" verifies (it did not: verify read the title's numbers),
 * incremental updates (classic xref table; xref stream with an object stream) are
 * followed and reported as not covered, an unsigned PDF is "not a signed Equivox
 * report", and an invalid file is never judged trusted (`trusted: null`). pdfsig
 * (poppler) is the second opinion throughout.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/main/cli';
import { createIdentity, loadSigningIdentity, type SigningIdentity } from '../../../src/main/identity';
import { buildReport, verifyReport } from '../../../src/main/report';
import { createDocument } from '../../../src/main/report/document';
import { isDict, isRef, PdfDocument, type PdfValue } from '../../../src/main/report/pdf-parse';
import type { ReportVerification } from '../../../src/shared/api/reports';
import type { AuditResults } from '../../../src/shared/results';

const sample = JSON.parse(readFileSync(join(import.meta.dirname, '../../fixtures/report/results.sample.json'), 'utf8')) as AuditResults;
const HOSTILE_TITLE = 'Pilot /ByteRange [0 100 200 300] (audit) \\ /Contents <00>';
const HOSTILE_PROJECT = 'Clinic /Type /Sig /ByteRange [0 1 2 3] /Type /Filespec /F (evil.exe) /EF << /F 1 0 R >>';

const dir = mkdtempSync(join(tmpdir(), 'equivox-verify-structure-'));
const home = join(dir, 'home');
let identity: SigningIdentity;
let pdf: Buffer;
let genuine: string;
let savedHome: string | undefined;

const pdfsig = (file: string): string => {
  const r = spawnSync('pdfsig', [file], { encoding: 'utf8' });
  return `${r.stdout}${r.stderr}`;
};
function write(name: string, bytes: Buffer): string {
  const file = join(dir, name);
  writeFileSync(file, bytes);
  return file;
}
async function verifyCli(file: string, ...flags: string[]): Promise<{ code: number; result: ReportVerification }> {
  let out = '';
  const code = await runCli(['report', 'verify', file, ...flags], { stdout: (s) => (out += s), stderr: () => {} });
  return { code, result: JSON.parse(out) as ReportVerification };
}
const startxrefOf = (bytes: Buffer): number => Number(/startxref\s+(\d+)\s+%%EOF\s*$/.exec(bytes.toString('latin1'))![1]);
const ref = (v: PdfValue | undefined): string => {
  if (!isRef(v)) throw new Error('expected a reference');
  return `${v.num} ${v.gen} R`;
};

beforeAll(async () => {
  savedHome = process.env.EQUIVOX_HOME;
  process.env.EQUIVOX_HOME = home;
  const info = await createIdentity(home, { name: 'Ada Auditor', organisation: 'Fair Speech Lab' });
  identity = loadSigningIdentity(home, info.id);
  const results: AuditResults = { ...sample, audit: { ...sample.audit, title: HOSTILE_TITLE }, project: { ...sample.project, name: HOSTILE_PROJECT } };
  pdf = (await buildReport(results, { identity, now: new Date('2026-12-01T09:00:00Z') })).pdf;
  genuine = write('genuine.pdf', pdf);
}, 60_000);

afterAll(() => {
  if (savedHome === undefined) delete process.env.EQUIVOX_HOME;
  else process.env.EQUIVOX_HOME = savedHome;
});

describe('a genuine report whose title and project name look like PDF syntax', () => {
  it('really carries the look-alike text after the signature dictionary, where a text search would find it', () => {
    const text = pdf.toString('latin1');
    const ranges = [...text.matchAll(/\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/g)];
    expect(ranges.length).toBeGreaterThan(1);
    // The last match, which verify used to read, is the project name's in the Info
    // dictionary's /Subject; the title's is there too, also after the real one.
    expect(ranges.at(-1)!.slice(1).map(Number)).toEqual([0, 1, 2, 3]);
    const title = ranges.find((r) => r.slice(1).map(Number).join(' ') === '0 100 200 300')!;
    expect(text.indexOf('/Type /Sig')).toBeLessThan(title.index);
  });

  it('pdfsig: valid, whole document signed', () => {
    const out = pdfsig(genuine);
    expect(out).toContain('Signature is Valid.');
    expect(out).toContain('Total document signed');
  });

  it('verify: valid, the whole file covered, only the real attachment, trusted; the CLI exits 0', async () => {
    expect(verifyReport(pdf)).toMatchObject({ valid: true, signed: true, coversWholeFile: true, signer: 'Ada Auditor, Fair Speech Lab', subFilter: 'ETSI.CAdES.detached', signedAt: '2026-12-01T09:00:00.000Z', problems: [] });
    // The real attachments (results, report data, statement), each matching the signed statement; nothing from the title's fake /Filespec.
    const attachments = verifyReport(pdf).attachments;
    expect(attachments.map((a) => a.name)).toContain('results.json');
    expect(attachments.map((a) => a.name)).toContain('report.statement.json');
    expect(attachments.map((a) => a.name)).not.toContain('evil.exe');
    expect(attachments.filter((a) => a.name !== 'report.statement.json').every((a) => a.matchesStatement === true)).toBe(true);
    const v = await verifyCli(genuine, '--require-trusted');
    expect(v.code).toBe(0);
    expect(v.result).toMatchObject({ valid: true, trusted: true, trustNote: null });
  });
});

describe('an edited report is not valid, and its signer is not judged', () => {
  it('a changed byte of page content: valid false, trusted null, no trust note; exit 1, also with --require-trusted', async () => {
    const bytes = Buffer.from(pdf);
    const at = bytes.indexOf('stream\n') + 60;
    bytes[at] = bytes[at]! ^ 0x20;
    const file = write('edited.pdf', bytes);
    expect(pdfsig(file)).not.toContain('Signature is Valid.');
    for (const flags of [[], ['--require-trusted']]) {
      const v = await verifyCli(file, ...flags);
      expect(v.code).toBe(1);
      expect(v.result).toMatchObject({ valid: false, signed: true, trusted: null, trustNote: null, fingerprint: identity.info.fingerprint });
      expect(v.result.problems).toContain('the document digest does not match the signed digest (the file was changed)');
    }
  });
});

describe('incremental updates are followed through the cross-reference chain', () => {
  it('a classic xref section that changes the title: read, and the signature does not cover it', async () => {
    const prev = startxrefOf(pdf);
    const body = `\n200 0 obj\n<< /Title (Changed after signing) >>\nendobj\n`;
    const objAt = pdf.length + 1;
    const xrefAt = pdf.length + body.length;
    const tail = `xref\n200 1\n${String(objAt).padStart(10, '0')} 00000 n \ntrailer\n<< /Size 201 /Root 3 0 R /Info 200 0 R /Prev ${prev} >>\nstartxref\n${xrefAt}\n%%EOF\n`;
    const updated = Buffer.concat([pdf, Buffer.from(body + tail, 'latin1')]);
    const file = write('updated-table.pdf', updated);
    expect(new PdfDocument(updated).sections).toBe(2);
    const sig = pdfsig(file);
    expect(sig).toContain('Signature is Valid.'); // what was signed is intact…
    expect(sig).not.toContain('Total document signed'); // …but it is not the whole file
    const v = await verifyCli(file);
    expect(v.code).toBe(1);
    expect(v.result).toMatchObject({ valid: false, signed: true, coversWholeFile: false, trusted: null });
    expect(v.result.problems).toContain('the signed byte range does not cover the whole file except the signature');
  });

  it('an xref stream (PNG predictor) whose new catalog lives in an object stream: read, its attachments listed, not covered', async () => {
    const doc = new PdfDocument(pdf);
    const root = doc.resolve(doc.trailer.entries.get('Root'));
    if (!isDict(root)) throw new Error('no catalog');
    const [S, E, C, N, F, X] = [300, 301, 302, 303, 304, 305];
    const objects = [
      [C, `<< /Type /Catalog /Pages ${ref(root.entries.get('Pages'))} /AcroForm ${ref(root.entries.get('AcroForm'))} /Names ${N} 0 R >>`],
      [N, `<< /EmbeddedFiles << /Names [(changed.json) ${F} 0 R] >> >>`],
      [F, `<< /Type /Filespec /F (changed.json) /EF << /F ${E} 0 R >> >>`],
    ] as const;
    let header = '';
    let payload = '';
    for (const [num, text] of objects) {
      header += `${num} ${payload.length} `;
      payload += `${text}\n`;
    }
    const objStm = deflateSync(Buffer.from(header + payload, 'latin1'));
    const file = Buffer.from('{"changed":true}\n');
    const parts: Buffer[] = [pdf];
    let length = pdf.length;
    const offsets = new Map<number, number>();
    const push = (num: number, b: Buffer): void => {
      offsets.set(num, length + 1);
      const chunk = Buffer.concat([Buffer.from(`\n${num} 0 obj\n`), b, Buffer.from('\nendobj\n')]);
      parts.push(chunk);
      length += chunk.length;
    };
    push(S, Buffer.concat([Buffer.from(`<< /Type /ObjStm /N ${objects.length} /First ${header.length} /Filter /FlateDecode /Length ${objStm.length} >>\nstream\n`), objStm, Buffer.from('\nendstream')]));
    push(E, Buffer.concat([Buffer.from(`<< /Type /EmbeddedFile /Length ${file.length} >>\nstream\n`), file, Buffer.from('\nendstream')]));
    // Rows of W [1 4 2]: type, offset or object stream number, generation or index.
    offsets.set(X, length + 1);
    const rows: [number, number, number][] = [
      [1, offsets.get(S)!, 0],
      [1, offsets.get(E)!, 0],
      ...objects.map((_o, i) => [2, S, i] as [number, number, number]),
      [1, offsets.get(X)!, 0],
    ];
    const raw = rows.map(([t, a, b]) => {
      const r = Buffer.alloc(7);
      r.writeUInt8(t, 0);
      r.writeUInt32BE(a, 1);
      r.writeUInt16BE(b, 5);
      return r;
    });
    // PNG "Up" predictor (type 2) on each 7-byte row, as PDF writers commonly do.
    const predicted = Buffer.concat(raw.map((r, i) => Buffer.concat([Buffer.from([2]), Buffer.from(r.map((x, k) => (x - (i > 0 ? raw[i - 1]![k]! : 0)) & 0xff))])));
    const xs = deflateSync(predicted);
    const dict = `<< /Type /XRef /Size ${X + 1} /Root ${C} 0 R /Prev ${startxrefOf(pdf)} /W [1 4 2] /Index [${S} 2 ${C} 3 ${X} 1] /Filter /FlateDecode /DecodeParms << /Predictor 12 /Columns 7 >> /Length ${xs.length} >>`;
    push(X, Buffer.concat([Buffer.from(`${dict}\nstream\n`), xs, Buffer.from('\nendstream')]));
    parts.push(Buffer.from(`startxref\n${offsets.get(X)}\n%%EOF\n`));
    const updated = Buffer.concat(parts);
    const out = write('updated-xref-stream.pdf', updated);

    const sig = pdfsig(out);
    expect(sig).toContain('Signature is Valid.');
    expect(sig).not.toContain('Total document signed');
    const v = verifyReport(updated);
    // The attachment list comes from the new catalog, which only the object stream holds.
    expect(v.attachments).toEqual([{ name: 'changed.json', size: file.length, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) }]);
    expect(v).toMatchObject({ valid: false, signed: true, coversWholeFile: false });
  });

  it('a /Prev that points back at itself ends (no hang) and the file is reported, not thrown', () => {
    const xrefAt = pdf.length;
    const tail = `xref\n0 1\n0000000000 65535 f \ntrailer\n<< /Size 1 /Root 3 0 R /Prev ${xrefAt} >>\nstartxref\n${xrefAt}\n%%EOF\n`;
    const v = verifyReport(Buffer.concat([pdf, Buffer.from(tail)]));
    expect(v).toMatchObject({ valid: false, coversWholeFile: false });
  });
});

describe('PDFs that are not signed Equivox reports', () => {
  it('the same report without its signature: "not a signed Equivox report", signed false, trusted null; exit 1', async () => {
    const doc = createDocument(sample, { auditor: 'Ada', organisation: 'Lab', now: new Date(), signerName: 'Ada, Lab', fingerprint: identity.info.fingerprint, keyProtection: 'passphrase-file' });
    const chunks: Buffer[] = [];
    doc.on('data', (c: Buffer) => chunks.push(c));
    const done = new Promise((r) => doc.on('end', r));
    doc.end();
    await done;
    const file = write('unsigned.pdf', Buffer.concat(chunks));
    expect(pdfsig(file)).toMatch(/does not contain any signatures/);
    const v = await verifyCli(file);
    expect(v.code).toBe(1);
    expect(v.result).toMatchObject({ valid: false, signed: false, trusted: null, fingerprint: null, signer: null });
    expect(v.result.problems).toEqual([expect.stringMatching(/^not a signed Equivox report: the PDF has no signature field/)]);
  }, 30_000);

  it('a file that is not a PDF at all: signed null, with the reason', () => {
    const v = verifyReport(Buffer.from('%PDF-1.7\nnot really\n'));
    expect(v).toMatchObject({ valid: false, signed: null, trusted: null });
    expect(v.problems).toEqual([expect.stringMatching(/^not a signed Equivox report: the file cannot be read as a PDF \(no "startxref"/)]);
  });
});
