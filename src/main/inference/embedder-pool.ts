/**
 * Embedders kept between jobs of a long-lived job worker (jobs/worker.ts), so a second
 * embedding run with the same model and settings, of the same or another dataset, sets
 * up no onnxruntime session. Inline callers (the CLI's `embed`, a cluster shard, tests)
 * keep nothing unless they ask: there an embedder is created and released per run, as
 * before.
 */
import { createEmbedder, type Embedder, type ModelGraphs } from './embedder';
import type { ModelManifest } from './manifest';
import { allowSpinning, defaultThreads, type SessionOptions } from './providers';

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

/** How many idle embedders this thread keeps (0: none, release after each run). */
let capacity = 0;
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

/** Keep up to `n` idle embedders in this thread from now on (set once, before the first run). */
export function keepEmbedders(n: number): void {
  capacity = Math.max(0, n);
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
    await evict(Math.max(0, capacity - 1));
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
      if (capacity === 0) {
        await lent.embedder.release();
        return;
      }
      lent.busy = false;
      entries.push(lent);
      await evict(capacity);
    },
  };
}
