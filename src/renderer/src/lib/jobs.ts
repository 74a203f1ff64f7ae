import { useEffect, useRef, useState } from 'react';
import type { JobProgress, JobState } from '../../../shared/api';
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
    const apply = (progress: JobProgress) => {
      // In line: its place is shown, but waiting is not a stage of the work.
      if (progress.queue) {
        latest.current = { ...latest.current, state: 'queued', progress };
        return;
      }
      const stages = [...latest.current.stages];
      const last = stages[stages.length - 1];
      const entry = { stage: progress.stage, ...(progress.label ? { label: progress.label } : {}), ...(progress.unit ? { unit: progress.unit } : {}), done: progress.done, total: progress.total };
      const same = last && last.stage === progress.stage && last.label === progress.label;
      if (same) stages[stages.length - 1] = entry;
      else stages.push(entry);
      const state = latest.current.state === 'unknown' || latest.current.state === 'queued' ? 'running' : latest.current.state;
      latest.current = { ...latest.current, state, progress, stages };
    };
    const off = bridge().onEvent((e) => {
      if (e.type === 'job.progress' && e.progress.jobId === jobId) {
        apply(e.progress);
        schedule();
      } else if (e.type === 'job.started' && e.jobId === jobId) {
        // Out of line: "Starting…" until its first report.
        if (latest.current.state === 'queued' || latest.current.state === 'unknown') latest.current = { ...latest.current, state: 'running', progress: null };
        schedule(true);
      } else if (e.type === 'job.ended' && e.jobId === jobId) {
        latest.current = { ...latest.current, state: e.state, ...(e.error ? { error: e.error } : {}) };
        schedule(true);
      }
    });
    // The job may have progressed (or ended) before we subscribed.
    void call('jobs.list', {})
      .then((jobs) => {
        const j = jobs.find((x) => x.jobId === jobId);
        if (!j || !alive) return;
        if (j.progress && latest.current.stages.length === 0) apply(j.progress);
        if (latest.current.state === 'unknown' || (j.state !== 'running' && j.state !== 'queued')) latest.current = { ...latest.current, state: j.state, ...(j.error ? { error: j.error } : {}) };
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
