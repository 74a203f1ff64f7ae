/**
 * Per-clip durations inside the report (issue 34.6): the WER utterances' and the verification
 * trials' recordings, with the durations the store holds from import, attached like the SpEAT
 * stimuli's (covered by the signed statement and the in-toto attestation, written beside the
 * report, listed by `report extract`). The sections come from the real pipeline (runWer,
 * runFdi) on a fixture project whose clips carry distinct durations; the report is built,
 * extracted, and the files read back are compared with the store's clips.
 * The verify screen's count of the attachments' kinds is checked against the same report.
 */
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type Database from 'better-sqlite3';
import type { AuditResults } from '../../../src/shared/results';
import { createIdentity, loadSigningIdentity } from '../../../src/main/identity';
import { buildReport, INTOTO_ATTACHMENT, writeExports, type DsseEnvelope, type InTotoStatement } from '../../../src/main/report';
import { extractReport } from '../../../src/main/report/extract';
import { FDI_DURATIONS_ATTACHMENT, WER_DURATIONS_ATTACHMENT } from '../../../src/main/report/recheck-data';
import { runWer } from '../../../src/main/audits/wer-audit';
import { runFdi } from '../../../src/main/audits/fdi-audit';
import { listClips } from '../../../src/main/data/repository';
import { parseCsvTable } from '../../../src/main/data/csv';
import { Rng } from '../../../src/main/stats';
import { STATEMENT_ATTACHMENT, SUPPLEMENT_ATTACHMENTS } from '../../../src/shared/report-files';
import { attachmentsText } from '../../../src/renderer/src/components/VerificationResult';
import { buildContext, fakeManifest, fixtureProject, insertDataset, insertEmbedding, type FakeModel } from '../audits/fixture';

const base = JSON.parse(readFileSync(join(__dirname, '../../fixtures/report/results.sample.json'), 'utf8')) as AuditResults;
const D = 6;
const MODEL: FakeModel = { id: 'c'.repeat(64), settingsKey: 'v1|fixture', dims: [D, D] };

let db: Database.Database;
let werDataset: string;
let fdiDataset: string;
let results: AuditResults;
let built: Awaited<ReturnType<typeof buildReport>>;
let extracted: ReturnType<typeof extractReport>;
let exported: string[];

const rows = (name: string, columns: string[]) =>
  parseCsvTable(readFileSync(join(extracted.out, name), 'utf8'), { requiredColumns: columns }).rows.map((r) => r.values);

beforeAll(async () => {
  const f = fixtureProject('Clip durations');
  db = f.db;
  // WER: two accents, three speakers each, three utterances a speaker; durations all different.
  const sentences = ['the cat sat on the mat', 'a quick brown fox', 'please call stella'];
  const asr = insertDataset(
    db,
    'asr',
    Array.from({ length: 18 }, (_, i) => ({
      speaker: `w${Math.floor(i / 3)}`,
      groups: { accent: i < 9 ? 'us' : 'scot' },
      transcript: sentences[i % 3]!,
      hypothesis: i % 4 === 0 ? sentences[(i + 1) % 3]! : sentences[i % 3]!,
      durationS: 1.25 + i * 0.173,
    })),
  );
  werDataset = asr.id;
  // FDI: two genders, f with 3 speakers × 3 clips, m with 2 × 2, x with one speaker (no impostor pair: left out).
  const rng = new Rng(5);
  const speakers = [['v0', 'f', 3], ['v1', 'f', 3], ['v2', 'f', 3], ['v3', 'm', 2], ['v4', 'm', 2], ['v5', 'x', 3]] as const;
  const clips = speakers.flatMap(([speaker, gender, n], s) => Array.from({ length: n }, () => ({ speaker, groups: { gender }, s })));
  const ver = insertDataset(db, 'verification', clips.map((c, i) => ({ speaker: c.speaker, groups: c.groups, durationS: 2.5 + i * 0.311 })));
  fdiDataset = ver.id;
  clips.forEach((c, i) => {
    const v = Array.from({ length: D }, (_, k) => (k === c.s ? 1 : 0) + 0.3 * (rng.nextFloat() - 0.5));
    insertEmbedding(db, MODEL, ver.shas[i]!, { mean: [v, v] });
  });
  const plan = {
    title: 'Clip durations',
    sections: ['wer' as const, 'fdi' as const],
    wer: { dataset: asr.id, groupBy: ['accent'], referenceGroup: 'us', bootstrap: 50, permutations: 50, mdeSimulations: 0 },
    fdi: { source: { kind: 'verification' as const, dataset: ver.id, modelId: 'fixture-verif', trialsPerGroup: 200 }, groupings: [['gender']], bootstrap: 0, nullPermutations: 0 },
  };
  const b = buildContext(db, plan, new Map([['fixture-verif', fakeManifest(MODEL)]]));
  const wer = await runWer(b.ctx);
  const fdi = await runFdi(b.ctx);
  results = { ...base, wer, fdi };
  const dir = mkdtempSync(join(tmpdir(), 'equivox-durations-'));
  const info = await createIdentity(join(dir, 'data'), { name: 'Ada Auditor', organisation: 'Fair Speech Lab' });
  built = await buildReport(results, { identity: loadSigningIdentity(join(dir, 'data'), info.id), now: new Date('2026-12-05T12:00:00Z'), lockedPlan: Buffer.from('{"plan":"locked"}\n') });
  extracted = extractReport(built.pdf, join(dir, 'extracted'));
  exported = writeExports(results, join(dir, 'report-data')).map((p) => basename(p));
}, 120_000);

