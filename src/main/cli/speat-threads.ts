/**
 * The SpEAT bootstrap spread over worker threads, for `stats speat`.
 *
 * Each sample size has its own RNG stream (BootstrapPlan.point), so a size's SE is the
 * same whichever thread computes it: the result equals bootstrapSpeatSE's for any number
 * of threads. Sizes sit in one shared queue, largest first; the main thread and the
 * workers take from it until it is empty, so a worker that starts late (or never, on a
 * busy machine) only means the main thread does more of the work, and a worker that dies
 * has the sizes it took redone on the main thread.
 *
 * Workers are started before the input file is read: a thread takes 25–40 ms to boot,
 * which then overlaps with parsing and the associations, and they get the job before the
 * main thread runs the permutation test.
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
 * Below this many draws (R × Σ 2k) the bootstrap stays on the main thread. Measured on a
 * 2-core machine with the pair draws of Rng.sumOfDraws: the paper-scale bootstrap (18.6
 * million draws, about 30 ms) was 5% slower with a worker (booting a thread costs 25–40
 * ms of CPU, which competes with V8's own compiler threads), 37 million broke even, and
 * 74 million took 15% less time.
 */
export const MIN_DRAWS_FOR_WORKERS = 30_000_000;

/** The worker's entry: from source, speat-worker.ts through tsx; bundled, out/cli/speat-worker.cjs. */
function workerEntry(): { file: string; entryUrl?: string } {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith('.ts')) {
    return { file: join(dirname(here), '..', 'jobs', 'ts-worker-boot.mjs'), entryUrl: pathToFileURL(join(dirname(here), 'speat-worker.ts')).href };
  }
  // Bundled: this code sits in out/cli/chunks/ (or in out/cli/ when not split).
  const candidates = [join(dirname(here), '..', 'speat-worker.cjs'), join(dirname(here), 'speat-worker.cjs')];
  const file = candidates.find((c) => existsSync(c));
  // A missing entry is a packaging bug: say so (the caller warns) rather than fall back in silence.
  if (!file) throw new Error(`the bootstrap worker's entry ${candidates[0]} is missing`);
  return { file };
}

export class ParallelBootstrap {
  private readonly workers: Worker[] = [];
  private readonly queue: SharedArrayBuffer;
  private readonly results: (StandardErrorPoint | undefined)[] = [];
  private readonly computedBy: number[];
  private job: BootstrapJob | undefined;
  private plan: BootstrapPlan | undefined;
  private live: number;
  private missing = 0;
  private settle: (() => void) | undefined;
  private failure: unknown;
  /** Why workers failed, if any did (their sizes were computed on the main thread). */
  readonly workerErrors: string[] = [];

  /**
   * Starts `workers` threads now; they wait for start(). `entry` replaces the worker
   * module (tests use one that dies).
   */
  constructor(sizeCount: number, workers: number, entry: { file: string; entryUrl?: string } = workerEntry()) {
    this.queue = new SharedArrayBuffer(4 * (1 + sizeCount));
    this.computedBy = new Array<number>(workers + 1).fill(0);
    this.live = workers;
    for (let w = 0; w < workers; w += 1) {
      const id = w + 1;
      const data: BootstrapWorkerData = { queue: this.queue, id, ...(entry.entryUrl ? { entryUrl: entry.entryUrl } : {}) };
      const worker = new Worker(entry.file, { workerData: data });
      worker.on('message', (m: BootstrapWorkerMessage) => this.deliver(m.index, m.point, id));
      // 'exit' follows 'error'; whatever the worker took and did not deliver is redone then.
      worker.on('error', (err) => this.workerErrors.push(err.message));
      worker.on('exit', () => this.workerExited(id));
      this.workers.push(worker);
    }
  }

  /**
   * Hands the job to the workers, which start on it at once; the main thread is free to
   * do other work (the permutation test) before calling finish.
   */
  start(sX: Float64Array, sY: Float64Array, sizes: readonly number[], options: BootstrapOptions): void {
    const order = sizes.map((_, i) => i).sort((a, b) => sizes[b]! - sizes[a]! || a - b);
    this.job = { sX, sY, sizes: [...sizes], order, options };
    this.plan = new BootstrapPlan(sX, sY, options);
    this.missing = sizes.length;
    for (const worker of this.workers) worker.postMessage(this.job);
    if (this.live === 0) this.drainQueue();
  }

  /**
   * Takes sizes from the queue on the main thread too (unless `helpOnMainThread` is
   * false) until it is empty, then waits for the workers' last ones. The SEs come in the
   * order of `sizes`, equal to bootstrapSpeatSE(sX, sY, sizes, options).
   */
  async finish(helpOnMainThread = true): Promise<StandardErrorPoint[]> {
    if (!this.job) throw new Error('ParallelBootstrap.finish before start');
    const done = new Promise<void>((resolve) => {
      this.settle = resolve;
    });
    if (this.missing <= 0 || this.failure !== undefined) this.settle!();
    if (helpOnMainThread) this.drainQueue();
    await done;
    if (this.failure !== undefined) throw this.failure;
    return this.results as StandardErrorPoint[];
  }

  /** How many sizes each thread computed: [main thread, worker 1, worker 2, …]. */
  sizesComputed(): readonly number[] {
    return this.computedBy;
  }

  /** Stops the workers (after finish, or when the input turned out to be unusable). */
  close(): void {
    for (const worker of this.workers) {
      worker.removeAllListeners('exit');
      void worker.terminate();
    }
  }

  private drainQueue(): void {
    const order = this.job!.order;
    const next = new Int32Array(this.queue, 0, 1);
    for (;;) {
      const t = Atomics.add(next, 0, 1);
      if (t >= order.length) break;
      this.compute(order[t]!);
    }
  }

  private compute(index: number): void {
    if (this.results[index] !== undefined || this.failure !== undefined) return;
    try {
      this.deliver(index, this.plan!.point(this.job!.sizes[index]!, index), 0);
    } catch (err) {
      this.failure = err;
      this.settle?.();
    }
  }

  private deliver(index: number, point: StandardErrorPoint, by: number): void {
    // A size can arrive twice (a worker's late message after the main thread redid it): identical.
    if (this.results[index] !== undefined) return;
    this.results[index] = point;
    this.computedBy[by] += 1;
    this.missing -= 1;
    if (this.missing === 0) this.settle?.();
  }

  /** Redo on the main thread what the worker took but did not deliver; the rest of the queue too when no worker is left. */
  private workerExited(id: number): void {
    this.live -= 1;
    if (!this.job || this.missing <= 0) return;
    const owners = new Int32Array(this.queue, 4, this.job.sizes.length);
    for (let i = 0; i < owners.length; i += 1) {
      if (Atomics.load(owners, i) === id && this.results[i] === undefined) this.compute(i);
    }
    if (this.live === 0) this.drainQueue();
  }
}
