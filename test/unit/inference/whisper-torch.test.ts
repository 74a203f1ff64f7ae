/**
 * Whisper decoding against PyTorch: a small random-weight Whisper with transformers' module
 * names, exported by torch.onnx.export as optimum lays it out (encoder, decoder, decoder
 * with past, merged decoder) with its own tokenizer files (test/fixtures/models/
 * export_torch.py). Greedy decoding in Equivox, with the key/value cache (merged decoder,
 * or the decoder-with-past pair) and without it, must give PyTorch's greedy tokens one for
 * one, in two languages; language detection must pick PyTorch's language.
 */
import { cpSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRecognizer, importModel } from '../../../src/main/inference';
import type { ModelManifest } from '../../../src/main/inference/manifest';
import { readF32, torchFixtures, torchUnavailable, type TorchFixtures } from '../../support/torch-fixtures';
import { skipUnless } from '../../support/skips';
import { tempDir } from './helpers';

const unavailable = torchUnavailable();

interface Expected {
  maxNewTokens: number;
  clips: { file: string; samples: number; detectedLanguage: string; runs: Record<string, { prefix: number[]; tokens: number[]; minMargin: number }> }[];
}

describe('Whisper greedy decoding vs PyTorch', () => {
  let fx: TorchFixtures;
  let expected: Expected;
  let folder: string;
  const models: Record<'merged' | 'with-past' | 'plain', ModelManifest> = {} as never;
  beforeEach((ctx) => skipUnless(unavailable, (r) => ctx.skip(r)));
  beforeAll(async () => {
    if (unavailable) return;
    const r = torchFixtures();
    if (!r.ok) throw new Error(r.reason);
    fx = r.fixtures;
    folder = join(fx.dir, fx.index.whisperAsr.folder);
    expected = JSON.parse(readFileSync(join(fx.dir, fx.index.whisperAsr.expected), 'utf8')) as Expected;
    const home = tempDir('whisper-torch');
    // The same export three ways: all files (the merged decoder is used), without the
    // merged one (decoder + decoder with past), and decoder_model.onnx alone (no cache).
    const variant = (name: string, drop: string[]) => {
      const dir = join(tempDir('whisper-variant'), name);
      cpSync(folder, dir, { recursive: true });
      for (const f of drop) rmSync(join(dir, 'onnx', f));
      return dir;
    };
    models.merged = await importModel(home, { folder });
    models['with-past'] = await importModel(home, { folder: variant('pair', ['decoder_model_merged.onnx']) });
    models.plain = await importModel(home, { folder: variant('plain', ['decoder_model_merged.onnx', 'decoder_with_past_model.onnx']) });
  }, 15 * 60_000);

  it('imports each layout with its decoder graphs and the tokenizer’s languages', () => {
    expect(models.merged.asr).toMatchObject({ kind: 'whisper', decoder: 'merged', maxNewTokens: expected.maxNewTokens });
    expect(models['with-past'].asr).toMatchObject({ decoder: 'with-past' });
    expect(models.plain.asr).toMatchObject({ decoder: 'plain' });
    expect(models.merged.files.map((f) => f.role)).toEqual(['model', 'decoder-merged', 'vocab']);
    expect(models['with-past'].files.map((f) => f.role)).toEqual(['model', 'decoder', 'decoder-with-past', 'vocab']);
    const asr = models.merged.asr as { languages: Record<string, number> };
    expect(Object.keys(asr.languages).sort()).toEqual(['de', 'en', 'es', 'fr']);
    expect(models.merged.stateDefinition).toMatch(/key\/value cache \(merged decoder\)/);
    expect(models.plain.stateDefinition).toMatch(/no key\/value cache/);
  });

  for (const layout of ['merged', 'with-past', 'plain'] as const) {
    it(`${layout}: token for token PyTorch's greedy output, in English and German`, async () => {
      for (const lang of ['en', 'de']) {
        const rec = await createRecognizer(models[layout], { provider: 'cpu', threads: 2 }, { language: lang });
        try {
          expect((rec as { cached?: boolean }).cached).toBe(layout !== 'plain');
          for (const clip of expected.clips) {
            const t = await rec.transcribe(readF32(join(folder, clip.file)));
            expect(t.language).toBe(lang);
            expect(t.ids, `${layout} ${lang} ${clip.file}`).toEqual([clip.runs[lang]!.tokens]);
            expect(t.tokens).toBe(clip.runs[lang]!.tokens.length);
          }
        } finally {
          await rec.release();
        }
      }
      // The two languages really decode differently (the language token matters).
      expect(expected.clips.some((c) => c.runs.en!.tokens.join() !== c.runs.de!.tokens.join())).toBe(true);
    }, 10 * 60_000);
  }

  it('detects the language as transformers does, and reports it', async () => {
    const rec = await createRecognizer(models.merged, { provider: 'cpu', threads: 2 }, { language: 'auto' });
    try {
      for (const clip of expected.clips) {
        const t = await rec.transcribe(readF32(join(folder, clip.file)));
        expect(t.language).toBe(clip.detectedLanguage);
      }
    } finally {
      await rec.release();
    }
  });

  it('refuses a language the model does not know, naming the ones it does', async () => {
    await expect(createRecognizer(models.merged, undefined, { language: 'xx' })).rejects.toThrow(/no language token for "xx"; it knows de, en, es, fr/);
  });
});
