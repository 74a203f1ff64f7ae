/**
 * onnxruntime-node's native telemetry is off in every process that can load it: each
 * entry point imports src/main/security/telemetry-off first, and loading the library
 * anywhere else fails loudly (src/main/inference/ort.ts). The end-to-end proof is the
 * strace run of the demo in offline.test.ts; these are the fast checks of the mechanism.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertTelemetryOff, missingPrivacyEnv, PRIVACY_ENV } from '../../../src/main/security/telemetry';

const repo = resolve(import.meta.dirname, '..', '..', '..');

function nodeWithout(code: string): { status: number | null; out: string } {
  const env = { ...process.env };
  for (const k of Object.keys(PRIVACY_ENV)) delete env[k];
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: repo, env, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

describe('native telemetry switch', () => {
  it('names ORT_DISABLE_TELEMETRY=1 as the one variable, and finds it missing or wrong', () => {
    expect(PRIVACY_ENV).toEqual({ ORT_DISABLE_TELEMETRY: '1' });
    expect(missingPrivacyEnv({})).toEqual(['ORT_DISABLE_TELEMETRY']);
    expect(missingPrivacyEnv({ ORT_DISABLE_TELEMETRY: '0' })).toEqual(['ORT_DISABLE_TELEMETRY']);
    expect(missingPrivacyEnv({ ORT_DISABLE_TELEMETRY: '1' })).toEqual([]);
    expect(() => assertTelemetryOff('x', {})).toThrow(/x was loaded without ORT_DISABLE_TELEMETRY=1/);
  });

  it('refuses to load onnxruntime-node in a process whose entry point did not turn telemetry off', () => {
    // Importing the wrapper loads nothing (issue 35 item 1); the library loads on first use, and that refuses.
    const r = nodeWithout("const { onnxruntime } = await import('./src/main/inference/ort.ts'); onnxruntime(); console.log('LOADED');");
    expect(r.status).not.toBe(0);
    expect(r.out).toMatch(/onnxruntime-node was loaded without ORT_DISABLE_TELEMETRY=1/);
    expect(r.out).not.toContain('LOADED');
  });

  it('loads it, with the variable set in the environment and in worker threads, once telemetry-off ran first', () => {
    const r = nodeWithout(
      [
        "await import('./src/main/security/telemetry-off.ts');",
        "const ort = await import('./src/main/inference/ort.ts');",
        "const { Worker } = await import('node:worker_threads');",
        "const w = new Worker(\"import { parentPort } from 'node:worker_threads'; parentPort.postMessage(process.env.ORT_DISABLE_TELEMETRY);\", { eval: true });",
        "const inWorker = await new Promise((r) => w.once('message', r));",
        "console.log(JSON.stringify({ session: typeof ort.onnxruntime().InferenceSession.create, main: process.env.ORT_DISABLE_TELEMETRY, inWorker }));",
      ].join('\n'),
    );
    expect(r.status, r.out).toBe(0);
    expect(JSON.parse(r.out.trim().split('\n').pop()!)).toEqual({ session: 'function', main: '1', inWorker: '1' });
  });

  it.each(['src/main/cli.ts', 'src/main/web.ts', 'src/main/index.ts', 'src/main/engine-process.ts', 'src/main/job-process.ts', 'bench/inference.ts', 'bench/load.ts', 'bench/gpu-check.ts'])(
    '%s imports telemetry-off before anything else',
    (file) => {
      const firstImport = readFileSync(join(repo, file), 'utf8')
        .split('\n')
        .find((l) => /^import\b/.test(l));
      expect(firstImport).toMatch(/^import '(\.\/|\.\.\/src\/main\/)security\/telemetry-off';/);
    },
  );
});
