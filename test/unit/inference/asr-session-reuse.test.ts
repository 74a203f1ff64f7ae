/**
 * Speech recognisers kept between audit jobs of one worker (inference/session-pool.ts,
 * asr/recognizer-pool.ts), as session-reuse.test.ts checks for embedders: the ASR models
 * are the CTC and Whisper fixtures (test/fixtures/models/asr.ts) through the real import,
 * the clips real WAV files that the CTC fixture spells out (as wer-asr.test.ts), and every
 * audit a real `audits.run` job.
 */
import type Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditResults } from '../../../src/shared/results';
import type { AuditTaskInput } from '../../../src/main/audits/task';
import { parsePlan, savePlan } from '../../../src/main/audits/plans';
import { createAudit, storedResults } from '../../../src/main/audits/run';
import { importModel, type ModelManifest } from '../../../src/main/inference';
import { JobRunner } from '../../../src/main/jobs/runner';
import { ProjectStore } from '../../../src/main/store/projects';
import { ctcUtterance, writeCtcFolder, writeWhisperFolder } from '../../fixtures/models/asr';
import { insertDataset } from '../audits/fixture';
import { tempDir, writeWav } from './helpers';

/** What the CTC fixture hears and what it should have heard (wer-asr.test.ts: WER 0.2 in g1, 0.5 in g2). */
const CLIPS = [
  { speaker: 's1', group: 'g1', reference: 'ab a', spoken: 'ab a' },
  { speaker: 's2', group: 'g1', reference: 'ba ab', spoken: 'ba' },
  { speaker: 's3', group: 'g1', reference: 'b', spoken: 'b' },
  { speaker: 's4', group: 'g2', reference: 'ab', spoken: 'aa' },
  { speaker: 's5', group: 'g2', reference: 'a b', spoken: 'a b a' },
  { speaker: 's6', group: 'g2', reference: 'ba', spoken: 'ba' },
];

interface Project {
  path: string;
  db: Database.Database;
  datasetId: string;
}

let spin: string | undefined;
let dataDir: string;
let ctc: ModelManifest;
let whisper: ModelManifest;
const stores: ProjectStore[] = [];
const runners: JobRunner[] = [];

beforeAll(async () => {
  // Whether sessions spin is part of what a kept recogniser must match (recognizer-pool.ts);
  // fixed here, so a test machine's load crossing its core count between jobs cannot change it.
  spin = process.env.EQUIVOX_ORT_SPIN;
  process.env.EQUIVOX_ORT_SPIN = '0';
  dataDir = tempDir('asr-reuse-data');
  ctc = await importModel(dataDir, { folder: writeCtcFolder(join(tempDir('asr-reuse-src'), 'tiny-ctc')), name: 'Tiny CTC' });
  whisper = await importModel(dataDir, { folder: writeWhisperFolder(join(tempDir('asr-reuse-src'), 'tiny-whisper')), name: 'Tiny Whisper' });
});
afterAll(async () => {
  await Promise.all(runners.map((r) => r.shutdown()));
  for (const s of stores) s.close();
  if (spin === undefined) delete process.env.EQUIVOX_ORT_SPIN;
  else process.env.EQUIVOX_ORT_SPIN = spin;
});

function runner(): JobRunner {
  const r = new JobRunner();
  runners.push(r);
  return r;
}

/** A project on disk with one ASR dataset of the clips above, as WAV files. */
function project(name: string): Project {
  const store = new ProjectStore(tempDir('asr-reuse-home'));
  stores.push(store);
  const p = store.create(name, join(tempDir('asr-reuse-proj'), 'p'));
  const db = store.db(p.id);
  const ds = insertDataset(db, 'asr', CLIPS.map((c) => ({ speaker: c.speaker, groups: { accent: c.group }, transcript: c.reference, hypothesis: null })));
  const audioDir = tempDir('asr-reuse-audio');
  CLIPS.forEach((c, i) => {
    const file = join(audioDir, `${i}.wav`);
    writeWav(file, ctcUtterance(c.spoken));
    db.prepare('UPDATE clips SET path = ? WHERE id = ?').run(file, ds.clipIds[i]);
  });
  return { path: p.path, db, datasetId: ds.id };
}

/** A WER-only audit transcribed by `model`, run as an `audits.run` job: its results. */
async function audit(r: JobRunner, p: Project, model: ModelManifest): Promise<{ auditId: string; results: AuditResults }> {
  const config = parsePlan({ title: `WER by ${model.name}`, sections: ['wer'], wer: { dataset: p.datasetId, groupBy: ['accent'], referenceGroup: 'g1', hypotheses: { source: 'model', modelId: model.id }, bootstrap: 50, permutations: 50 } });
  const plan = savePlan(p.db, { config });
  const { id: auditId } = createAudit(p.db, plan.id);
  const input: AuditTaskInput = { projectPath: p.path, dataDir, auditId };
  const out = await r.start('audits.run', input).result;
  expect(out.errors).toEqual([]);
  return { auditId, results: storedResults(p.db, auditId)! };
}

/** The transcripts an audit stored (one unit per model and audio), in key order. */
function transcripts(p: Project, auditId: string): { unit_key: string; result_json: string }[] {
  return p.db.prepare("SELECT unit_key, result_json FROM results WHERE audit_id = ? AND unit_key LIKE 'wer-asr/%' ORDER BY unit_key").all(auditId) as ReturnType<typeof transcripts>;
}

describe('speech recognisers reused across audit jobs', () => {
  it('sets an ASR model up once for two audits; another ASR model gets its own; transcripts and WER equal a fresh worker’s', async () => {
    const r = runner();
    const a = project('A');
    const b = project('B');
    const first = await audit(r, a, ctc);
    expect(first.results.wer!.groups.g1!.wer).toBeCloseTo(0.2, 14);
    const held = await r.start('selftest.sessions', {}).result;
    expect(held.recognizers).toEqual({ created: 1, reused: 0, kept: 1 });

    // A second audit, of another project, with the same model: not one session set up.
    const second = await audit(r, b, ctc);
    const after = await r.start('selftest.sessions', {}).result;
    expect(after.worker).toBe(held.worker);
    expect(after.sessions).toBe(held.sessions);
    expect(after.recognizers).toEqual({ created: 1, reused: 1, kept: 1 });
    // Recognisers are kept beside embedders, not instead of them: this worker embedded nothing.
    expect(after.embedders).toEqual({ created: 0, reused: 0, kept: 0 });
    expect(transcripts(b, second.auditId)).toHaveLength(CLIPS.length);

    // Another ASR model: its own sessions (and the worker keeps one recogniser, the new one).
    await audit(r, b, whisper);
    const last = await r.start('selftest.sessions', {}).result;
    expect(last.worker).toBe(held.worker);
    expect(last.sessions).toBeGreaterThan(after.sessions);
    expect(last.recognizers).toEqual({ created: 2, reused: 1, kept: 1 });

    // The same clips again, through a worker that has run nothing: the same transcripts and WER.
    const fresh = runner();
    const again = await audit(fresh, b, ctc);
    const freshHeld = await fresh.start('selftest.sessions', {}).result;
    expect(freshHeld.worker).not.toBe(held.worker);
    expect(freshHeld.recognizers).toEqual({ created: 1, reused: 0, kept: 1 });
    expect(transcripts(b, again.auditId)).toEqual(transcripts(b, second.auditId));
    expect(again.results.wer).toEqual(second.results.wer);
    expect(second.results.wer!.groups.g2!.wer).toBeCloseTo(0.5, 14);
  }, 180_000);
});
