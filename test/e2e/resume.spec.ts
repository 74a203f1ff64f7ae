import { expect, test, type APIRequestContext } from '@playwright/test';
import { AuditorApp } from './pages/app';
import { killTree } from './pages/process';
import { startHost, type RunningHost } from './web-host';

async function api<T>(request: APIRequestContext, host: RunningHost, name: string, input: unknown): Promise<T> {
  const res = await request.post(`${host.base}/api/invoke/${name}`, { data: input, headers: { 'X-Equivox-Token': host.token } });
  const body = (await res.json()) as { ok: boolean; result?: T; error?: unknown };
  if (!body.ok) throw new Error(`${name}: ${JSON.stringify(body.error)}`);
  return body.result as T;
}

interface Job {
  jobId: string;
  state: string;
  progress: { stage: string; done: number; total: number } | null;
}

async function waitFor<T>(fn: () => Promise<T | null>, timeoutMs: number): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== null) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 250));
  }
}

test('a run killed with the app is offered for resumption and finishes when resumed', async ({ page, request }, info) => {
  test.setTimeout(10 * 60_000);
  const first = await startHost();
  const home = first.home;
  let second: RunningHost | null = null;
  try {
    // Set up quickly through the API; the run is the part under test.
    const project = await api<{ id: string }>(request, first, 'projects.create', { name: 'Interrupted audit' });
    const imp = await api<{ jobId: string }>(request, first, 'demo.import', { projectId: project.id });
    await waitFor(async () => ((await api<Job[]>(request, first, 'jobs.list', {})).find((j) => j.jobId === imp.jobId)?.state === 'finished' ? true : null), 180_000);
    const config = await api<object>(request, first, 'plans.demo', { projectId: project.id, fast: true });
    const plan = await api<{ id: string }>(request, first, 'plans.save', { projectId: project.id, config });
    await api(request, first, 'plans.lock', { projectId: project.id, planId: plan.id });
    const run = await api<{ auditId: string; jobId: string }>(request, first, 'audits.start', { projectId: project.id, planId: plan.id });

    // Watch it in the app, then kill the host mid-run.
    await page.goto(first.url);
    const app = new AuditorApp(page, info);
    await app.openProject('Interrupted audit');
    await waitFor(async () => {
      const job = (await api<Job[]>(request, first, 'jobs.list', {})).find((j) => j.jobId === run.jobId);
      return job?.progress && job.progress.done > 0 ? job : null;
    }, 120_000);
    killTree(first.process.pid!);
    await first.stop('SIGKILL');

    // Open the app again on the same data folder.
    second = await startHost(home);
    await page.goto(second.url);
    await app.openProject('Interrupted audit');
    const offer = page.getByRole('region', { name: 'An audit run stopped before it finished' });
    await expect(offer).toBeVisible();
    await app.record('resume-offer');
    await offer.getByRole('button', { name: 'Resume the audit' }).click();
    await app.expectStep(6, 'Run');
    await expect(page.getByText(/The audit finished/)).toBeVisible({ timeout: 6 * 60_000 });
    await app.record('resume-finished');
    const runs = await api<{ id: string; status: string }[]>(request, second, 'audits.list', { projectId: project.id });
    expect(runs.find((r) => r.id === run.auditId)?.status).toBe('finished');
  } finally {
    if (first.process.exitCode === null) killTree(first.process.pid!);
    if (second) {
      killTree(second.process.pid!);
      await second.stop('SIGKILL');
    }
  }
});
