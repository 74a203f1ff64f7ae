/**
 * Electron host: binds every API operation to one ipcMain channel. Each call is
 * checked for its sender frame (only the app shell's top frame may call) and
 * validated by api.invoke before anything runs.
 */
import { ipcMain, type IpcMainInvokeEvent, type WebContents } from 'electron';
import { toErrorShape } from './error-shape';
import type { EventHub } from './events';
import { isAppUrl } from './web-security';

export const INVOKE_CHANNEL = 'equivox:invoke';
export const EVENT_CHANNEL = 'equivox:event';

export function isTrustedSender(event: IpcMainInvokeEvent): boolean {
  const frame = event.senderFrame;
  if (!frame) return false;
  // Only the main frame of the app shell; never an iframe or a navigated-away page.
  return frame.parent === null && isAppUrl(frame.url);
}

/** `api` is the engine process's client (engine-transport.ts): the same invoke the engine implements. */
export function registerIpc(api: { invoke(name: string, input: unknown): Promise<unknown> }, events: EventHub, windows: () => WebContents[]): () => void {
  ipcMain.handle(INVOKE_CHANNEL, async (event, name: unknown, input: unknown) => {
    if (!isTrustedSender(event)) {
      return { ok: false, error: { code: 'validation', message: 'IPC refused: the call did not come from the Equivox window', field: 'sender' } };
    }
    try {
      return { ok: true, result: await api.invoke(String(name), input) };
    } catch (err) {
      return { ok: false, error: toErrorShape(err) };
    }
  });
  const unsubscribe = events.subscribe((e) => {
    for (const wc of windows()) if (!wc.isDestroyed()) wc.send(EVENT_CHANNEL, e);
  });
  return () => {
    ipcMain.removeHandler(INVOKE_CHANNEL);
    unsubscribe();
  };
}
