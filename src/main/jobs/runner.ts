import { randomUUID } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import type { EngineEvent, JobInfo, JobProgress } from '../../shared/api';
import { ApiError, CancelledError } from '../../shared/errors';
import { MODEL_JOB_KINDS, parseResumedJob, type JobInput, type JobKind, type JobOutput } from '../../shared/jobs';
import { workerEntry } from './entries';
import { budgetMessage, type HeldBudget } from './budget-watch';
import { defaultJobLimits, JOB_CLASS_WORDS, jobClassOf, type JobClass } from './limits';
import { canForkJobProcesses, ProcessWorker, type JobWorker } from './process-worker';
import type { RunnerMessage, WorkerBoot, WorkerMessage } from './protocol';
import type { ProgressDetail } from './task';

interface Running {
  info: JobInfo;
  input: unknown;
  cancelFlag: Int32Array;
  slot: Slot;
  started: number;
  stageStarted: number;
  stage: string;
  /** The first report of measured work (etaOf measures the pace from there). */
  first?: FirstUnits;
  /** The time left last shown and when (seconds since the job started), for steadyEta. */
  shown?: { at: number; eta: number };
  /** Terminates the worker when a cancelled job has not stopped within its grace period. */
  graceTimer?: NodeJS.Timeout;
  /** The budget the task holds its work to now (jobs/budget-watch.ts). */
  budget?: HeldBudget;
  /** Ends the job failed and its worker, when it goes past its budget. */
  overBudget?: (message: string) => void;
}

/** A job in line for its class's limit (jobs/limits.ts): started when a job of its class ends. */
interface Waiting {
  info: JobInfo;
  kind: string;
  input: unknown;
  cls: JobClass;
  onProgress: ((p: JobProgress) => void) | undefined;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

/** What a worker thread's events go to: the job it runs now. */
interface JobHandlers {
  message(m: WorkerMessage): void;
  error(err: Error): void;
  exit(code: number): void;
}

/** One worker thread: runs one job at a time, and waits idle for the next between jobs. */
interface Slot {
  worker: JobWorker;
  /** A job process (jobs/process-worker.ts) rather than a thread of this process. */
  isProcess: boolean;
  /** A job process's resident memory, as it last reported it. */
  rss: number | null;
  /** The niceness it was started with (a thread cannot take a higher priority back). */
  nice: number | undefined;
  /** The kind of the job it runs or last ran. */
  kind: string;
  /** Set while it runs a job. */
  job: JobHandlers | undefined;
  /** Terminated, exited or told to end: never given another job. */
  gone: boolean;
  idleTimer?: NodeJS.Timeout;
  exited: Promise<void>;
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

/** Idle workers kept for the next job: each holds what its last jobs loaded (an onnxruntime session among them). */
export const MAX_IDLE_WORKERS = 2;
/** An idle worker ends after this long without a job, releasing its sessions. */
export const WORKER_IDLE_MS = 60_000;
/** How long a worker told to end may take to release its sessions before it is terminated. */
const DISPOSE_GRACE_MS = 2000;

/**
 * Runs tasks in worker threads and turns their messages into engine events with an ETA.
 * A worker runs one job at a time; when its job ends it waits idle for the next one (at
 * most MAX_IDLE_WORKERS of them, each for WORKER_IDLE_MS), so the models a job loaded
 * (inference/embedder-pool.ts) serve the next job instead of being set up again. Idle
 * workers are unref'd: a process whose owner never calls shutdown still exits. Cancel
 * sets a shared flag the task polls; a task that ignores it is terminated after a grace
 * period, and a terminated or crashed worker is never given another job.
 */
export class JobRunner {
  private readonly jobs = new Map<string, Running>();
  /** Jobs in line, oldest first (all classes; each class starts its own in this order). */
  private readonly waiting: Waiting[] = [];
  private readonly finished: JobInfo[] = [];
  /** Idle workers, the most recently idle last. */
  private readonly idle: Slot[] = [];
  private readonly slots = new Set<Slot>();

  /** Told of every job started, before it runs (the engine process reports them to its host so a crash can resume them). */
  onStarted: ((job: { jobId: string; kind: string; input: unknown }) => void) | undefined;

  /**
   * Niceness for job threads, so interactive calls are served before batch work on a busy
   * computer; the engine process sets it, the CLI (whose jobs are what the user waits for) does not.
   */
  jobNice: number | undefined;

