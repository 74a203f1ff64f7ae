/**
 * WER audit with hypotheses from an ASR model run by Equivox: the CTC fixture
 * (test/fixtures/models/asr.ts) transcribes real WAV files, so the hypotheses, the WER per
 * group and the confidences are known by hand.
 *
 * Clips (reference ← what the audio spells; word errors / reference words; accuracy):
 *   g1: "ab a" ← "ab a" 0/2 (1) · "ba ab" ← "ba" 1/2 (0.5) · "b" ← "b" 0/1 (1)   → WER 1/5 = 0.2
 *   g2: "ab" ← "aa" 1/1 (0) · "a b" ← "a b a" 1/2 (0.5) · "ba" ← "ba" 0/1 (1)      → WER 2/4 = 0.5
 * g2's "aa" is spoken at level 0.29 and its last "ba" with "a" at 0.28, so their
 * confidences fall in lower ECE bins (5 and 8) than the rest (bin 9).
 */
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runWer } from '../../../src/main/audits/wer-audit';
import { importModel } from '../../../src/main/inference';
import { CTC_LEVELS, ctcFrameLogits, ctcUtterance, writeCtcFolder, writeWhisperFolder } from '../../fixtures/models/asr';
import { writeWav } from '../inference/helpers';
import { buildContext, fixtureProject, insertDataset, tempDir, type FixtureClip } from './fixture';

/** The level a 16-bit WAV round trip gives: round(A·32767) / 32768. */
const q = (a: number) => Math.round(a * 32767) / 32768;
function maxProb(row: readonly number[]): number {
  const m = Math.max(...row);
  return 1 / row.reduce((s, v) => s + Math.exp(v - m), 0);
}
const p = (level: number) => maxProb(ctcFrameLogits(q(level)));

const CLIPS: { speaker: string; group: string; reference: string; spoken: string; levels?: Record<string, number> }[] = [
  { speaker: 's1', group: 'g1', reference: 'ab a', spoken: 'ab a' },
  { speaker: 's2', group: 'g1', reference: 'ba ab', spoken: 'ba' },
  { speaker: 's3', group: 'g1', reference: 'b', spoken: 'b' },
  { speaker: 's4', group: 'g2', reference: 'ab', spoken: 'aa', levels: { a: 0.29 } },
  { speaker: 's5', group: 'g2', reference: 'a b', spoken: 'a b a' },
  { speaker: 's6', group: 'g2', reference: 'ba', spoken: 'ba', levels: { a: 0.28 } },
];

async function asrFixture() {
  const dataDir = tempDir('wer-asr-data');
  const model = await importModel(dataDir, { folder: writeCtcFolder(join(tempDir('wer-asr-src'), 'tiny-ctc')), name: 'Tiny CTC' });
  const audioDir = tempDir('wer-asr-audio');
  const { db, store } = fixtureProject('WER ASR fixture');
  const clips: FixtureClip[] = [
    ...CLIPS.map((c) => ({ speaker: c.speaker, groups: { accent: c.group }, transcript: c.reference, hypothesis: 'ignored column' })),
    { speaker: 'z1', groups: { accent: 'g1' }, transcript: null, hypothesis: null }, // no reference: left out
  ];
  const ds = insertDataset(db, 'asr', clips);
  const spoken = [...CLIPS.map((c) => ctcUtterance(c.spoken, c.levels ? { levels: c.levels } : {})), ctcUtterance('a')];
  spoken.forEach((audio, i) => {
    const file = join(audioDir, `${i}.wav`);
    writeWav(file, audio);
    db.prepare('UPDATE clips SET path = ? WHERE id = ?').run(file, ds.clipIds[i]);
  });
  const b = buildContext(db, { title: 'WER ASR', sections: ['wer'], wer: { dataset: ds.id, groupBy: ['accent'], referenceGroup: 'g1', hypotheses: { source: 'model', modelId: model.id }, bootstrap: 50, permutations: 50 } });
  // The model is found in the store (as run.ts would resolve it into ctx.models).
  b.ctx.dataDir = dataDir;
  return { store, model, ds, dataDir, ...b };
}

