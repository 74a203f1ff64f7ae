import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect, test, type APIRequestContext } from '@playwright/test';
import { AuditorApp } from './pages/app';
import { startHost, type RunningHost } from './web-host';
import type { EmbeddingRow } from '../../src/main/store/embeddings';

async function api<T>(request: APIRequestContext, host: RunningHost, name: string, input: unknown): Promise<T> {
  const res = await request.post(`${host.base}/api/invoke/${name}`, { data: input, headers: { 'X-Equivox-Token': host.token } });
  const body = (await res.json()) as { ok: boolean; result?: T; error?: unknown };
  if (!body.ok) throw new Error(`${name}: ${JSON.stringify(body.error)}`);
  return body.result as T;
}

interface Job {
  jobId: string;
  state: string;
  error?: string;
  progress: { stage: string; done: number; total: number } | null;
}

async function waitFor<T>(fn: () => Promise<T | null>, timeoutMs: number, what: string): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== null) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The web host's children: the engine process is its only one (job workers are threads inside it). */
function engineProcesses(hostPid: number): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=', '--ppid', String(hostPid)]).toString().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** Every embedding row of a project, as one hash over its key and its float bytes, plus the row count. */
function embeddingsDigest(projectPath: string): { rows: number; sha256: string } {
  const db = new Database(join(projectPath, 'project.sqlite'), { readonly: true });
  try {
    const rows = db.prepare('SELECT audio_sha256, model_sha256, settings_key, layer_count, dims_json, frames, mean, min, max FROM embeddings ORDER BY audio_sha256, model_sha256, settings_key').all() as Omit<EmbeddingRow, 'provider' | 'created_at'>[];
    const h = createHash('sha256');
    for (const r of rows) {
      h.update(`${r.audio_sha256}|${r.model_sha256}|${r.settings_key}|${r.layer_count}|${r.dims_json}|${r.frames}|`);
      h.update(r.mean).update(r.min).update(r.max);
    }
    return { rows: rows.length, sha256: h.digest('hex') };
  } finally {
    db.close();
  }
}

async function demoProject(request: APIRequestContext, host: RunningHost, name: string): Promise<{ id: string; path: string; datasetId: string; usable: number }> {
  const project = await api<{ id: string; path: string }>(request, host, 'projects.create', { name });
  const imp = await api<{ jobId: string }>(request, host, 'demo.import', { projectId: project.id });
  await waitFor(async () => ((await api<Job[]>(request, host, 'jobs.list', {})).find((j) => j.jobId === imp.jobId)?.state === 'finished' ? true : null), 180_000, 'the demo import');
  const datasets = await api<{ id: string; usable: number }[]>(request, host, 'datasets.list', { projectId: project.id });
  // The largest dataset: the longest embedding job, so the kill lands in the middle of it.
  const biggest = [...datasets].sort((a, b) => b.usable - a.usable)[0]!;
  return { id: project.id, path: project.path, datasetId: biggest.id, usable: biggest.usable };
}

const MODEL = 'speech-embedding';

test('the engine process killed with SIGKILL mid-embedding is restarted, the UI says so and the job finishes with the same embeddings', async ({ page, request }, info) => {
  test.setTimeout(10 * 60_000);
  const host = await startHost();
  try {
    // The reference: the same dataset embedded without interruption, in its own project.
    const reference = await demoProject(request, host, 'Uninterrupted');
    await api(request, host, 'models.embed', { projectId: reference.id, datasetId: reference.datasetId, modelId: MODEL, provider: 'cpu', threads: 1, wait: true });
    const expected = embeddingsDigest(reference.path);
    expect(expected.rows).toBe(reference.usable);

    const crashed = await demoProject(request, host, 'Engine crash');
    await page.goto(host.url);
    const app = new AuditorApp(page, info);
    await app.openProject('Engine crash');
    const [enginePid] = engineProcesses(host.process.pid!);
    expect(enginePid).toBeGreaterThan(0);

    const run = await api<{ jobId: string }>(request, host, 'models.embed', { projectId: crashed.id, datasetId: crashed.datasetId, modelId: MODEL, provider: 'cpu', threads: 1 });
    const before = await waitFor(
      async () => {
        const job = (await api<Job[]>(request, host, 'jobs.list', {})).find((j) => j.jobId === run.jobId);
        return job?.progress && job.progress.stage === 'embedding' && job.progress.done > 0 ? job : null;
      },
      120_000,
      'the first embeddings',
    );
    expect(before.state).toBe('running');
    expect(before.progress!.done).toBeLessThan(before.progress!.total);
    process.kill(enginePid!, 'SIGKILL');

    // The host stays up and the window says what happened.
    await expect(page.getByRole('alert', { name: 'The engine was restarted' })).toBeVisible({ timeout: 60_000 });
    await expect(page.getByRole('alert', { name: 'The engine was restarted' })).toContainText('killed by SIGKILL');
    await expect(page.getByRole('alert', { name: 'The engine was restarted' })).toContainText('The interrupted job goes on from where it stopped');
    await app.record('engine-restarted');
    expect(host.process.exitCode).toBeNull();
    const appInfo = await api<{ name: string }>(request, host, 'app.info', {});
    expect(appInfo.name).toBe('Equivox');
    const [newPid] = engineProcesses(host.process.pid!);
    expect(newPid).toBeGreaterThan(0);
    expect(newPid).not.toBe(enginePid);

    // The same job id goes on and finishes.
    const finished = await waitFor(
      async () => {
        const job = (await api<Job[]>(request, host, 'jobs.list', {})).find((j) => j.jobId === run.jobId);
        return job && job.state !== 'running' ? job : null;
      },
      6 * 60_000,
      'the resumed job',
    );
    expect(finished.error ?? null).toBeNull();
    expect(finished.state).toBe('finished');
    expect(embeddingsDigest(crashed.path)).toEqual(expected);
  } finally {
    await host.stop('SIGKILL');
  }
});