  /** Jobs of each class that run at once (jobs/limits.ts); the rest wait in line. Settable (tests, the engine's environment). */
  limits: Record<JobClass, number> = defaultJobLimits();

  /** Idle workers kept, and how long each waits for a job (tests shorten it). */
  maxIdleWorkers = MAX_IDLE_WORKERS;
  workerIdleMs = WORKER_IDLE_MS;

  /**
   * Jobs that run models from other people (MODEL_JOB_KINDS) run in job processes, which
   * the runner can end at once when a model goes past its budget; elsewhere (inside
   * Electron, which cannot fork Node processes) in threads, ended as far as a thread can be.
   */
  modelProcesses = canForkJobProcesses();

  /**
   * Kinds run in job processes where `modelProcesses` allows: the model jobs, and in the
   * engine process also the jobs that start a child per recording (SPAWNING_JOB_KINDS, set
   * by engine-process.ts; see there why).
   */
  processKinds: ReadonlySet<string> = MODEL_JOB_KINDS;

  /** The working directory of job processes: an empty folder in the data folder (createEngine sets it; security/empty-dir.ts). */
  processCwd: (() => string) | undefined;

  constructor(private readonly emit: (event: EngineEvent) => void = () => {}) {}

  /**
   * Runs a job of `kind` in a worker thread; its input and result types are the job map's
   * (src/shared/jobs.ts). When its class already runs as many jobs as its limit allows, the
   * job waits in line (state 'queued', a progress report with its place) and starts when
   * one ends; `result` settles when it has run (or was cancelled while waiting).
   */
  start<K extends JobKind>(kind: K, input: JobInput<K>, options: { jobId?: string; onProgress?: (p: JobProgress) => void } = {}): { jobId: string; result: Promise<JobOutput<K>> } {
    const jobId = options.jobId ?? randomUUID();
    const cls = jobClassOf(kind);
    if (this.activeIn(cls) < this.limitOf(cls) && !this.waiting.some((w) => w.cls === cls)) return this.launch(kind, input, jobId, options.onProgress, true);
    let settle!: Pick<Waiting, 'resolve' | 'reject'>;
    const result = new Promise<JobOutput<K>>((resolve, reject) => (settle = { resolve: resolve as (v: unknown) => void, reject }));
    result.catch(() => {});
    this.waiting.push({ info: { jobId, kind, state: 'queued', progress: null }, kind, input, cls, onProgress: options.onProgress, ...settle });
    // Told now, so a host that restarts the engine starts it again (in line again) like a running one.
    this.onStarted?.({ jobId, kind, input });
    // Joining the end of the line moves nobody else's place: only this job is told its own
    // (telling every waiting job made 50 imports started together 1,225 events).
    this.reportPlaces(cls, jobId);
    return { jobId, result };
  }

  private limitOf(cls: JobClass): number {
    return Math.max(1, this.limits[cls] ?? 1);
  }

  /** Jobs of a class running now. */
  private activeIn(cls: JobClass): number {
    let n = 0;
    for (const r of this.jobs.values()) if (jobClassOf(r.info.kind) === cls) n += 1;
    return n;
  }

  /** Starts the jobs in line of `cls` that its limit now allows. */
  private startWaiting(cls: JobClass): void {
    let started = false;
    while (this.activeIn(cls) < this.limitOf(cls)) {
      const i = this.waiting.findIndex((w) => w.cls === cls);
      if (i < 0) break;
      const [w] = this.waiting.splice(i, 1);
      started = true;
      let launched: { result: Promise<unknown> };
      try {
        // `start` took this kind's input (its types); the line keeps the pair without them.
        launched = this.launch(w!.kind as JobKind, w!.input as never, w!.info.jobId, w!.onProgress, false);
      } catch (err) {
        const error = (err as Error).message;
        this.remember({ ...w!.info, state: 'failed', progress: null, error });
        this.emit({ type: 'job.ended', jobId: w!.info.jobId, kind: w!.kind, state: 'failed', error });
        w!.reject(err);
        continue;
      }
      launched.result.then(w!.resolve, w!.reject);
    }
    if (started) this.reportPlaces(cls);
  }

