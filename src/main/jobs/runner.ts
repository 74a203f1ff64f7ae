import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { EngineEvent, JobInfo, JobProgress } from '../../shared/api';
import { ApiError, CancelledError } from '../../shared/errors';
import type { WorkerMessage, WorkerStart } from './protocol';
import type { ProgressDetail } from './task';

/**
 * Where the worker entry lives. From source (tsx, vitest) it is worker.ts, loaded
 * through tsx; in the electron-vite bundle it is worker.js beside the main bundle; in the
 * bundled CLI (scripts/build-cli.mjs) out/cli/worker.mjs, one folder above this chunk.
 */
function workerEntry(): { file: string; entryUrl: string | undefined } {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith('.ts')) {
    return { file: join(dirname(here), 'ts-worker-boot.mjs'), entryUrl: pathToFileURL(join(dirname(here), 'worker.ts')).href };
  }
  const candidates = [join(dirname(here), 'worker.js'), join(dirname(here), 'jobs', 'worker.js'), join(dirname(here), '..', 'worker.mjs'), join(dirname(here), 'worker.mjs')];
  const file = candidates.find((c) => existsSync(c)) ?? candidates[0]!;
  return { file, entryUrl: undefined };
}

interface Running {
  info: JobInfo;
  input: unknown;
  cancelFlag: Int32Array;
  worker: Worker;
  started: number;
  stageStarted: number;
  stage: string;
  /** The first report of measured work (etaOf measures the pace from there). */
  first?: FirstUnits;
  /** The time left last shown and when (seconds since the job started), for steadyEta. */
  shown?: { at: number; eta: number };
}

/** The first report of measured work in a job: when it came and how much estimated work it said was done. */
export interface FirstUnits {
  /** Seconds since the job started. */
  at: number;
  /** Estimated seconds of work done by then. */
  estimatedDone: number;
  overall: number;
}

/** Estimated seconds of work done, from a report's fraction and estimated seconds left. */
export function estimatedDoneOf(d: ProgressDetail): number | null {
  if (d.estimatedSecondsLeft === undefined || d.overall === undefined) return null;
  return d.overall >= 1 ? 0 : (d.estimatedSecondsLeft * d.overall) / (1 - d.overall);
}

/**
 * Seconds left. With the task's own estimate of the work left (from measured rates) the
 * estimate is corrected by how fast this run has gone against that estimate since its
 * first measured units (`first`: the worker's start and model loading are over by then
 * and do not recur), so a slower or faster computer than the rates were measured on
 * still gets the right figure; otherwise the current stage's own rate.
 */
export function etaOf(m: { done: number; total: number; detail?: ProgressDetail }, elapsedJob: number, elapsedStage: number, first?: FirstUnits): number | null {
  const d = m.detail;
  // The task measured its own stages' pace (WorkTracker): its figure already is the correction.
  if (d?.pacedSecondsLeft !== undefined) return d.pacedSecondsLeft;
  const estimatedDone = d ? estimatedDoneOf(d) : null;
  if (d?.estimatedSecondsLeft !== undefined && d.overall !== undefined && estimatedDone !== null) {
    const work = estimatedDone - (first?.estimatedDone ?? 0);
    const took = elapsedJob - (first?.at ?? 0);
    // Only once enough has been measured for the ratio to mean something (a second of
    // estimated work over three real seconds), and fully once a tenth of the job has been
    // measured: rates from another computer can be off five-fold (a "4 minutes left" for
    // a 46-second run), and a tenth of this run says more about the rest than they do.
    const pace = work > 1 && took > 3 ? Math.min(20, Math.max(0.05, took / work)) : 1;
    const trust = Math.min(1, Math.max(0, d.overall - (first?.overall ?? 0)) / 0.1);
    return d.estimatedSecondsLeft * (1 + (pace - 1) * trust);
  }
  return m.done > 0 && m.total > m.done && elapsedStage > 0 ? (elapsedStage / m.done) * (m.total - m.done) : m.done >= m.total ? 0 : null;
}

/** Seconds over which a shown time left follows a new estimate. */
const STEADY_SECONDS = 1;

/**
 * The time left to show: between reports it counts down with the clock, and it follows a
 * new estimate over about a second rather than at once, so it does not flicker with every
 * recording's speed; a change of more than a quarter, or the end, is shown at once: the
 * figure stays calm only while calm is honest. Times in seconds since the job started.
 */
export function steadyEta(previous: { at: number; eta: number } | undefined, estimate: number, at: number): number {
  if (!previous || estimate <= 0) return Math.max(0, estimate);
  const counted = Math.max(0, previous.eta - Math.max(0, at - previous.at));
  if (Math.abs(estimate - counted) > 0.25 * Math.max(estimate, counted)) return estimate;
  const follow = 1 - Math.exp(-Math.max(0, at - previous.at) / STEADY_SECONDS);
  return counted + (estimate - counted) * follow;
}

/**
 * Runs tasks in worker threads, one worker per job, and turns their messages into
 * engine events with an ETA. Cancel sets a shared flag the task polls; a task that
 * ignores it is terminated after a grace period.
 */
export class JobRunner {
  private readonly jobs = new Map<string, Running>();
  private readonly finished: JobInfo[] = [];

  /** Told of every job started, before it runs (the engine process reports them to its host so a crash can resume them). */
  onStarted: ((job: { jobId: string; kind: string; input: unknown }) => void) | undefined;

