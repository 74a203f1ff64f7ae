/**
 * Issue 35 item 1: where onnxruntime-node cannot load (no build for Intel Macs, an old
 * macOS, Windows without the VC++ runtime), everything but inference works. Forced here by
 * a preload that makes `require('onnxruntime-node')` fail as a missing native library does
 * (test/support/no-onnxruntime.cjs), in its own process (test/support/no-onnxruntime-probe.ts):
 * the CLI's `models list`, the engine with its job threads and job processes, a dataset
 * import, an audit that needs no model (WER from the spreadsheet, FDI from a scores file)
 * and its signed report; `models list` and `models.inference` say why in one sentence and
 * what to do, and a model import is refused with the same words.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { unavailableReason } from '../../../src/main/inference/ort';
import { buildWav2vec2Fixture } from '../../fixtures/models/build';
import { tempDir } from './helpers';

const repo = resolve(import.meta.dirname, '..', '..', '..');

describe('Equivox where onnxruntime cannot load', () => {
  it('imports, audits without a model and signs its report; models list, the Models step and an import say why and what to do', () => {
    const work = tempDir('no-ort');
    const model = join(work, 'model.onnx');
    writeFileSync(model, buildWav2vec2Fixture());
    writeFileSync(join(work, 'config.json'), JSON.stringify({ model_type: 'wav2vec2' }));
    const r = spawnSync(process.execPath, ['--require', './test/support/no-onnxruntime.cjs', '--import', 'tsx', 'test/support/no-onnxruntime-probe.ts', work, model], {
      cwd: repo,
      env: { ...process.env, EQUIVOX_HOME: join(work, 'cli-home') },
      encoding: 'utf8',
      timeout: 540_000,
    });
    expect(r.stdout, r.stderr).toContain('DONE');
    const steps = Object.fromEntries(
      r.stdout
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { step: string; ok: boolean; result?: unknown; code?: string; message?: string })
        .map((s) => [s.step, s]),
    );
    const why = 'Speech models cannot run on this computer: the onnxruntime library did not load (onnxruntime_binding.node: cannot open shared object file';
    // The CLI: the list is there (the built-ins need no onnxruntime to be listed), stderr says why.
    expect(steps['cli models list']).toMatchObject({ ok: true, result: { code: 0, aliases: ['acoustic-baseline', 'speech-embedding'] } });
    const said = (steps['cli models list']!.result as { stderr: string }).stderr;
    expect(said).toContain(why);
    expect(said).toMatch(/Reinstall Equivox \(from source: npm ci\), then start it again\. Importing recordings, results from files and reports still work\.$/);
    // The engine asks a job worker; the answer the Models step shows.
    expect(steps['models.inference']).toMatchObject({ ok: true, result: { available: false, reason: expect.stringContaining('the onnxruntime library did not load'), fix: expect.stringContaining('Reinstall Equivox') } });
    expect(steps['models.list']).toMatchObject({ ok: true, result: ['acoustic-baseline', 'speech-embedding'] });
    expect(steps['datasets.import']).toMatchObject({ ok: true });
    expect((steps['datasets.import']!.result as { imported: number }).imported).toBeGreaterThan(10);
    // A model cannot be imported: a user error with the same words, not an internal one.
    expect(steps['models.import']).toMatchObject({ ok: false, code: 'user', message: expect.stringContaining(why) });
    // An audit that needs no model runs, records the installed version, and its report is signed.
    expect(steps['audit (WER from the spreadsheet, FDI from a scores file)']).toMatchObject({ ok: true, result: { wer: true, fdi: true, onnxruntime: '1.30.0' } });
    expect(steps['reports.build']).toMatchObject({ ok: true });
    expect(existsSync(join(work, 'report.pdf'))).toBe(true);
    expect(spawnSync('pdfsig', [join(work, 'report.pdf')], { encoding: 'utf8' }).stdout).toContain('Signature is Valid.');
  }, 600_000);

  it('says what to do on each platform where it does not load', () => {
    const err = new Error('dlopen failed\nmore');
    expect(unavailableReason(err, 'darwin', 'x64')).toEqual({
      reason: 'the onnxruntime library has no build for Intel Macs',
      fix: 'Run the audits that need a speech model on an Apple silicon Mac (macOS 14 or later), Windows or Linux. Importing recordings, results from files and reports still work.',
    });
    expect(unavailableReason(err, 'darwin', 'arm64').fix).toMatch(/^It needs macOS 14 or later: update macOS/);
    expect(unavailableReason(err, 'win32', 'x64')).toEqual({
      reason: 'the onnxruntime library did not load (dlopen failed)',
      fix: 'Install the Microsoft Visual C++ 2015–2022 Redistributable (version 14.28 or later, for x64) from Microsoft, then start Equivox again. Importing recordings, results from files and reports still work.',
    });
    expect(unavailableReason(err, 'win32', 'arm64').fix).toContain('for ARM64');
  });
});