  /** Tells every job in line of `cls` (or only the job `only`) its place (1: next), as a progress report the window shows. */
  private reportPlaces(cls: JobClass, only?: string): void {
    const limit = this.limitOf(cls);
    const [one, many] = JOB_CLASS_WORDS[cls];
    let place = 0;
    for (const w of this.waiting) {
      if (w.cls !== cls) continue;
      place += 1;
      if (only !== undefined && w.info.jobId !== only) continue;
      const progress: JobProgress = {
        jobId: w.info.jobId,
        stage: 'waiting',
        label: `Waiting to start: ${place === 1 ? 'next in line' : `number ${place} in line`} (${limit === 1 ? `one ${one}` : `${limit} ${many}`} at a time on this computer)`,
        done: 0,
        total: 0,
        etaSeconds: null,
        queue: { place, limit },
      };
      w.info.progress = progress;
      w.onProgress?.(progress);
      this.emit({ type: 'job.progress', progress });
    }
  }

  private remember(info: JobInfo): void {
    this.finished.push(info);
    if (this.finished.length > 200) this.finished.shift();
  }

  private launch<K extends JobKind>(kind: K, input: JobInput<K>, jobId: string, onProgress: ((p: JobProgress) => void) | undefined, announce: boolean): { jobId: string; result: Promise<JobOutput<K>> } {
    const options = { onProgress };
    const shared = new SharedArrayBuffer(4);
    const cancelFlag = new Int32Array(shared);
    const isolated = this.modelProcesses && this.processKinds.has(kind);
    const slot = this.takeIdle(kind, isolated) ?? this.spawn(isolated);
    try {
      slot.worker.postMessage({ type: 'start', kind, input, cancelFlag: shared } satisfies RunnerMessage);
    } catch (err) {
      // An input that cannot be cloned: the worker never saw a job and stays as it was.
      this.toIdle(slot);
      throw err;
    }
    slot.kind = kind;
    slot.worker.ref();
    const running: Running = {
      info: { jobId, kind, state: 'running', progress: null },
      input,
      cancelFlag,
      slot,
      started: Date.now(),
      stageStarted: Date.now(),
      stage: '',
    };
    this.jobs.set(jobId, running);
    if (announce) this.onStarted?.({ jobId, kind, input });
    else this.emit({ type: 'job.started', jobId, kind });
    const result = new Promise<JobOutput<K>>((resolvePromise, reject) => {
      let settled = false;
      /** healthy: the worker reported the end itself and can take the next job. */
      const end = (state: 'finished' | 'failed' | 'cancelled', healthy: boolean, error?: string) => {
        if (settled) return;
        settled = true;
        if (running.graceTimer) clearTimeout(running.graceTimer);
        if (running.budget) clearTimeout(running.budget.timer);
        running.info.state = state;
        if (error !== undefined) running.info.error = error;
        this.jobs.delete(jobId);
        this.remember(running.info);
        this.emit({ type: 'job.ended', jobId, kind, state, ...(error !== undefined ? { error } : {}) });
        slot.job = undefined;
        if (healthy && !slot.gone) this.toIdle(slot);
        else this.drop(slot);
        // The next in line of this class takes the freed place (and, when healthy, this worker).
        this.startWaiting(jobClassOf(kind));
      };
      running.overBudget = (message) => {
        end('failed', false, message);
        reject(new ApiError('user', message));
      };
      slot.job = {
        message: (m) => {
          if (m.type === 'usage') {
            slot.rss = m.rss;
            const b = running.budget;
            if (b && b.rssAtSet !== null && m.rss - b.rssAtSet > b.budget.bytes) running.overBudget?.(budgetMessage(b.budget, 'memory'));
            return;
          }
          if (m.type === 'budget') {
            this.holdTo(running, m.budget);
            return;
          }
          if (m.type === 'crash') return;
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
            end('finished', true);
            // The worker ran this kind's task (job-registry.ts is typed against the same map).
            resolvePromise(m.result as JobOutput<K>);
          } else {
            const cancelled = m.error.code === 'cancelled';
            end(cancelled ? 'cancelled' : 'failed', true, m.error.message);
            reject(cancelled ? new CancelledError(m.error.message) : new ApiError((m.error.code as ApiError['code']) ?? 'internal', m.error.message, m.error.field, { retry: m.error.retry }));
          }
        },
        error: (err) => {
          end('failed', false, err.message);
          reject(err);
        },
        exit: (code) => {
          if (settled) return;
          if (Atomics.load(cancelFlag, 0) === 1) {
            end('cancelled', false, 'Cancelled');
            reject(new CancelledError());
          } else {
            end('failed', false, `worker exited with code ${code}`);
            reject(new Error(`job ${kind} worker exited with code ${code}`));
          }
        },
      };
    });
    // Unhandled rejections of fire-and-forget jobs are reported through events instead.
    result.catch(() => {});
    return { jobId, result };
  }