  /**
   * Niceness for job threads, so interactive calls are served before batch work on a busy
   * computer; the engine process sets it, the CLI (whose jobs are what the user waits for) does not.
   */
  jobNice: number | undefined;

  constructor(private readonly emit: (event: EngineEvent) => void = () => {}) {}

  start<O>(kind: string, input: unknown, options: { jobId?: string; onProgress?: (p: JobProgress) => void } = {}): { jobId: string; result: Promise<O> } {
    const jobId = options.jobId ?? randomUUID();
    const shared = new SharedArrayBuffer(4);
    const cancelFlag = new Int32Array(shared);
    const entry = workerEntry();
    const start: WorkerStart & { entryUrl?: string } = { kind, input, cancelFlag: shared, ...(this.jobNice !== undefined ? { nice: this.jobNice } : {}), ...(entry.entryUrl ? { entryUrl: entry.entryUrl } : {}) };
    // The worker copies this thread's environment, ORT_DISABLE_TELEMETRY included
    // (src/main/security/telemetry.ts); src/main/inference/ort.ts checks it there again.
    const worker = new Worker(entry.file, { workerData: start });
    const running: Running = {
      info: { jobId, kind, state: 'running', progress: null },
      input,
      cancelFlag,
      worker,
      started: Date.now(),
      stageStarted: Date.now(),
      stage: '',
    };
    this.jobs.set(jobId, running);
    this.onStarted?.({ jobId, kind, input });
    const result = new Promise<O>((resolvePromise, reject) => {
      let settled = false;
      const end = (state: 'finished' | 'failed' | 'cancelled', error?: string) => {
        if (settled) return;
        settled = true;
        running.info.state = state;
        if (error !== undefined) running.info.error = error;
        this.jobs.delete(jobId);
        this.finished.push(running.info);
        if (this.finished.length > 200) this.finished.shift();
        this.emit({ type: 'job.ended', jobId, kind, state, ...(error !== undefined ? { error } : {}) });
        void worker.terminate();
      };
      worker.on('message', (m: WorkerMessage) => {
        if (m.type === 'progress') {
          const now = Date.now();
          if (m.stage !== running.stage) {
            running.stage = m.stage;
            running.stageStarted = now;
          }
          const elapsed = (now - running.started) / 1000;
          const done = m.detail ? estimatedDoneOf(m.detail) : null;
          if (!running.first && done !== null && done > 0) running.first = { at: elapsed, estimatedDone: done, overall: m.detail!.overall! };
          const raw = etaOf(m, elapsed, (now - running.stageStarted) / 1000, running.first);
          const eta = raw !== null && m.detail?.pacedSecondsLeft !== undefined ? steadyEta(running.shown, raw, elapsed) : raw;
          if (eta !== null) running.shown = { at: elapsed, eta };
          const progress: JobProgress = {
            jobId,
            stage: m.stage,
            done: m.done,
            total: m.total,
            etaSeconds: eta === null ? null : Math.round(eta * 10) / 10,
            ...(m.detail?.label ? { label: m.detail.label } : {}),
            ...(m.detail?.unit ? { unit: m.detail.unit } : {}),
            ...((m.detail?.pacedOverall ?? m.detail?.overall) !== undefined ? { fraction: Math.min(1, Math.max(0, m.detail!.pacedOverall ?? m.detail!.overall!)) } : {}),
          };
          running.info.progress = progress;
          options.onProgress?.(progress);
          this.emit({ type: 'job.progress', progress });
        } else if (m.type === 'result') {
          end('finished');
          resolvePromise(m.result as O);
        } else {
          const cancelled = m.error.code === 'cancelled';
          end(cancelled ? 'cancelled' : 'failed', m.error.message);
          reject(cancelled ? new CancelledError(m.error.message) : new ApiError((m.error.code as ApiError['code']) ?? 'internal', m.error.message, m.error.field));
        }
      });
      worker.on('error', (err) => {
        end('failed', err.message);
        reject(err);
      });
      worker.on('exit', (code) => {
        if (settled) return;
        if (Atomics.load(cancelFlag, 0) === 1) {
          end('cancelled', 'Cancelled');
          reject(new CancelledError());
        } else {
          end('failed', `worker exited with code ${code}`);
          reject(new Error(`job ${kind} worker exited with code ${code}`));
        }
      });
    });
    // Unhandled rejections of fire-and-forget jobs are reported through events instead.
    result.catch(() => {});
    return { jobId, result };
  }

  cancel(jobId: string, graceMs = 5000): boolean {
    const running = this.jobs.get(jobId);
    if (!running) return false;
    Atomics.store(running.cancelFlag, 0, 1);
    const timer = setTimeout(() => void running.worker.terminate(), graceMs);
    timer.unref();
    return true;
  }

  /**
   * Jobs of `kind` running now, with their inputs: how a handler tells whether its work is under
   * way, also for jobs a restarted engine process took over (they were not started by the handler).
   */
  runningOf(kind: string): { jobId: string; input: unknown }[] {
    return [...this.jobs.values()].filter((r) => r.info.kind === kind).map((r) => ({ jobId: r.info.jobId, input: r.input }));
  }

  list(): JobInfo[] {
    return [...[...this.jobs.values()].map((r) => r.info), ...this.finished].map((i) => ({ ...i }));
  }

  async shutdown(): Promise<void> {
    await Promise.all([...this.jobs.values()].map((r) => r.worker.terminate()));
    this.jobs.clear();
  }
}
