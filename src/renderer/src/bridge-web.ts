/**
 * window.equivox for the browser build: the same interface the Electron preload
 * provides, over the web host's HTTP API (calls) and server-sent events (progress).
 */
import type { EngineEvent, EquivoxBridge } from '../../shared/api';

const TOKEN_KEY = 'equivox.token';

function takeToken(): string {
  const url = new URL(window.location.href);
  const fromUrl = url.searchParams.get('token');
  if (fromUrl) {
    sessionStorage.setItem(TOKEN_KEY, fromUrl);
    // Keep the token out of the address bar, history and screenshots.
    url.searchParams.delete('token');
    window.history.replaceState(null, '', url.toString());
    return fromUrl;
  }
  return sessionStorage.getItem(TOKEN_KEY) ?? '';
}

export function createWebBridge(): EquivoxBridge {
  const token = takeToken();
  const listeners = new Set<(e: EngineEvent) => void>();
  let source: EventSource | null = null;
  const connect = () => {
    if (source) return;
    source = new EventSource(`/api/events?token=${encodeURIComponent(token)}`);
    source.onmessage = (m) => {
      const event = JSON.parse(m.data as string) as EngineEvent;
      for (const l of listeners) l(event);
    };
  };
  return {
    async invoke(name, input) {
      const res = await fetch(`/api/invoke/${encodeURIComponent(name)}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Equivox-Token': token },
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
