import type { EngineEvent } from '../shared/api';

/** Fan-out of engine events to every host that listens (IPC, SSE, CLI stderr). */
export class EventHub {
  private readonly listeners = new Set<(e: EngineEvent) => void>();
  emit = (event: EngineEvent): void => {
    for (const l of this.listeners) {
      try {
        l(event);
      } catch {
        // A broken listener (closed socket) must not stop the others.
      }
    }
  };
  subscribe(listener: (e: EngineEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
