/**
 * ASR decoding on fixture models whose outputs are known exactly (test/fixtures/models/asr.ts):
 * CTC greedy decoding and confidence, Whisper greedy decoding with the forced prefix,
 * token suppression, byte-level detokenisation and the token limit, and ASR import.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bytesToUnicode, ctcGreedy, ctcVocabFromJson, decodeByteLevel, detectAsrFolder, whisperSpec } from '../../../src/main/inference/asr';
import { whisperWindows } from '../../../src/main/inference/asr/whisper';
import { modelInfo } from '../../../src/main/handlers/models';
import { calibrationByGroup, createRecognizer, ensureModel, importModel, listImportedModels } from '../../../src/main/inference';
import {
  CTC_LEVELS,
  CTC_VOCAB,
  ctcFrameLogits,
  ctcUtterance,
  WHISPER_ADDED,
  WHISPER_BEGIN_SUPPRESS,
  WHISPER_EXPECTED_IDS,
  WHISPER_EXPECTED_TEXT,
  WHISPER_PREFIX,
  WHISPER_SUPPRESS,
  WHISPER_VOCAB,
  whisperTable,
  writeCtcFolder,
  writeWhisperFolder,
} from '../../fixtures/models/asr';
import { tempDir } from './helpers';

/** Softmax probability of the largest entry, leaving out suppressed ids (computed here in float64, independently). */
function maxProb(row: readonly number[], suppressed: readonly number[] = []): number {
  const kept = row.filter((_, i) => !suppressed.includes(i));
  const m = Math.max(...kept);
  return 1 / kept.reduce((s, v) => s + Math.exp(v - m), 0);
}

describe('byte-level BPE', () => {
  it('maps all 256 bytes to distinct code points and back', () => {
    const m = bytesToUnicode();
    expect(m.size).toBe(256);
    expect(new Set(m.values()).size).toBe(256);
    expect(m.get(0x20)).toBe('Ġ');
    expect(m.get(0x41)).toBe('A');
    expect(decodeByteLevel(['Ġcaf', 'Ã©', 'Ċ'])).toBe(' café\n');
  });
});

describe('CTC greedy decoding', () => {
  it('collapses repeats before dropping blanks, maps "|" to a space, skips special tokens', () => {
    const vocab = ctcVocabFromJson(CTC_VOCAB);
    const V = Object.keys(CTC_VOCAB).length;
    // frames: a a <pad> a | <unk> b b  → "aa b"
    const ids = [5, 5, 0, 5, 4, 3, 6, 6];
    const logits = new Float32Array(ids.length * V);
    ids.forEach((id, t) => (logits[t * V + id] = 10));
    const g = ctcGreedy(logits, ids.length, V, vocab);
    expect(g.text).toBe('aa b');
    expect(g.tokens).toBe(4); // a, a, |, b (the <unk> run is skipped)
  });

  it('the fixture decodes the known waveform exactly, with the analytic confidence', async () => {
    const dataDir = tempDir('asr-ctc');
    const m = await importModel(dataDir, { folder: writeCtcFolder(join(tempDir('asr-ctc-src'), 'tiny-ctc')) });
    const rec = await createRecognizer(m);
    try {
      const t = await rec.transcribe(ctcUtterance('ab a'));
      expect(t.text).toBe('ab a');
      expect(t.tokens).toBe(4);
      const pa = maxProb(ctcFrameLogits(CTC_LEVELS.a!));
      const pb = maxProb(ctcFrameLogits(CTC_LEVELS.b!));
      const pd = maxProb(ctcFrameLogits(CTC_LEVELS['|']!));
      expect(t.confidence!).toBeCloseTo((2 * pa + pb + pd) / 4, 5);
      expect(t.confidence!).toBeGreaterThan(0);
      expect(t.confidence!).toBeLessThanOrEqual(1);
      // A quieter "a" is decoded the same but with less confidence.
      const soft = await rec.transcribe(ctcUtterance('aa', { levels: { a: 0.25 } }));
      expect(soft.text).toBe('aa');
      expect(soft.confidence!).toBeCloseTo(maxProb(ctcFrameLogits(0.25)), 5);
      expect(soft.confidence!).toBeLessThan(pa);
      // Silence: nothing emitted, no confidence.
      const silent = await rec.transcribe(new Float32Array(16000));
      expect(silent).toEqual({ text: '', confidence: null, tokens: 0 });
      // Longer than 30 s: two chunks, decoded separately and joined with a space.
      const u = ctcUtterance('ba');
      const long = new Float32Array(480000 + 32000);
      long.set(u, 0);
      long.set(u, 480000);
      expect((await rec.transcribe(long)).text).toBe('ba ba');
    } finally {
      await rec.release();
    }
  });
});

