/**
 * Embedders kept between jobs of a job worker (job-worker.ts, which runs job after job),
 * so a second embedding run with the same model and settings, of the same or another
 * dataset, sets up no onnxruntime session. Elsewhere (the CLI's `embed` command, a cluster
 * shard, tests calling embedDataset) nothing is kept: an embedder is created and released
 * per run, as before.
 */
import { threadId } from 'node:worker_threads';
import type { JobInput, SessionsJobOutput } from '../../shared/jobs';
import { atThreadEnd, threadOutlivesJobs } from '../jobs/thread-life';
import type { Task } from '../jobs/task';
import { createEmbedder, type Embedder, type ModelGraphs } from './embedder';
import type { ModelManifest } from './manifest';
import { allowSpinning, defaultThreads, sessionCount, type SessionOptions } from './providers';

/** Idle embedders a job worker keeps: one model, so an idle worker holds one model's memory. */
const KEPT_IN_A_WORKER = 1;

export interface EmbedderLease {
  readonly embedder: Embedder;
  /** 'created': its sessions were set up for this run; 'reused': a run before this one set them up. */
  readonly session: 'created' | 'reused';
  /** Hands the embedder back: kept for the next run where this thread keeps embedders, else released. */
  release(): Promise<void>;
}

interface Entry {
  key: string;
  embedder: Embedder;
  busy: boolean;
}

/** How many idle embedders this thread keeps (0: none, release after each run); decided at the first run. */
let capacity: number | undefined;
/** Kept embedders, the most recently returned last; busy ones are lent out now. */
const entries: Entry[] = [];
const counts = { created: 0, reused: 0 };

/**
 * What makes two runs able to share sessions: the model's bytes (id and sha256, and the
 * graph file, derived or not), its settings, the provider asked for, the thread count and
 * whether the session spins (providers.ts allowSpinning, decided at creation from the load:
 * a session set up on an idle machine would otherwise keep spinning on a busy one).
 */
export function embedderKey(manifest: ModelManifest, graphs: ModelGraphs, o: SessionOptions): string {
  return JSON.stringify([manifest.id, manifest.sha256, manifest.settingsKey, typeof graphs.main === 'string' ? graphs.main : null, o.provider ?? 'auto', o.threads ?? defaultThreads(), allowSpinning()]);
}

function kept(): number {
  if (capacity === undefined) {
    capacity = threadOutlivesJobs() ? KEPT_IN_A_WORKER : 0;
    if (capacity > 0) atThreadEnd(releaseEmbedders);
  }
  return capacity;
}

/** Sessions set up and runs served from a kept embedder, in this thread (tests, benches). */
export function embedderCounts(): { created: number; reused: number; kept: number } {
  return { ...counts, kept: entries.length };
}

/** Releases every idle embedder (a worker about to end). */
export async function releaseEmbedders(): Promise<void> {
  await evict(0);
}

async function evict(keepIdle: number): Promise<void> {
  let idle = entries.filter((e) => !e.busy).length;
  for (let i = 0; i < entries.length && idle > keepIdle; ) {
    const e = entries[i]!;
    if (e.busy) {
      i += 1;
      continue;
    }
    entries.splice(i, 1);
    idle -= 1;
    await e.embedder.release();
  }
}

/** An embedder for one run: a kept one with the same key, else a new one. */
export async function borrowEmbedder(manifest: ModelManifest, graphs: ModelGraphs, o: SessionOptions = {}): Promise<EmbedderLease> {
  const key = embedderKey(manifest, graphs, o);
  let entry = entries.find((e) => e.key === key && !e.busy);
  let session: EmbedderLease['session'] = 'reused';
  if (entry) {
    entry.busy = true;
    counts.reused += 1;
    // A run reports its own time (embed.ts copies these into its summary).
    Object.assign(entry.embedder.timings, { ortMs: 0, frontEndMs: 0, aggregateMs: 0 });
  } else {
    // Another model's sessions go first, so memory holds at most `capacity` models' worth
    // besides the runs under way.
    await evict(Math.max(0, kept() - 1));
    entry = { key, embedder: await createEmbedder(manifest, graphs, o), busy: true };
    session = 'created';
    counts.created += 1;
  }
  const lent = entry;
  let returned = false;
  return {
    embedder: lent.embedder,
    session,
    async release() {
      if (returned) return;
      returned = true;
      const i = entries.indexOf(lent);
      if (i >= 0) entries.splice(i, 1);
      if (kept() === 0) {
        await lent.embedder.release();
        return;
      }
      lent.busy = false;
      entries.push(lent);
      await evict(kept());
    },
  };
}

/** What the worker that runs it holds (the selftest.sessions job): how tests see that a second embedding job set up no session. */
export const sessionsTask: Task<JobInput<'selftest.sessions'>, SessionsJobOutput> = async () => ({
  threadId,
  sessions: sessionCount(),
  embedders: embedderCounts(),
});
