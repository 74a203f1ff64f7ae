import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../../src/shared/api';
import { ApiError } from '../../../src/shared/errors';
import { forkEngine } from '../../../src/main/engine-fork';
import { EngineClient } from '../../../src/main/engine-transport';

let client: EngineClient | null = null;
afterEach(async () => {
  await client?.close();
  client = null;
});

function nextEvent(c: EngineClient, type: EngineEvent['type']): Promise<EngineEvent> {
  return new Promise((resolve) => {
    const off = c.events.subscribe((e) => {
      if (e.type === type) {
        off();
        resolve(e);
      }
    });
  });
}

describe('the engine process behind EngineClient', () => {
  it('answers the contract from another process, keeps error shapes, and comes back after SIGKILL', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'equivox-engine-proc-'));
    client = new EngineClient(() => forkEngine(), { host: 'web', dataDir, pathPolicy: 'granted', picker: false, shell: false });
    await client.whenReady();
    const first = client.pid;
    expect(first).toBeGreaterThan(0);
    expect(first).not.toBe(process.pid);
    const info = (await client.invoke('app.info', {})) as { host: string; dataDir: string };
    expect(info.host).toBe('web');
    expect(info.dataDir).toBe(dataDir);

    const err = await client.invoke('projects.nope', {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe('unknown_operation');
    const bad = await client.invoke('projects.create', { name: 42 }).catch((e: unknown) => e);
    expect((bad as ApiError).code).toBe('validation');
    expect((bad as ApiError).field).toBe('name');

    const created = (await client.invoke('projects.create', { name: 'Survives' })) as { id: string };
    const restarted = nextEvent(client, 'engine.restarted');
    process.kill(first!, 'SIGKILL');
    const event = await restarted;
    expect(event).toEqual({ type: 'engine.restarted', reason: 'killed by SIGKILL', resumedJobs: [] });
    expect(client.lastNotice).toEqual(event);
    await client.whenReady();
    expect(client.pid).not.toBe(first);
    // The new process reads the same data folder.
    const listed = (await client.invoke('projects.list', {})) as { id: string; name: string }[];
    expect(listed.map((p) => [p.id, p.name])).toEqual([[created.id, 'Survives']]);
  }, 120_000);
});