describe('Whisper greedy decoding', () => {
  const files = { vocab: WHISPER_VOCAB, addedTokens: WHISPER_ADDED, generationConfig: { decoder_start_token_id: 6, eos_token_id: 5, suppress_tokens: WHISPER_SUPPRESS, begin_suppress_tokens: WHISPER_BEGIN_SUPPRESS } };

  it('builds the forced prefix and the special ids from the tokenizer files', () => {
    const s = whisperSpec(files);
    expect(s.prefix).toEqual(WHISPER_PREFIX);
    expect(s.eosId).toBe(5);
    expect(s.specialIds).toEqual([5, 6, 7, 8, 9]);
    // No <|en|> etc. in the vocabulary (an English-only export): just the start token.
    expect(whisperSpec({ vocab: { '<|endoftext|>': 0, '<|startoftranscript|>': 1, a: 2 } }).prefix).toEqual([1]);
  });

  it('the fixture pair decodes to the known text with spaces, and the confidence of the generated tokens', async () => {
    const dataDir = tempDir('asr-whisper');
    const m = await importModel(dataDir, { folder: writeWhisperFolder(join(tempDir('asr-whisper-src'), 'tiny-whisper-asr')) });
    expect(m.family).toBe('whisper-asr');
    expect(m.task).toBe('asr');
    expect(m.files.map((f) => f.role)).toEqual(['model', 'decoder', 'vocab']);
    const rec = await createRecognizer(m);
    try {
      const t = await rec.transcribe(ctcUtterance('ab'));
      expect(t.text).toBe(WHISPER_EXPECTED_TEXT);
      expect(t.tokens).toBe(WHISPER_EXPECTED_IDS.length);
      const table = whisperTable();
      const probs = [maxProb(table[3]!, [...WHISPER_SUPPRESS, ...WHISPER_BEGIN_SUPPRESS]), maxProb(table[4]!, WHISPER_SUPPRESS), maxProb(table[5]!, WHISPER_SUPPRESS), maxProb(table[6]!, WHISPER_SUPPRESS)];
      expect(t.confidence!).toBeCloseTo(probs.reduce((a, b) => a + b) / 4, 5);
    } finally {
      await rec.release();
    }
  });

  it('the model list says what a recogniser can be asked: a multilingual Whisper its languages and translation, an English-only one neither', async () => {
    const dataDir = tempDir('asr-whisper-caps');
    const multi = await importModel(dataDir, { folder: writeWhisperFolder(join(tempDir('asr-whisper-caps-src'), 'multi'), { multilingual: true }) });
    // Another decoder (models are stored by content, so the same graphs would be the same model).
    const english = await importModel(dataDir, { folder: writeWhisperFolder(join(tempDir('asr-whisper-caps-src2'), 'english'), { neverEnd: true }) });
    const ctc = await importModel(dataDir, { folder: writeCtcFolder(join(tempDir('asr-whisper-caps-src3'), 'ctc')) });
    const infos = new Map((await listImportedModels(dataDir)).map((m) => [m.id, modelInfo(m)]));
    expect(infos.get(multi.id)).toMatchObject({ task: 'asr', asr: { kind: 'whisper', languages: ['de', 'en', 'fr'], translate: true } });
    // The fixture's English-only export still carries <|en|> and <|transcribe|>, but no <|translate|>.
    expect(infos.get(english.id)).toMatchObject({ task: 'asr', asr: { kind: 'whisper', languages: ['en'], translate: false } });
    expect(infos.get(ctc.id)).toMatchObject({ task: 'asr', asr: { kind: 'ctc', languages: [], translate: false } });
    // A manifest written before language support: the languages are read from its tokenizer files.
    const { languages: _l, tasks: _t, ...old } = multi.asr as Extract<NonNullable<typeof multi.asr>, { kind: 'whisper' }>;
    expect(modelInfo({ ...multi, asr: old }).asr).toEqual({ kind: 'whisper', languages: ['de', 'en', 'fr'], translate: true });
    // The recogniser takes each choice (the fixture writes the same text whatever the language).
    const rec = await createRecognizer(multi, undefined, { language: 'de', task: 'translate' });
    try {
      expect((await rec.transcribe(ctcUtterance('ab'))).text).toBe(WHISPER_EXPECTED_TEXT);
    } finally {
      await rec.release();
    }
    // Embedding models are listed as such.
    expect(modelInfo({ ...multi, task: undefined, asr: undefined })).toMatchObject({ task: 'embedding', asr: null });
  });

  it('stops at the token limit when the model never says eos', async () => {
    const m = await importModel(tempDir('asr-whisper2'), { folder: writeWhisperFolder(join(tempDir('asr-whisper2-src'), 'never-ends'), { neverEnd: true }) });
    const rec = await createRecognizer(m);
    try {
      const t = await rec.transcribe(new Float32Array(8000));
      expect(t.tokens).toBe(224);
      expect(t.text).toBe('hello'.repeat(224));
    } finally {
      await rec.release();
    }
  });
});

