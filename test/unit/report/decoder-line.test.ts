/**
 * The report's appendix names the ffmpeg that decoded the audio (results.environment.decoder):
 * source, version and SHA-256, read back from the signed PDF with poppler's pdftotext.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AuditResults } from '../../../src/shared/results';
import { decoderFacts, resolveFfmpeg } from '../../../src/main/ffmpeg';
import { createIdentity, loadSigningIdentity, type SigningIdentity } from '../../../src/main/identity';
import { buildReport } from '../../../src/main/report';
import { decoderText } from '../../../src/main/report/document';

const sample = JSON.parse(readFileSync(join(__dirname, '../../fixtures/report/results.sample.json'), 'utf8')) as AuditResults;
let dir: string;
let identity: SigningIdentity;

async function reportText(results: AuditResults, name: string): Promise<string> {
  const built = await buildReport(results, { identity, now: new Date('2026-12-01T12:00:00Z') });
  const file = join(dir, name);
  writeFileSync(file, built.pdf);
  return execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'equivox-decoder-line-'));
  const info = await createIdentity(join(dir, 'data'), { name: 'Ada Auditor', organisation: 'Fair Speech Lab' });
  identity = loadSigningIdentity(join(dir, 'data'), info.id);
});

describe('the report names the decoder', () => {
  it('prints the bundled ffmpeg’s version, where it came from and its SHA-256', async () => {
    const decoder = decoderFacts(resolveFfmpeg({ env: { PATH: '' } }))!;
    expect(decoder.source).toBe('bundled');
    const text = await reportText({ ...sample, environment: { ...sample.environment, decoder } }, 'bundled.pdf');
    const line = text.split('\n').find((l) => l.includes('Audio decoder'));
    expect(line).toContain(`Audio decoder`);
    expect(decoder.package).toMatch(/^(ffmpeg-static|@ffmpeg-installer\/\S+) \d+\.\d+\.\d+$/);
    expect(line).toContain(`ffmpeg ${decoder.version} (bundled with Equivox, from`);
    // The package name may wrap onto the next line: compare without white space.
    expect(text.replace(/\s+/g, '')).toContain(`(bundledwithEquivox,from${decoder.package!.replace(/\s+/g, '')})`);
    // A 64-digit hash may wrap: compare without white space.
    expect(text.replace(/\s+/g, '')).toContain(`SHA-256${decoder.sha256}`);
  });

  it('says so when no ffmpeg was found, and prints no line for results written before the decoder was recorded', async () => {
    expect(decoderText(null)).toBe('none found: only WAV files read in process');
    expect(decoderText({ source: 'EQUIVOX_FFMPEG', version: '5.1.8-0+deb12u1', sha256: 'ab'.repeat(32) })).toBe(`ffmpeg 5.1.8-0+deb12u1 (named by EQUIVOX_FFMPEG), SHA-256 ${'ab'.repeat(32)}`);
    const none = await reportText({ ...sample, environment: { ...sample.environment, decoder: null } }, 'none.pdf');
    expect(none).toMatch(/Audio decoder\s+none found: only WAV files read in process/);
    const older = await reportText(sample, 'older.pdf');
    expect(older).not.toContain('Audio decoder');
    expect(older).toContain('ONNX Runtime');
  });
});
