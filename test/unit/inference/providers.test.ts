import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allowSpinning, createSession, cudaLibraryPresent, defaultThreads, physicalCores, providerOrder } from '../../../src/main/inference/providers';

describe('execution providers', () => {
  it('orders providers by platform and ends with CPU', () => {
    expect(providerOrder('linux', ['cpu', 'webgpu', 'cuda'], 'auto', true)).toEqual(['cuda', 'cpu']);
    expect(providerOrder('linux', ['cpu', 'webgpu', 'cuda'], 'auto', false)).toEqual(['cpu']);
    expect(providerOrder('win32', ['cpu', 'dml', 'webgpu'], 'auto')).toEqual(['dml', 'webgpu', 'cpu']);
    expect(providerOrder('darwin', ['cpu', 'coreml', 'webgpu'], 'auto')).toEqual(['coreml', 'webgpu', 'cpu']);
    expect(providerOrder('linux', ['cpu'], 'webgpu')).toEqual(['webgpu']);
  });

  it('records provider, threads and onnxruntime version', async () => {
    const bytes = readFileSync(join(__dirname, '../../../resources/models/acoustic-baseline.onnx'));
    const { session, info } = await createSession(bytes, { threads: 2 });
    expect(info.provider).toBe(cudaLibraryPresent() ? 'cuda' : 'cpu');
    expect(info.threads).toBe(2);
    expect(info.ortVersion).toBe('1.30.0');
    await session.release();
  });

  it('a forced provider that cannot start fails with a message naming it', async () => {
    if (cudaLibraryPresent()) return;
    const bytes = readFileSync(join(__dirname, '../../../resources/models/acoustic-baseline.onnx'));
    await expect(createSession(bytes, { provider: 'cuda' })).rejects.toThrow(/cuda execution provider could start this model|The cuda execution provider/);
  });

  it('defaults to every physical core (at most 8), counted from the CPU topology on Linux', () => {
    const logical = availableParallelism();
    const cores = physicalCores();
    expect(cores).toBeGreaterThanOrEqual(1);
    expect(cores).toBeLessThanOrEqual(logical);
    if (process.platform === 'linux' && existsSync('/sys/devices/system/cpu/cpu0/topology/core_id')) {
      // Independently: distinct (package, core) pairs among the CPUs /proc/cpuinfo lists.
      const info = readFileSync('/proc/cpuinfo', 'utf8').split(/\n\n+/).filter((b) => /^processor/m.test(b));
      if (info.every((b) => /core id\s*:/.test(b))) {
        const pairs = new Set(info.map((b) => `${/physical id\s*:\s*(\d+)/.exec(b)?.[1] ?? '0'}/${/core id\s*:\s*(\d+)/.exec(b)![1]}`));
        expect(cores).toBe(Math.min(logical, pairs.size));
      }
    }
    expect(defaultThreads()).toBe(Math.min(8, cores));
  });

  it('spin-waits only while the machine is otherwise idle, unless EQUIVOX_ORT_SPIN says', () => {
    const before = process.env.EQUIVOX_ORT_SPIN;
    try {
      delete process.env.EQUIVOX_ORT_SPIN;
      expect(allowSpinning(0.5, 2)).toBe(true);
      expect(allowSpinning(9.7, 2)).toBe(false);
      expect(allowSpinning(0, 8)).toBe(true); // Windows reports a load average of 0
      process.env.EQUIVOX_ORT_SPIN = '1';
      expect(allowSpinning(9.7, 2)).toBe(true);
      process.env.EQUIVOX_ORT_SPIN = '0';
      expect(allowSpinning(0.5, 2)).toBe(false);
    } finally {
      if (before === undefined) delete process.env.EQUIVOX_ORT_SPIN;
      else process.env.EQUIVOX_ORT_SPIN = before;
    }
  });
});