describe('per-clip durations in the report', () => {
  it('the WER file lists every compared utterance once, with the duration the store holds', () => {
    const stored = new Map(listClips(db, werDataset).map((c) => [c.id, c]));
    const got = rows(WER_DURATIONS_ATTACHMENT, ['clip_id', 'group', 'duration_s']);
    expect(got.map((r) => r.clip_id)).toEqual(results.wer!.utterances!.map((u) => u.id));
    expect(got).toHaveLength(18);
    for (const r of got) {
      const c = stored.get(r.clip_id!)!;
      expect(Number(r.duration_s)).toBe(c.durationS);
      expect(r.group).toBe(c.groups.accent);
    }
    expect(new Set(got.map((r) => r.duration_s)).size).toBe(18);
  });

  it('the FDI file lists each recording the trials use once, with its group and the stored duration; the left-out group has none', () => {
    const stored = listClips(db, fdiDataset);
    const got = rows(FDI_DURATIONS_ATTACHMENT, ['grouping', 'group', 'clip_id', 'duration_s']);
    // Every pair asked for: each clip of f and m is in some trial, none of x.
    expect(got.map((r) => r.clip_id).sort()).toEqual(stored.filter((c) => c.groups.gender !== 'x').map((c) => c.id).sort());
    for (const r of got) {
      const c = stored.find((x) => x.id === r.clip_id)!;
      expect(Number(r.duration_s)).toBe(c.durationS);
      expect(r.group).toBe(c.groups.gender);
      expect(r.grouping).toBe('gender');
    }
    // The trials' counts agree: f 9 clips, m 4.
    expect(got.filter((r) => r.group === 'f')).toHaveLength(9);
    expect(results.fdi!.groupings[0]!.groups.m!.n).toBe(4);
  });

  it('both files are valid Data attachments: the statement and the attestation cover them, and they are written beside the report', () => {
    expect(extracted.valid).toBe(true);
    for (const name of [WER_DURATIONS_ATTACHMENT, FDI_DURATIONS_ATTACHMENT]) {
      const file = extracted.files.find((x) => x.name === name);
      expect(file?.matchesStatement, name).toBe(true);
      expect(built.statement.attachments!.find((a) => a.name === name)?.relationship).toBe('Data');
      expect(exported).toContain(name);
    }
    const envelope = JSON.parse(readFileSync(join(extracted.out, INTOTO_ATTACHMENT), 'utf8')) as DsseEnvelope;
    const statement = JSON.parse(Buffer.from(envelope.payload, 'base64').toString('utf8')) as InTotoStatement;
    for (const name of [WER_DURATIONS_ATTACHMENT, FDI_DURATIONS_ATTACHMENT]) {
      const file = extracted.files.find((x) => x.name === name)!;
      expect(statement.subject.find((s) => s.name === name)?.digest.sha256, name).toBe(file.sha256);
    }
    // The folder beside the report holds exactly the Data attachments.
    expect(readdirSync(join(extracted.out, '..', 'report-data')).sort()).toEqual(built.evidence.filter((e) => e.relationship === 'Data').map((e) => e.name).sort());
  });
});

describe('the verify screen names each kind of attachment', () => {
  it('every attachment that is not data is one the screen names, and the data files are those beside the report', () => {
    const supplements = built.evidence.filter((e) => e.relationship !== 'Data').map((e) => e.name).sort();
    expect(supplements).toEqual(SUPPLEMENT_ATTACHMENTS.map((s) => s.name).sort());
    const all = extracted.files.map((f) => ({ name: f.name, size: f.size, sha256: f.sha256, matchesStatement: f.name === STATEMENT_ATTACHMENT ? null : true }));
    expect(attachmentsText(all)).toBe(
      `${all.length} files: the signed statement, ${exported.length} data files, the locked plan, the dataset manifests’ hashes, the definitions, the reproduce recipe and the signed attestation, each matching the signed statement`,
    );
    expect(all.length).toBe(1 + exported.length + SUPPLEMENT_ATTACHMENTS.length);
  });
});