describe('WER audit with hypotheses from the CTC fixture', () => {
  it('transcribes each clip, gives the hand-computed WER per group and the calibration', async () => {
    const f = await asrFixture();
    const progress: [string, number, number][] = [];
    f.ctx.task = { ...f.ctx.task, progress: (s, d, t) => progress.push([s, d, t]) };
    const wer = await runWer(f.ctx);
    expect(wer.config.hypotheses).toBe('model');
    expect(wer.config.asrModel).toBe('Tiny CTC');
    expect(wer.groups.g1!.referenceWords).toBe(5);
    expect(wer.groups.g1!.errors).toBe(1);
    expect(wer.groups.g1!.wer).toBeCloseTo(0.2, 14);
    expect(wer.groups.g2!.referenceWords).toBe(4);
    expect(wer.groups.g2!.errors).toBe(2);
    expect(wer.groups.g2!.substitutions).toBe(1);
    expect(wer.groups.g2!.insertions).toBe(1);
    expect(wer.groups.g2!.wer).toBeCloseTo(0.5, 14);
    expect(wer.comparisons[0]!.absoluteDelta).toBeCloseTo(0.3, 14);
    expect(progress.filter(([s]) => s === 'Transcribing').at(-1)).toEqual(['Transcribing', 6, 6]);
    expect(f.warnings.some((w) => /1 utterance\(s\) lack a reference transcript and were left out/.test(w))).toBe(true);

    // Confidences by hand: mean over emitted tokens of the frame's max softmax probability.
    const [pa, pb, pd] = [p(CTC_LEVELS.a!), p(CTC_LEVELS.b!), p(CTC_LEVELS['|']!)];
    const c = [(2 * pa + pb + pd) / 4, (pb + pa) / 2, pb, p(0.29), (2 * pa + pb + 2 * pd) / 5, (pb + p(0.28)) / 2];
    const acc = [1, 0.5, 1, 0, 0.5, 1];
    // The bins the hand computation assumes.
    expect(c.map((x) => Math.min(9, Math.floor(x * 10)))).toEqual([9, 9, 9, 5, 9, 8]);
    const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
    const cal = wer.calibration!;
    expect(Object.keys(cal).sort()).toEqual(['g1', 'g2']);
    expect(cal.g1!.meanConfidence).toBeCloseTo(mean(c.slice(0, 3)), 5);
    expect(cal.g1!.accuracy).toBeCloseTo(2.5 / 3, 14);
    // g1: one bin (9) → |mean confidence − mean accuracy|.
    expect(cal.g1!.ece).toBeCloseTo(Math.abs(mean(c.slice(0, 3)) - 2.5 / 3), 5);
    expect(cal.g2!.meanConfidence).toBeCloseTo(mean(c.slice(3)), 5);
    expect(cal.g2!.accuracy).toBeCloseTo(0.5, 14);
    // g2: three bins of one utterance each.
    expect(cal.g2!.ece).toBeCloseTo((Math.abs(c[3]! - acc[3]!) + Math.abs(c[4]! - acc[4]!) + Math.abs(c[5]! - acc[5]!)) / 3, 5);
    f.store.close();
  });

  it('resumes from the stored transcripts: a second run needs neither the audio nor the model', async () => {
    const f = await asrFixture();
    const first = await runWer(f.ctx);
    const n = (f.ctx.db.prepare("SELECT count(*) AS n FROM results WHERE audit_id = ? AND unit_key LIKE 'wer-asr/%'").get(f.auditId) as { n: number }).n;
    expect(n).toBe(6);
    // As run.ts does, the manifest is resolved up front; the model file itself is never read again.
    f.ctx.models.set(f.model.id, f.model);
    rmSync(join(f.dataDir, 'models', f.model.id, 'model.onnx'));
    for (const c of f.ds.clipIds) f.ctx.db.prepare("UPDATE clips SET path = '/nonexistent.wav' WHERE id = ?").run(c);
    const again = await runWer(f.ctx);
    expect(again).toEqual(first);
    f.store.close();
  });

  it('refuses an embedding model as the ASR model', async () => {
    const f = await asrFixture();
    f.ctx.models.set(f.model.id, { ...f.model, task: 'embedding' });
    await expect(runWer(f.ctx)).rejects.toThrow(/not a speech recognition model/);
    f.store.close();
  });
});

describe('WER audit with a Whisper model and the plan’s language', () => {
  async function whisperFixture(language: string | undefined) {
    const dataDir = tempDir('wer-whisper-data');
    const model = await importModel(dataDir, { folder: writeWhisperFolder(join(tempDir('wer-whisper-src'), 'tiny-whisper')), name: 'Tiny Whisper' });
    const audioDir = tempDir('wer-whisper-audio');
    const { db, store } = fixtureProject('WER Whisper fixture');
    const ds = insertDataset(db, 'asr', [
      { speaker: 's1', groups: { accent: 'g1' }, transcript: 'hello world, café', hypothesis: null },
      { speaker: 's2', groups: { accent: 'g2' }, transcript: 'hello world', hypothesis: null },
    ]);
    ds.clipIds.forEach((id, i) => {
      const file = join(audioDir, `${i}.wav`);
      writeWav(file, ctcUtterance(i === 0 ? 'ab' : 'ba'));
      db.prepare('UPDATE clips SET path = ? WHERE id = ?').run(file, id);
    });
    const hypotheses = { source: 'model' as const, modelId: model.id, ...(language ? { language } : {}) };
    const b = buildContext(db, { title: 'WER Whisper', sections: ['wer'], wer: { dataset: ds.id, groupBy: ['accent'], referenceGroup: 'g1', hypotheses, bootstrap: 50, permutations: 50 } });
    b.ctx.dataDir = dataDir;
    return { store, ...b };
  }

  it('auto-detects the language per recording and says which it found', async () => {
    const f = await whisperFixture('auto');
    const wer = await runWer(f.ctx);
    expect(wer.config).toMatchObject({ asrLanguage: 'auto', asrTask: 'transcribe' });
    // The fixture's vocabulary has one language, so detection can only find English.
    expect(f.warnings.some((w) => /Tiny Whisper detected the language of each recording itself \(en 2\)/.test(w))).toBe(true);
    expect(wer.groups.g1!.errors).toBe(0);
    f.store.close();
  });

  it('stops with the plan field named when the model does not know the language', async () => {
    const f = await whisperFixture('de');
    await expect(runWer(f.ctx)).rejects.toMatchObject({ field: 'plan.wer.hypotheses.language', message: expect.stringMatching(/no language token for "de"; it knows en/) });
    f.store.close();
  });
});