  /**
   * Starts again, under its old id, a job the previous engine process was running when it
   * died. Its kind and input come back through the host as data, so they are checked
   * first (parseResumedJob): a job whose kind does not resume or whose input does not fit
   * is not started but ends failed at once (a job.ended event, and jobs.list), with a
   * message naming the kind and the field; null then.
   */
  resume(job: { jobId: string; kind: string; input: unknown }): { jobId: string; result: Promise<unknown> } | null {
    let checked: ReturnType<typeof parseResumedJob>;
    try {
      checked = parseResumedJob(job);
    } catch (err) {
      const error = (err as Error).message;
      this.remember({ jobId: job.jobId, kind: job.kind, state: 'failed', progress: null, error });
      this.emit({ type: 'job.ended', jobId: job.jobId, kind: job.kind, state: 'failed', error });
      return null;
    }
    return this.start(checked.kind, checked.input, { jobId: checked.jobId });
  }

  /** Cancels a running job (its task stops at its next check) or takes a job out of line (it never starts). */
  cancel(jobId: string, graceMs = 5000): boolean {
    const w = this.waiting.findIndex((x) => x.info.jobId === jobId);
    if (w >= 0) {
      const [gone] = this.waiting.splice(w, 1);
      const error = 'Cancelled before it started';
      this.remember({ ...gone!.info, state: 'cancelled', progress: null, error });
      this.emit({ type: 'job.ended', jobId, kind: gone!.kind, state: 'cancelled', error });
      gone!.reject(new CancelledError(error));
      this.reportPlaces(gone!.cls);
      return true;
    }
    const running = this.jobs.get(jobId);
    if (!running) return false;
    Atomics.store(running.cancelFlag, 0, 1);
    running.slot.worker.cancel?.();
    running.graceTimer ??= setTimeout(() => {
      // Only if this job still runs there: a worker that stopped in time has another job by now.
      if (this.jobs.get(jobId) === running) this.drop(running.slot);
    }, graceMs);
    running.graceTimer.unref();
    return true;
  }

  /**
   * Jobs of `kind` running now or waiting in line, with their inputs: how a handler tells
   * whether its work is under way, also for jobs a restarted engine process took over (they
   * were not started by the handler).
   */
  runningOf<K extends JobKind>(kind: K): { jobId: string; input: JobInput<K> }[] {
    // Started with this kind's input (start's types), or resumed with it checked (resume).
    const running = [...this.jobs.values()].filter((r) => r.info.kind === kind).map((r) => ({ jobId: r.info.jobId, input: r.input as JobInput<K> }));
    return [...running, ...this.waiting.filter((w) => w.kind === kind).map((w) => ({ jobId: w.info.jobId, input: w.input as JobInput<K> }))];
  }

  /**
   * Every job running now or waiting in line to run, with its kind and input (the input as
   * data: what a caller may look for in it). A queued job will work in its project too.
   */
  running(): { jobId: string; kind: string; input: unknown }[] {
    const running = [...this.jobs.values()].map((r) => ({ jobId: r.info.jobId, kind: r.info.kind, input: r.input }));
    return [...running, ...this.waiting.map((w) => ({ jobId: w.info.jobId, kind: w.kind as string, input: w.input }))];
  }

  /** Running jobs, then those in line (state 'queued', in order), then the last 200 that ended. */
  list(): JobInfo[] {
    return [...[...this.jobs.values()].map((r) => r.info), ...this.waiting.map((w) => w.info), ...this.finished].map((i) => ({ ...i }));
  }

  /** Idle workers waiting for a job now. */
  idleWorkers(): number {
    return this.idle.length;
  }

  /** Ends every worker: running jobs are terminated (and fail), jobs in line never start, idle workers release their sessions first. */
  async shutdown(): Promise<void> {
    for (const w of this.waiting.splice(0)) {
      const error = 'the engine stopped before this job started';
      this.remember({ ...w.info, state: 'cancelled', progress: null, error });
      this.emit({ type: 'job.ended', jobId: w.info.jobId, kind: w.kind, state: 'cancelled', error });
      w.reject(new CancelledError(error));
    }
    const ending = [...this.slots].map((slot) => {
      if (slot.job) this.drop(slot);
      else this.dispose(slot);
      return slot.exited;
    });
    await Promise.all(ending);
    this.jobs.clear();
  }

