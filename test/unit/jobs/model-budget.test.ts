/**
 * The model budget where the runner cannot start job processes (inside Electron, whose
 * RunAsNode fuse is off): the jobs that run models run in worker threads, and the budget
 * still fails the job, naming the model, while the runner's thread keeps answering. What a
 * thread cannot do is stop: held inside onnxruntime it ignores Worker.terminate() and keeps
 * its core (printed here; the reason job processes exist, jobs/process-worker.ts). The
 * process-based path is tested through the web host in test/unit/security/hostile-models.test.ts.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loopModel } from '../../fixtures/models/hostile';
import { tempDir } from '../inference/helpers';

const repo = resolve(import.meta.dirname, '..', '..', '..');

describe('a model budget in a worker thread (the fallback inside Electron)', () => {
  it('fails the job at the budget naming the model; the runner keeps serving', async () => {
    const dir = tempDir('thread-budget');
    const file = join(dir, 'loop.onnx');
    writeFileSync(file, loopModel());
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ model_type: 'wav2vec2' }));
    const child = spawn(process.execPath, ['--import', 'tsx', join(repo, 'test', 'support', 'thread-budget-probe.ts'), file, join(dir, 'data')], {
      cwd: repo,
      env: { ...process.env, EQUIVOX_MODEL_TIME_SCALE: '0.05' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const line = await new Promise<string>((resolveLine, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer: ${out}`)), 240_000);
      child.stdout.on('data', () => {
        if (out.includes('\n')) {
          clearTimeout(timer);
          resolveLine(out.split('\n')[0]!);
        }
      });
      child.on('exit', (code) => reject(new Error(`probe exited ${code}: ${out}`)));
    });
    // The thread may still be inside onnxruntime: only SIGKILL ends this process.
    child.kill('SIGKILL');
    const r = JSON.parse(line) as { error: string; failedAfter: number; worstLag: number; cpuSecondsAfter: number };
    expect(r.error).toMatch(/^Equivox stopped the model “loop” \(.*loop\.onnx\): checking its layers on a 1 s test clip took longer than the 6 s allowed for it\./);
    console.log(`thread fallback: failed ${r.failedAfter.toFixed(1)} s after the start (budget 6 s from the layer check); worst timer delay on the runner's thread ${r.worstLag.toFixed(0)} ms; CPU used in the second after (the thread that was told to end): ${r.cpuSecondsAfter.toFixed(2)} s`);
  }, 300_000);
});
