import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSession, cudaLibraryPresent, providerOrder } from '../../../src/main/inference/providers';

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
});
