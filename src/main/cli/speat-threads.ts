/**
 * The SpEAT bootstrap spread over worker threads, for `stats speat`.
 *
 * Each sample size has its own RNG stream (BootstrapPlan.point), so a size's SE is the
 * same whichever thread computes it: the result equals bootstrapSpeatSE's for any number
 * of threads. Sizes sit in one shared queue, largest first; the main thread and the
 * workers take from it until it is empty, so a worker that starts late (or never, on a
 * busy machine) only means the main thread does more of the work.
 *
 * Workers are started before the input file is read: a thread takes about 30 ms to boot,
 * which then overlaps with parsing, the associations and the permutation test.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { BootstrapPlan, type BootstrapOptions, type StandardErrorPoint } from '../stats/speat';

/** Sent to each worker at start (workerData). */
export interface BootstrapWorkerData {
  /** Int32 [next queue position, owner of size 0, owner of size 1, …]; owner = worker id. */
  queue: SharedArrayBuffer;
  id: number;
  /** Set when the worker runs from TypeScript source: the module the boot file imports. */
  entryUrl?: string;
}

/** Sent to each worker once the associations are known. */
export interface BootstrapJob {
  sX: Float64Array;
  sY: Float64Array;
  sizes: number[];
  /** Queue position → size index, largest size first (longest tasks first balances best). */
  order: number[];
  options: BootstrapOptions;
}

export type BootstrapWorkerMessage = { index: number; point: StandardErrorPoint };

/**
 * Below this many draws (R × Σ 2k) the bootstrap takes about as long as booting a
 * thread, so it stays on the main thread.
 */
export const MIN_DRAWS_FOR_WORKERS = 4_000_000;

/** Where the worker entry lives: from source, speat-worker.ts through tsx; bundled, out/cli/speat-worker.mjs. */
function workerEntry(): { file: string; entryUrl?: string } {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith('.ts')) {
    return { file: join(dirname(here), '..', 'jobs', 'ts-worker-boot.mjs'), entryUrl: pathToFileURL(join(dirname(here), 'speat-worker.ts')).href };
  }
  // Bundled: this code sits in out/cli/chunks/ (or out/cli/ when not split).
  const candidates = [join(dirname(here), '..', 'speat-worker.mjs'), join(dirname(here), 'speat-worker.mjs')];
  return { file: candidates.find((c) => existsSync(c)) ?? candidates[0]! };
}

export class ParallelBootstrap {
  private readonly workers: Worker[] = [];
  private readonly queue: SharedArrayBuffer;
  private readonly results: (StandardErrorPoint | undefined)[] = [];
  private job: BootstrapJob | undefined;
  private plan: BootstrapPlan | undefined;
  private missing = 0;
  private settle: (() => void) | undefined;
  private failure: unknown;

  /** Starts `workers` threads now; they wait for start(). */
  constructor(sizeCount: number, workers: number) {
    this.queue = new SharedArrayBuffer(4 * (1 + sizeCount));
    const entry = workerEntry();
    for (let w = 0; w < workers; w += 1) {
      const data: BootstrapWorkerData = { queue: this.queue, id: w + 1, ...(entry.entryUrl ? { entryUrl: entry.entryUrl } : {}) };
      const worker = new Worker(entry.file, { workerData: data });
      worker.on('message', (m: BootstrapWorkerMessage) => this.deliver(m.index, m.point));
      // An 'error' is followed by 'exit'; whatever the worker took and did not deliver is redone here.
      worker.on('error', () => {});
      worker.on('exit', () => this.recover(w + 1));
      this.workers.push(worker);
    }
  }

  /**
   * Hands the job to the workers, which start on it at once (the main thread is free to
   * do other work, such as the permutation test, before calling finish).
   */
  start(sX: Float64Array, sY: Float64Array, sizes: readonly number[], options: BootstrapOptions): void {
    const order = sizes.map((_, i) => i).sort((a, b) => sizes[b]! - sizes[a]! || a - b);
    this.job = { sX, sY, sizes: [...sizes], order, options };
    this.plan = new BootstrapPlan(sX, sY, options);
    this.missing = sizes.length;
    for (const worker of this.workers) worker.postMessage(this.job);
  }

  /**
   * Takes sizes from the queue on the main thread too until it is empty, then waits for
   * the workers' last ones. The SEs come in the order of `sizes`, equal to
   * bootstrapSpeatSE(sX, sY, sizes, options).
   */
  async finish(): Promise<StandardErrorPoint[]> {
    const job = this.job;
    if (!job) throw new Error('ParallelBootstrap.finish before start');
    const done = new Promise<void>((resolve) => {
      this.settle = resolve;
    });
    if (this.missing === 0) this.settle!();
    const next = new Int32Array(this.queue, 0, 1);
    for (;;) {
      const t = Atomics.add(next, 0, 1);
      if (t >= job.order.length) break;
      this.compute(job.order[t]!);
    }
    await done;
    if (this.failure !== undefined) throw this.failure;
    return this.results as StandardErrorPoint[];
  }

  /** Stops the workers (after run, or when the input turned out to be unusable). */
  close(): void {
    for (const worker of this.workers) {
      worker.removeAllListeners('exit');
      void worker.terminate();
    }
  }

  private compute(index: number): void {
    if (this.results[index] !== undefined) return;
    try {
      this.deliver(index, this.plan!.point(this.job!.sizes[index]!, index));
    } catch (err) {
      this.failure ??= err;
      this.missing = 0;
      this.settle?.();
    }
  }

  private deliver(index: number, point: StandardErrorPoint): void {
    // A size can arrive twice (a worker's late message after the main thread redid it): identical.
    if (this.results[index] !== undefined) return;
    this.results[index] = point;
    this.missing -= 1;
    if (this.missing === 0) this.settle?.();
  }

  /** A worker exited: redo on the main thread every size it had taken but not delivered. */
  private recover(id: number): void {
    if (!this.job || this.missing <= 0) return;
    const owners = new Int32Array(this.queue, 4, this.job.sizes.length);
    for (let i = 0; i < owners.length; i += 1) {
      if (Atomics.load(owners, i) === id && this.results[i] === undefined) this.compute(i);
    }
  }
}
