/**
 * window.equivox for the browser build: the same interface the Electron preload
 * provides, over the web host's HTTP API (calls) and server-sent events (progress).
 *
 * No token handling here: opening the launch URL made the web host set its token as an
 * HttpOnly cookie (script in the page cannot read it) and drop it from the address bar;
 * the browser sends that cookie with these same-origin requests.
 */
import type { EngineEvent, EquivoxBridge } from '../../shared/api';

export function createWebBridge(): EquivoxBridge {
  const listeners = new Set<(e: EngineEvent) => void>();
  let source: EventSource | null = null;
  const connect = () => {
    if (source) return;
    source = new EventSource('/api/events');
    source.onmessage = (m) => {
      const event = JSON.parse(m.data as string) as EngineEvent;
      for (const l of listeners) l(event);
    };
  };
  return {
    async invoke(name, input) {
      const res = await fetch(`/api/invoke/${encodeURIComponent(name)}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(input ?? {}),
      });
      const reply = (await res.json()) as { ok: boolean; result?: unknown; error?: { code: string; message: string; field?: string } };
      if (reply.ok) return reply.result as never;
      throw Object.assign(new Error(reply.error?.message ?? `HTTP ${res.status}`), reply.error ?? {});
    },
    onEvent(listener) {
      connect();
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
