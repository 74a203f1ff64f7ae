/**
 * What the window shows of a job that waits in line (issue 33 item 7): the view the
 * renderer's useJob keeps (its pure reducers, fed the events the runner really sends) and
 * the JobProgress component rendered to markup with React's server renderer.
 */
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../../src/shared/api';
import { JobRunner } from '../../../src/main/jobs/runner';
import { JobProgress } from '../../../src/renderer/src/components/JobProgress';
import { jobViewAfter, withListed, type JobView } from '../../../src/renderer/src/lib/jobs';

const EMPTY: JobView = { state: 'unknown', progress: null, stages: [] };

describe('a waiting job in the window', () => {
  it('shows its place while it waits, then its work, and waiting is not listed as a stage done', async () => {
    const events: EngineEvent[] = [];
    const runner = new JobRunner((e) => events.push(e));
    runner.limits = { ...runner.limits, other: 1 };
    const first = runner.start('selftest.count', { units: 3, unitMs: 20 });
    const second = runner.start('selftest.count', { units: 3, unitMs: 20 });
    // A window that opens now learns the job's state from jobs.list.
    const listed = runner.list().find((j) => j.jobId === second.jobId)!;
    let view = withListed(EMPTY, listed);
    expect(view.state).toBe('queued');
    const html = renderToStaticMarkup(createElement(JobProgress, { job: view, label: 'Second job' }));
    expect(html).toContain('<strong>Waiting to start: next in line (one job at a time on this computer)</strong>');
    expect(html).toMatch(/<progress class="bar" max="100" aria-label="Second job">working<\/progress>/);
    await first.result;
    await second.result;
    for (const e of events) view = jobViewAfter(view, e, second.jobId) ?? view;
    expect(view.state).toBe('finished');
    expect(view.stages.map((s) => s.stage)).toEqual(['counting']);
    // Between the start and the first report: "Starting…".
    const started = events.findIndex((e) => e.type === 'job.started' && e.jobId === second.jobId);
    expect(started).toBeGreaterThan(0);
    let atStart = withListed(EMPTY, listed);
    for (const e of events.slice(0, started + 1)) atStart = jobViewAfter(atStart, e, second.jobId) ?? atStart;
    expect(atStart).toMatchObject({ state: 'running', progress: null });
    expect(renderToStaticMarkup(createElement(JobProgress, { job: atStart, label: 'Second job' }))).toContain('<strong>Starting…</strong>');
    await runner.shutdown();
  });
});
