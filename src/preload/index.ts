/**
 * Preload: exposes the typed API as window.equivox. Only two named functions cross the
 * bridge, each bound to one allow-listed channel; raw ipcRenderer never does.
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { isOperationName, type EngineEvent, type EquivoxBridge } from '../shared/api';

const INVOKE_CHANNEL = 'equivox:invoke';
const EVENT_CHANNEL = 'equivox:event';

type Reply = { ok: true; result: unknown } | { ok: false; error: { code: string; message: string; field?: string } };

const bridge: EquivoxBridge = {
  async invoke(name, input) {
    if (!isOperationName(name)) throw Object.assign(new Error(`unknown operation ${String(name)}`), { code: 'unknown_operation' });
    const reply = (await ipcRenderer.invoke(INVOKE_CHANNEL, name, input)) as Reply;
    if (reply.ok) return reply.result as never;
    throw Object.assign(new Error(reply.error.message), reply.error);
  },
  onEvent(listener) {
    const wrapped = (_e: IpcRendererEvent, event: EngineEvent) => listener(event);
    ipcRenderer.on(EVENT_CHANNEL, wrapped);
    return () => ipcRenderer.removeListener(EVENT_CHANNEL, wrapped);
  },
};

contextBridge.exposeInMainWorld('equivox', bridge satisfies EquivoxBridge);
