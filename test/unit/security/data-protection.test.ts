/**
 * Reports and exports never embed audio; logs never carry transcripts.
 *
 * - A signed report built from the fixture results: no audio signature in the PDF (its
 *   compressed streams and attachments included), the statement or the exports.
 * - A manifest whose transcript is a distinctive phrase, imported through the CLI: the
 *   phrase is stored in the clips table (so the check below can fail) but appears
 *   neither in the project's event log nor in the CLI's stderr progress lines.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi, type Api } from '../../../src/main/api';
import { createEngine, type Engine } from '../../../src/main/engine';
import { writeWav } from '../../fixtures/data/make-audio';
import { audioMagicIn } from '../../support/audio-magic';

const repo = resolve(import.meta.dirname, '..', '..', '..');

describe('the audio detector (positive control)', () => {
  it('finds a WAV raw, in base64 and inside a Flate-compressed PDF stream', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'equivox-magic-'));
    const wav = readFileSync(writeWav(join(dir, 'a.wav'), new Float32Array(1600).fill(0.1)));
    expect(audioMagicIn(wav)).not.toEqual([]);
    expect(audioMagicIn(Buffer.from(JSON.stringify({ audio: wav.toString('base64') })))).not.toEqual([]);
    const { deflateSync } = await import('node:zlib');
    const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n1 0 obj\n<< /Filter /FlateDecode >>\nstream\n'), deflateSync(wav), Buffer.from('\nendstream\nendobj\n')]);
    expect(wav.includes(Buffer.from('WAVEfmt '))).toBe(true);
    expect(pdf.includes(Buffer.from('WAVEfmt '))).toBe(false);
    expect(audioMagicIn(pdf)).not.toEqual([]);
  });
});

describe('reports and exports', () => {
  let engine: Engine;
  let api: Api;
  beforeAll(() => {
    engine = createEngine({ host: 'test', dataDir: mkdtempSync(join(tmpdir(), 'equivox-dp-home-')) });
    api = createApi(engine);
  });
  afterAll(() => engine.close());

  it('embed no audio', async () => {
    const identity = await api.invoke('identities.create', { name: 'Ada Auditor', organisation: 'Equivox tests', passphrase: 'a long passphrase' });
    const out = join(mkdtempSync(join(tmpdir(), 'equivox-dp-report-')), 'report.pdf');
    const built = await api.invoke('reports.build', {
      resultsPath: join(repo, 'test', 'fixtures', 'report', 'results.sample.json'),
      out,
      identityId: identity.id,
      passphrase: 'a long passphrase',
    });
    const files = [built.path, built.statementPath, ...readdirSync(built.exportsDir).map((f) => join(built.exportsDir, f))];
    expect(files.length).toBeGreaterThan(3);
    for (const f of files) expect(audioMagicIn(readFileSync(f)), f).toEqual([]);
    const verified = await api.invoke('reports.verify', { path: built.path });
    for (const a of verified.attachments) expect(a.name, 'attachment name').not.toMatch(/\.(wav|opus|ogg|flac|mp3|m4a|webm)$/i);
  });
});

describe('logs', () => {
  const PHRASE = 'zebra quokka marmalade seven four three one';

  it('carry no transcript: not in the event log, not on stderr', () => {
    const work = mkdtempSync(join(tmpdir(), 'equivox-dp-import-'));
    const home = join(work, 'home');
    writeWav(join(work, 'data', 'a.wav'), new Float32Array(16000).map((_, i) => 0.3 * Math.sin(i / 5)));
    writeWav(join(work, 'data', 'b.wav'), new Float32Array(16000).map((_, i) => 0.3 * Math.sin(i / 7)));
    const manifest = join(work, 'data', 'manifest.csv');
    writeFileSync(manifest, `path,speaker,accent,transcript\na.wav,s1,us,${PHRASE}\nb.wav,s2,uk,${PHRASE} again\n`);
    const cli = (...args: string[]) =>
      spawnSync(process.execPath, ['--import', 'tsx', 'src/main/cli.ts', ...args], { cwd: repo, encoding: 'utf8', env: { ...process.env, EQUIVOX_HOME: home }, timeout: 120_000 });

    const created = cli('projects', 'create', '--name', 'Transcript check', '--dir', join(work, 'project'));
    expect(created.status, created.stderr).toBe(0);
    const imported = cli('datasets', 'import', '--project', join(work, 'project'), '--manifest', manifest, '--role', 'asr', '--map', 'path=path,speaker=speaker,accent=group,transcript=transcript');
    expect(imported.status, imported.stderr).toBe(0);
    expect(JSON.parse(imported.stdout)).toMatchObject({ imported: 2 });

    const db = new Database(join(work, 'project', 'project.sqlite'), { readonly: true });
    const stored = db.prepare('SELECT transcript FROM clips').all() as { transcript: string | null }[];
    const events = (db.prepare('SELECT kind, detail_json FROM events').all() as { kind: string; detail_json: string }[]).map((e) => `${e.kind} ${e.detail_json}`).join('\n');
    db.close();
    // The transcripts are in the database, where they belong...
    expect(stored.map((r) => r.transcript)).toContain(PHRASE);
    expect(events).toMatch(/\S/);
    // ...and nowhere in the logs.
    for (const word of ['quokka', 'marmalade']) {
      expect(events, 'event log').not.toContain(word);
      expect(imported.stderr + created.stderr, 'stderr').not.toContain(word);
    }
  });
});
