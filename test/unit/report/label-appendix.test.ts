/**
 * The report's appendix says how each dataset's labels were made one (issue 32.5): the
 * spellings that differed only in case, spaces or invisible characters with their counts
 * and the auditor's decision, and the labels unified without asking. The record is made
 * by the real label check on the variants spreadsheet (test/fixtures/data/label-variants.ts)
 * with an auditor's choices, put on the sample results' first dataset, and read back from
 * the signed PDF with poppler's pdftotext.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSourceLabels } from '../../../src/main/data/import';
import { loadSource } from '../../../src/main/data/sources';
import { createIdentity, loadSigningIdentity } from '../../../src/main/identity';
import { buildReport } from '../../../src/main/report';
import type { AuditResults } from '../../../src/shared/results';
import { writeVariantManifest, ZWSP } from '../../fixtures/data/label-variants';

const sample = JSON.parse(readFileSync(join(__dirname, '../../fixtures/report/results.sample.json'), 'utf8')) as AuditResults;
let dir: string;
let text: string;
let plain: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'equivox-label-appendix-'));
  const { file } = writeVariantManifest(join(dir, 'sheet'));
  const { record } = checkSourceLabels(null, loadSource({ kind: 'manifest', manifest: file }), {
    role: 'target',
    labelChoices: [
      { column: 'gender', spellings: ['Female', 'female'], into: 'Female' },
      { column: 'speaker', spellings: ['spk1', 'SPK1', `spk${ZWSP}1`], keep: true },
    ],
  }, { path: 'path', speaker: 'speaker', groups: ['gender'], ignore: [] });
  const results: AuditResults = { ...sample, datasets: sample.datasets.map((d, i) => (i === 0 ? { ...d, labels: record } : d)) };
  const info = await createIdentity(join(dir, 'data'), { name: 'Ada Auditor', organisation: 'Fair Speech Lab' });
  const built = await buildReport(results, { identity: loadSigningIdentity(join(dir, 'data'), info.id), now: new Date('2026-12-05T12:00:00Z') });
  writeFileSync(join(dir, 'report.pdf'), built.pdf);
  text = execFileSync('pdftotext', ['-layout', join(dir, 'report.pdf'), '-'], { encoding: 'utf8' });
  // Cells wrap in the table: compare with white space collapsed.
  plain = text.replace(/\s+/g, ' ');
  // Results without a record (no dataset had anything to decide, or written before labels were checked) print no such table.
  writeFileSync(join(dir, 'sample.pdf'), (await buildReport(sample, { identity: loadSigningIdentity(join(dir, 'data'), info.id), now: new Date('2026-12-05T12:00:00Z') })).pdf);
  expect(execFileSync('pdftotext', [join(dir, 'sample.pdf'), '-'], { encoding: 'utf8' })).not.toContain('differed only in case');
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the appendix on labels', () => {
  it('lists each set with its counts and the auditor’s decision, invisible characters written out', () => {
    const name = sample.datasets[0]!.name;
    expect(plain).toContain('Labels that differed only in case, spaces or invisible characters, as the auditor decided before import');
    expect(plain).toMatch(new RegExp(`${name} gender “Female” \\(20\\), “female” \\(4\\) one label, written “Female”`));
    // The spellings cell wraps, so its last spelling follows the decision in the text.
    expect(plain).toMatch(new RegExp(`${name} speaker \\(speaker\\) “spk1” \\(2\\), “SPK1” \\(1\\),( kept apart)? “spk<U\\+200B>1” \\(1\\)( kept apart)?`));
    // Once, in this table (WER's method sentence says the LR statistic compares "merged against kept apart").
    expect(plain.match(/(?<!merged against )kept apart/g)).toHaveLength(1);
    expect(text).not.toContain(ZWSP);
  });

  it('says what was unified without asking', () => {
    expect(plain).toContain(`${sample.datasets[0]!.name}: 2 labels written in more than one way (accents as separate marks, spaces at the ends) made the same without asking, as Unicode NFC and trimming do.`);
  });
});
