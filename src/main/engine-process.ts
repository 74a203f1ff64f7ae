/**
 * The engine in its own process: the API implementation, the job runner (and its worker
 * threads, where onnxruntime and the statistics run) and the project stores. Hosts start
 * this file with child_process.fork (web host, tests) or Electron's utilityProcess.fork
 * and talk to it through engine-transport.ts. A native crash here ends this process
 * only; the host restarts it (see EngineClient).
 */
// First, before anything can load onnxruntime-node: its native telemetry off.
import './security/telemetry-off';
import type { PickPurpose } from '../shared/api/files';
import { isResumableKind, MODEL_JOB_KINDS } from '../shared/jobs';
import { createApi } from './api';
import { setKeyProtector, type KeyProtector } from './identity';
import { createEngine, type Engine } from './engine';
import { toErrorShape } from './error-shape';
import { SPAWNING_JOB_KINDS } from './jobs/process-worker';
import type { Channel, FromEngine, HostAsk, ToEngine } from './engine-transport';

/** The parent's end, whichever way this process was started. */
function parentChannel(): Channel<FromEngine, ToEngine> | null {
  // Electron's utilityProcess: process.parentPort (typed here because src/main never imports electron).
  const parentPort = (process as { parentPort?: { postMessage(m: unknown): void; on(e: 'message', l: (e: { data: unknown }) => void): void } }).parentPort;
  if (parentPort) {
    return { send: (m) => parentPort.postMessage(m), onMessage: (l) => parentPort.on('message', (e) => l(e.data as ToEngine)) };
  }
  if (process.send) {
    const send = process.send.bind(process);
    // The host went away (killed, crashed): nobody is left to answer to.
    process.on('disconnect', () => process.exit(0));
    // Ctrl+C or a stop signal to the whole process group: the host decides when this
    // process ends (it sends 'close' and waits for open jobs and databases to shut).
    process.on('SIGINT', () => undefined);
    process.on('SIGTERM', () => undefined);
    return { send: (m) => void send(m), onMessage: (l) => process.on('message', (m) => l(m as ToEngine)) };
  }
  return null;
}

/** The host's OS key store as the identity code's protector: each call a question to the host. */
function hostKeyStore(kind: string, ask: (q: HostAsk) => Promise<string | null>): KeyProtector {
  const bytes = async (op: 'encrypt' | 'decrypt', data: Buffer): Promise<Buffer> => Buffer.from((await ask({ what: 'keyStore', op, data: data.toString('base64') })) ?? '', 'base64');
  return {
    kind,
    isAvailable: async () => (await ask({ what: 'keyStore', op: 'available' })) === 'yes',
    encrypt: (plain) => bytes('encrypt', plain),
    decrypt: (cipher) => bytes('decrypt', cipher),
  };
}

export function serveEngine(channel: Channel<FromEngine, ToEngine>): void {
  let engine: Engine | null = null;
  let api: ReturnType<typeof createApi> | null = null;
  let nextAsk = 1;
  const asks = new Map<number, { resolve: (v: string | null) => void; reject: (e: Error) => void }>();
  const ask = (question: HostAsk): Promise<string | null> =>
    new Promise((resolve, reject) => {
      const id = nextAsk++;
      asks.set(id, { resolve, reject });
      channel.send({ t: 'ask', id, ask: question });
    });

  channel.onMessage((m) => {
    switch (m.t) {
      case 'init': {
        const { init } = m;
        engine = createEngine({
          host: init.host,
          ...(init.dataDir ? { dataDir: init.dataDir } : {}),
          pathPolicy: init.pathPolicy,
          ...(init.picker ? { picker: (purpose: PickPurpose) => ask({ what: 'pick', purpose }) } : {}),
          ...(init.shell
            ? {
                shell: {
                  openPath: async (path: string) => (await ask({ what: 'openPath', path })) ?? '',
                  showItemInFolder: (path: string) => void ask({ what: 'showItemInFolder', path }).catch(() => undefined),
                },
              }
            : {}),
        });
        engine.events.subscribe((event) => channel.send({ t: 'event', event }));
        if (init.keyStore) setKeyProtector(hostKeyStore(init.keyStore, ask));
        // Only what a restart needs goes to the host: the input of kinds that resume.
        engine.jobs.onStarted = (job) => channel.send({ t: 'job', job: { ...job, input: isResumableKind(job.kind) ? job.input : null } });
        // Calls from the window (app.info, progress, lists) before batch work in the job threads.
        engine.jobs.jobNice = 10;
        // Imports start ffmpeg for every recording; started from a thread of this process, each
        // start (fork) held up the answers to the window (jobs/process-worker.ts SPAWNING_JOB_KINDS).
        engine.jobs.processKinds = new Set([...MODEL_JOB_KINDS, ...SPAWNING_JOB_KINDS]);
        api = createApi(engine);
        // Jobs the previous engine process was running when it died: same ids, same inputs,
        // each checked first (one whose stored input does not fit ends failed, saying why).
        const engineJobs = engine.jobs;
        const resumed = m.resume.filter((job) => engineJobs.resume(job) !== null);
        channel.send({ t: 'ready', resumed: resumed.map((j) => j.jobId) });
        return;
      }
      case 'call': {
        const { id } = m;
        if (!api) {
          channel.send({ t: 'reply', id, ok: false, error: { code: 'internal', message: 'the engine is not started yet' } });
          return;
        }
        api.invoke(m.name, m.input).then(
          (result) => channel.send({ t: 'reply', id, ok: true, result: result ?? null }),
          (err: unknown) => channel.send({ t: 'reply', id, ok: false, error: toErrorShape(err) }),
        );
        return;
      }
      case 'answer': {
        const a = asks.get(m.id);
        if (!a) return;
        asks.delete(m.id);
        if (m.ok) a.resolve(m.value);
        else a.reject(new Error(m.message));
        return;
      }
      case 'close':
        void (engine?.close() ?? Promise.resolve()).finally(() => {
          channel.send({ t: 'closed' });
          process.exit(0);
        });
        return;
    }
  });
}

const channel = parentChannel();
if (channel) serveEngine(channel);