  /**
   * Holds a running job to the budget its task set (or lifts it): past the time, or past
   * the memory where the worker is a process that reports it, the job fails with a message
   * naming the model and its worker is ended.
   */
  private holdTo(running: Running, budget: HeldBudget['budget'] | null): void {
    if (running.budget) clearTimeout(running.budget.timer);
    running.budget = undefined;
    if (!budget) return;
    const timer = setTimeout(() => running.overBudget?.(budgetMessage(budget, 'time')), Math.max(0, budget.seconds * 1000));
    timer.unref();
    running.budget = { budget, rssAtSet: running.slot.isProcess ? running.slot.rss : null, timer };
  }

  private spawn(isProcess = false): Slot {
    const entry = workerEntry();
    // The worker copies this thread's environment, ORT_DISABLE_TELEMETRY included
    // (src/main/security/telemetry.ts); src/main/inference/ort.ts checks it there again.
    // A job process finds its own thread's entry (job-process.ts).
    const boot: WorkerBoot = { ...(this.jobNice !== undefined ? { nice: this.jobNice } : {}), ...(entry.entryUrl && !isProcess ? { entryUrl: entry.entryUrl } : {}) };
    // A Worker is a JobWorker: the interface names only the events and methods the runner uses.
    const worker: JobWorker = isProcess ? new ProcessWorker(boot, this.processCwd?.()) : (new Worker(entry.file, { workerData: boot }) as unknown as JobWorker);
    let exited!: () => void;
    const slot: Slot = { worker, isProcess, rss: null, nice: this.jobNice, kind: '', job: undefined, gone: false, exited: new Promise<void>((r) => (exited = r)) };
    this.slots.add(slot);
    worker.on('message', (m: WorkerMessage) => slot.job?.message(m));
    worker.on('error', (err) => {
      // An uncaught error ends the thread.
      slot.gone = true;
      slot.job?.error(err);
    });
    worker.on('exit', (code) => {
      slot.gone = true;
      this.forget(slot);
      this.slots.delete(slot);
      slot.job?.exit(code);
      exited();
    });
    return slot;
  }

  /** An idle worker for a job of `kind`: one that last ran the same kind first, the most recently used first. */
  private takeIdle(kind: string, isProcess: boolean): Slot | undefined {
    const fits = this.idle.filter((s) => !s.gone && s.nice === this.jobNice && s.isProcess === isProcess);
    const slot = fits.filter((s) => s.kind === kind).pop() ?? fits.pop();
    if (!slot) return undefined;
    this.idle.splice(this.idle.indexOf(slot), 1);
    if (slot.idleTimer) clearTimeout(slot.idleTimer);
    return slot;
  }

  private toIdle(slot: Slot): void {
    if (this.idle.length >= this.maxIdleWorkers) {
      this.dispose(slot);
      return;
    }
    // Idle, it must not keep the process alive (a CLI command, a test file that ends).
    slot.worker.unref();
    slot.idleTimer = setTimeout(() => this.dispose(slot), this.workerIdleMs);
    slot.idleTimer.unref();
    this.idle.push(slot);
  }

  /** Asks an idle worker to release its sessions and end; terminated if it does not in time. */
  private dispose(slot: Slot): void {
    if (slot.gone) return;
    slot.gone = true;
    this.forget(slot);
    // Referenced again while it ends: a caller awaiting shutdown() (the CLI, before it sets
    // its exit code) must not see the process exit under it because nothing else is
    // pending; the idle timeout's own disposal ends quickly, so this never holds a process long.
    slot.worker.ref();
    slot.worker.postMessage({ type: 'dispose' } satisfies RunnerMessage);
    setTimeout(() => void slot.worker.terminate(), DISPOSE_GRACE_MS).unref();
  }

  /** Terminates a worker now (cancel grace over, a crash, shutdown); it takes no other job. */
  private drop(slot: Slot): void {
    slot.gone = true;
    this.forget(slot);
    void slot.worker.terminate();
  }

  private forget(slot: Slot): void {
    const i = this.idle.indexOf(slot);
    if (i >= 0) this.idle.splice(i, 1);
    if (slot.idleTimer) clearTimeout(slot.idleTimer);
  }
}