describe('Whisper long-form windows', () => {
  it('cuts at most every 30 s, at the quietest 100 ms within the last 5 s before the limit', () => {
    const sr = 16000;
    const audio = new Float32Array(70 * sr).map((_, i) => (i % 2 ? 0.3 : -0.3));
    // A pause at 27.2–27.3 s: the first window ends in its middle; none before the 2nd limit.
    audio.fill(0, Math.round(27.2 * sr), Math.round(27.3 * sr));
    const w = whisperWindows(audio);
    expect(w[0]).toEqual([0, Math.round(27.25 * sr)]);
    // Without a pause every frame is as loud; ties go to the latest frame: the cut is 50 ms before the limit.
    expect(w[1]).toEqual([Math.round(27.25 * sr), Math.round(27.25 * sr) + 480000 - 800]);
    expect(w[2]![1]).toBe(audio.length);
    for (const [a, b] of w) expect(b - a).toBeLessThanOrEqual(480000);
    expect(whisperWindows(new Float32Array(480000))).toEqual([[0, 480000]]);
  });
});

describe('ASR import', () => {
  it('models import --folder recognises a CTC folder, stores its vocabulary, and is idempotent', async () => {
    const dataDir = tempDir('asr-import');
    const folder = writeCtcFolder(join(tempDir('asr-import-src'), 'tiny-ctc'));
    const m = await importModel(dataDir, { folder, licence: 'test' });
    expect(m.family).toBe('wav2vec2-ctc');
    expect(m.task).toBe('asr');
    expect(m.name).toBe('tiny-ctc');
    expect(m.frontEnd).toEqual({ kind: 'raw-waveform', sampleRate: 16000, doNormalize: false });
    expect(m.asr).toEqual({ kind: 'ctc', logitsOutput: 'logits', blankId: 0, wordDelimiter: '|', specialTokens: ['<s>', '</s>', '<unk>', '<pad>'] });
    expect(m.states).toEqual([]);
    expect(m.exposure.message).toMatch(/decoded the 1 s test clip/);
    for (const f of m.files) expect(existsSync(f.path)).toBe(true);
    expect(JSON.parse(readFileSync(join(dataDir, 'models', m.id, 'vocab.json'), 'utf8'))).toEqual(CTC_VOCAB);
    expect((await importModel(dataDir, { folder })).id).toBe(m.id);
    expect(listImportedModels(dataDir).map((x) => x.id)).toEqual([m.id]);
    expect((await ensureModel(dataDir, m.id.slice(0, 12))).manifest.id).toBe(m.id);
  });

  it('the CLI "models import --folder" imports a CTC folder as an ASR model', () => {
    const home = tempDir('asr-cli-home');
    const folder = writeCtcFolder(join(tempDir('asr-cli-src'), 'tiny-ctc'));
    const r = spawnSync('npx', ['tsx', 'src/main/cli.ts', 'models', 'import', '--folder', folder], { env: { ...process.env, EQUIVOX_HOME: home }, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const info = JSON.parse(r.stdout) as { id: string; family: string; frontEnd: string; layers: number };
    expect(info).toMatchObject({ family: 'wav2vec2-ctc', frontEnd: 'raw-waveform', layers: 0 });
    expect(info.id).toMatch(/^[0-9a-f]{64}$/);
  });

  it('a CTC .onnx file imports with a manifest naming the family', async () => {
    const folder = writeCtcFolder(join(tempDir('asr-file-src'), 'tiny-ctc'));
    const m = await importModel(tempDir('asr-file'), { file: join(folder, 'onnx', 'model.onnx'), manifest: { family: 'wav2vec2-ctc' } });
    expect(m.task).toBe('asr');
    expect(m.family).toBe('wav2vec2-ctc');
  });

  it('a Whisper folder with only the encoder stays an embedding model', () => {
    const folder = writeWhisperFolder(join(tempDir('asr-enc-src'), 'enc-only'));
    rmSync(join(folder, 'onnx', 'decoder_model.onnx'));
    expect(detectAsrFolder(folder)).toBeNull();
  });
});

describe('calibration', () => {
  it('gives mean confidence, accuracy and 10-bin ECE per group', () => {
    const rows = [
      { group: 'x', confidence: 0.95, accuracy: 1 },
      { group: 'x', confidence: 0.91, accuracy: 0.5 },
      { group: 'x', confidence: 0.35, accuracy: 0 },
      { group: 'y', confidence: 1, accuracy: 1 },
    ];
    const c = calibrationByGroup(rows);
    // x: bin 9 holds 0.95 and 0.91 (conf 0.93, acc 0.75), bin 3 holds 0.35 (acc 0).
    expect(c.x!.meanConfidence).toBeCloseTo((0.95 + 0.91 + 0.35) / 3, 14);
    expect(c.x!.accuracy).toBeCloseTo(0.5, 14);
    expect(c.x!.ece).toBeCloseTo((2 / 3) * 0.18 + (1 / 3) * 0.35, 14);
    expect(c.y).toEqual({ meanConfidence: 1, accuracy: 1, ece: 0 });
  });
});
