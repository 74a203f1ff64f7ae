/**
 * Models kept between jobs of a job worker (job-worker.ts, which runs job after job), so a
 * second run with the same model and settings sets up no onnxruntime session: embedders
 * (embedder-pool.ts, for embedding runs) and speech recognisers (asr/recognizer-pool.ts,
 * for an audit's WER transcription). Elsewhere (the CLI's inline commands, a cluster
 * shard, tests calling embedDataset or runWer directly) nothing is kept: a model is created
 * and released per run, as before.
 *
 * This module alone decides how much a worker keeps (KEPT_IN_A_WORKER), so idle memory
 * stays bounded: at most one idle embedder and one idle recogniser per worker.
 */
import { threadId } from 'node:worker_threads';
import { atThreadEnd, threadOutlivesJobs } from '../jobs/thread-life';
import type { JobInput, PoolCounts, SessionsJobOutput } from '../../shared/jobs';
import type { Task } from '../jobs/task';
import { sessionCount } from './providers';

/** What a pool holds: anything with onnxruntime sessions to release. */
export interface Releasable {
  release(): Promise<void>;
}

export type PoolKind = 'embedder' | 'recognizer';

/**
 * Idle models of each kind a job worker keeps: one embedder and one recogniser, so an idle
 * worker holds at most two models' memory (an audit with a WER section uses both in turn,
 * and a model of one kind never pushes out the other's). A run with another model of the
 * same kind releases the kept one before it loads its own.
 */
const KEPT_IN_A_WORKER: Readonly<Record<PoolKind, number>> = { embedder: 1, recognizer: 1 };

export interface Lease<T> {
  readonly value: T;
  /** 'created': its sessions were set up for this run; 'reused': a run before this one set them up. */
  readonly session: 'created' | 'reused';
  /** Hands the model back: kept for the next run where this thread keeps models, else released. */
  release(): Promise<void>;
}

export type { PoolCounts };

interface Entry<T> {
  key: string;
  value: T;
  busy: boolean;
}

class Pool {
  /** Kept models, the most recently returned last; busy ones are lent out now. */
  readonly entries: Entry<Releasable>[] = [];
  readonly counts = { created: 0, reused: 0 };
  constructor(readonly kind: PoolKind) {}

  async evict(keepIdle: number): Promise<void> {
    let idle = this.entries.filter((e) => !e.busy).length;
    for (let i = 0; i < this.entries.length && idle > keepIdle; ) {
      const e = this.entries[i]!;
      if (e.busy) {
        i += 1;
        continue;
      }
      this.entries.splice(i, 1);
      idle -= 1;
      await e.value.release();
    }
  }
}

const pools: Record<PoolKind, Pool> = { embedder: new Pool('embedder'), recognizer: new Pool('recognizer') };

/** Whether this thread keeps models (decided at the first run: a job worker marks itself at start). */
let keeps: boolean | undefined;

function kept(kind: PoolKind): number {
  if (keeps === undefined) {
    keeps = threadOutlivesJobs();
    if (keeps) atThreadEnd(releaseIdle);
  }
  return keeps ? KEPT_IN_A_WORKER[kind] : 0;
}

/**
 * A model for one run: a kept one of this kind with the same key, else a new one from
 * `create`. `key` must cover everything that makes two runs able to share sessions (see
 * embedderKey, recognizerKey); `onReuse` resets what a run reports of its own.
 */
export async function borrow<T extends Releasable>(kind: PoolKind, key: string, create: () => Promise<T>, onReuse?: (value: T) => void): Promise<Lease<T>> {
  const pool = pools[kind];
  let entry = pool.entries.find((e) => e.key === key && !e.busy);
  let session: Lease<T>['session'] = 'reused';
  if (entry) {
    entry.busy = true;
    pool.counts.reused += 1;
    onReuse?.(entry.value as T);
  } else {
    // Another model's sessions go first, so memory holds at most the kept number of models
    // of this kind besides the runs under way.
    await pool.evict(Math.max(0, kept(kind) - 1));
    entry = { key, value: await create(), busy: true };
    session = 'created';
    pool.counts.created += 1;
  }
  const lent = entry;
  let returned = false;
  return {
    // Entries of a pool are only ever made by this function from `create`'s T for this key.
    value: lent.value as T,
    session,
    async release() {
      if (returned) return;
      returned = true;
      const i = pool.entries.indexOf(lent);
      if (i >= 0) pool.entries.splice(i, 1);
      if (kept(kind) === 0) {
        await lent.value.release();
        return;
      }
      lent.busy = false;
      pool.entries.push(lent);
      await pool.evict(kept(kind));
    },
  };
}

/** Models set up and runs served from a kept one, in this thread (tests, benches). */
export function poolCounts(kind: PoolKind): PoolCounts {
  const pool = pools[kind];
  return { ...pool.counts, kept: pool.entries.length };
}

/** Releases every idle model of one kind, or of every kind (a worker about to end). */
export async function releaseIdle(kind?: PoolKind): Promise<void> {
  for (const k of kind ? [kind] : (Object.keys(pools) as PoolKind[])) await pools[k].evict(0);
}


/** What the worker that runs it holds (the selftest.sessions job): how tests see that a second job set up no session. */
export const sessionsTask: Task<JobInput<'selftest.sessions'>, SessionsJobOutput> = async () => ({
  threadId,
  worker: `${process.pid}/${threadId}`,
  sessions: sessionCount(),
  embedders: poolCounts('embedder'),
  recognizers: poolCounts('recognizer'),
});
