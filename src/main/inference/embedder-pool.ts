/**
 * Embedders kept between jobs of a job worker, so a second embedding run with the same
 * model and settings, of the same or another dataset, sets up no onnxruntime session.
 * The keeping itself (how many, where, released when) is session-pool.ts's, shared with
 * the speech recognisers; this module says what makes two embedding runs share one.
 */
import { createEmbedder, type Embedder, type ModelGraphs } from './embedder';
import type { ModelManifest } from './manifest';
import { allowSpinning, defaultThreads, type SessionOptions } from './providers';
import { borrow, poolCounts, releaseIdle, type PoolCounts } from './session-pool';

export { sessionsTask } from './session-pool';

export interface EmbedderLease {
  readonly embedder: Embedder;
  /** 'created': its sessions were set up for this run; 'reused': a run before this one set them up. */
  readonly session: 'created' | 'reused';
  /** Hands the embedder back: kept for the next run where this thread keeps embedders, else released. */
  release(): Promise<void>;
}

/**
 * What makes two runs able to share sessions: the model's bytes (id and sha256, and the
 * graph file, derived or not), its settings, the provider asked for, the thread count and
 * whether the session spins (providers.ts allowSpinning, decided at creation from the load:
 * a session set up on an idle machine would otherwise keep spinning on a busy one).
 */
export function embedderKey(manifest: ModelManifest, graphs: ModelGraphs, o: SessionOptions): string {
  return JSON.stringify([manifest.id, manifest.sha256, manifest.settingsKey, typeof graphs.main === 'string' ? graphs.main : null, o.provider ?? 'auto', o.threads ?? defaultThreads(), allowSpinning()]);
}

/** Sessions set up and runs served from a kept embedder, in this thread (tests, benches). */
export function embedderCounts(): PoolCounts {
  return poolCounts('embedder');
}

/** Releases every idle embedder (a worker about to end). */
export async function releaseEmbedders(): Promise<void> {
  await releaseIdle('embedder');
}

/** An embedder for one run: a kept one with the same key, else a new one. */
export async function borrowEmbedder(manifest: ModelManifest, graphs: ModelGraphs, o: SessionOptions = {}): Promise<EmbedderLease> {
  const lease = await borrow('embedder', embedderKey(manifest, graphs, o), () => createEmbedder(manifest, graphs, o), (embedder) => {
    // A run reports its own time (embed.ts copies these into its summary).
    Object.assign(embedder.timings, { ortMs: 0, frontEndMs: 0, aggregateMs: 0 });
  });
  return { embedder: lease.value, session: lease.session, release: () => lease.release() };
}
