import { useEffect, useRef, useState } from 'react';
import type { EngineEvent, JobInfo, JobProgress, JobState } from '../../../shared/api';
import { bridge, call } from '../api';

export interface JobView {
  state: JobState | 'unknown';
  progress: JobProgress | null;
  /** Stages seen so far, in order, with their last progress (a stage is its words, when the engine gives them). */
  stages: { stage: string; label?: string; unit?: string; done: number; total: number }[];
  error?: string;
}

const EMPTY: JobView = { state: 'unknown', progress: null, stages: [] };

/** Not ended: waiting in line, running, or not heard of yet. */
export function jobActive(job: Pick<JobView, 'state'>): boolean {
  return job.state === 'running' || job.state === 'unknown' || job.state === 'queued';
}

/**
 * The view after a progress report: a report with `queue` (the job waits in line) shows its
 * place and leaves the stages alone, since waiting is not a stage of the work; any other
 * report is the job running. Pure, like jobViewAfter, so both are tested without a window.
 */
export function withProgress(view: JobView, progress: JobProgress): JobView {
  if (progress.queue) return { ...view, state: 'queued', progress };
  const stages = [...view.stages];
  const last = stages[stages.length - 1];
  const entry = { stage: progress.stage, ...(progress.label ? { label: progress.label } : {}), ...(progress.unit ? { unit: progress.unit } : {}), done: progress.done, total: progress.total };
  const same = last && last.stage === progress.stage && last.label === progress.label;
  if (same) stages[stages.length - 1] = entry;
  else stages.push(entry);
  const state = view.state === 'unknown' || view.state === 'queued' ? 'running' : view.state;
  return { ...view, state, progress, stages };
}

/** The view after an engine event, or null when the event is not about job `jobId`. */
export function jobViewAfter(view: JobView, e: EngineEvent, jobId: string): JobView | null {
  if (e.type === 'job.progress' && e.progress.jobId === jobId) return withProgress(view, e.progress);
  // Out of line: "Starting…" until its first report.
  if (e.type === 'job.started' && e.jobId === jobId) return view.state === 'queued' || view.state === 'unknown' ? { ...view, state: 'running', progress: null } : view;
  if (e.type === 'job.ended' && e.jobId === jobId) return { ...view, state: e.state, ...(e.error ? { error: e.error } : {}) };
  return null;
}

/** The view once `jobs.list` has answered (the job may have progressed, started or ended before the window subscribed). */
export function withListed(view: JobView, j: JobInfo): JobView {
  const v = j.progress && view.stages.length === 0 ? withProgress(view, j.progress) : view;
  const ended = j.state !== 'running' && j.state !== 'queued';
  if (v.state === 'unknown' || ended || (v.state === 'queued' && j.state === 'running')) return { ...v, state: j.state, ...(j.error ? { error: j.error } : {}) };
  return v;
}

/**
 * Follow one engine job. Progress is already throttled by the engine (~10/s); the hook
 * also coalesces updates to at most one render per 100 ms so the window never stalls.
 */
export function useJob(jobId: string | null): JobView {
  const [view, setView] = useState<JobView>(EMPTY);
  const latest = useRef<JobView>(EMPTY);

  useEffect(() => {
    latest.current = EMPTY;
    setView(EMPTY);
    if (!jobId) return;
    let timer: ReturnType<typeof setTimeout> | null = null;
    let alive = true;
    const flush = () => {
      timer = null;
      if (alive) setView(latest.current);
    };
    const schedule = (now = false) => {
      if (now) {
        if (timer) clearTimeout(timer);
        flush();
      } else if (!timer) timer = setTimeout(flush, 100);
    };
    const off = bridge().onEvent((e) => {
      const next = jobViewAfter(latest.current, e, jobId);
      if (!next) return;
      latest.current = next;
      // Progress is coalesced; a start or an end is shown at once.
      schedule(e.type !== 'job.progress');
    });
    // The job may have progressed (or ended) before we subscribed.
    void call('jobs.list', {})
      .then((jobs) => {
        const j = jobs.find((x) => x.jobId === jobId);
        if (!j || !alive) return;
        latest.current = withListed(latest.current, j);
        schedule(true);
      })
      .catch(() => undefined);
    return () => {
      alive = false;
      off();
      if (timer) clearTimeout(timer);
    };
  }, [jobId]);

  return view;
}

export function etaText(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return 'estimating time left…';
  if (seconds < 5) return 'almost done';
  if (seconds < 90) return `about ${Math.max(5, Math.round(seconds / 5) * 5)} seconds left`;
  return `about ${Math.round(seconds / 60)} minutes left`;
}
