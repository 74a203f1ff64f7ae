/**
 * The one wire between a host (web host, Electron's main process, tests) and the engine
 * process (engine-process.ts). It carries the existing contract unchanged: `invoke(name,
 * input)` of src/shared/api.ts one way, the engine's events the other, plus the few
 * things only the host can do (native dialogs, the desktop shell) as calls back.
 *
 * Both Node's child_process.fork (serialization 'advanced') and Electron's
 * utilityProcess clone messages with the structured-clone algorithm, so Buffers and
 * typed arrays in results arrive as they left.
 */
import type { AppInfo, EngineEvent } from '../shared/api';
import type { PickPurpose } from '../shared/api/files';
import { ApiError, type ApiErrorShape } from '../shared/errors';
import { isResumableKind } from '../shared/jobs';
import { EventHub } from './events';
import type { DesktopShell, FilePicker } from './engine';
import type { PathPolicy } from './security/path-policy';

/** What the engine process needs to build its engine (createEngine's options, minus the host's functions). */
export interface EngineInit {
  host: AppInfo['host'];
  dataDir?: string;
  pathPolicy: PathPolicy;
  /** The host has a native file dialog (files.pick calls back to it). */
  picker: boolean;
  /** The host has the desktop's shell (ui.open calls back to it). */
  shell: boolean;
  /**
   * The name of the OS key store the host can encrypt signing keys with ("safeStorage"
   * under Electron), or absent: identities then fall back to a passphrase.
   */
  keyStore?: string;
}

/**
 * The host's OS key store (Electron's safeStorage lives only in its main process): the
 * engine asks it to encrypt a new identity's key and to decrypt one for signing.
 */
export interface HostKeyStore {
  isAvailable(): boolean;
  encrypt(plain: Buffer): Buffer;
  decrypt(cipher: Buffer): Buffer;
}

/**
 * A job the engine started: enough to start it again with the same id after a crash. The
 * input only of kinds that resume (others are only told ended on a crash), so nothing a
 * job alone needs (an unlocked signing key) leaves the engine process.
 */
export interface StartedJob {
  jobId: string;
  kind: string;
  input: unknown;
}

export type HostAsk =
  | { what: 'pick'; purpose: PickPurpose }
  | { what: 'openPath'; path: string }
  | { what: 'showItemInFolder'; path: string }
  /** The key store: 'available' answers "yes" or "no"; encrypt and decrypt take and give base64. */
  | { what: 'keyStore'; op: 'available' | 'encrypt' | 'decrypt'; data?: string };

export type ToEngine =
  | { t: 'init'; init: EngineInit; resume: StartedJob[] }
  | { t: 'call'; id: number; name: string; input: unknown }
  | { t: 'answer'; id: number; ok: true; value: string | null }
  | { t: 'answer'; id: number; ok: false; message: string }
  | { t: 'close' };

export type FromEngine =
  | { t: 'ready'; resumed: string[] }
  | { t: 'reply'; id: number; ok: true; result: unknown }
  | { t: 'reply'; id: number; ok: false; error: ApiErrorShape }
  | { t: 'event'; event: EngineEvent }
  | { t: 'job'; job: StartedJob }
  | { t: 'ask'; id: number; ask: HostAsk }
  | { t: 'closed' };

/** One end of the message channel, whatever carries it. */
export interface Channel<Out, In> {
  send(message: Out): void;
  onMessage(listener: (message: In) => void): void;
}

/** A started engine process, as the host sees it. */
export interface EngineProcess {
  readonly channel: Channel<ToEngine, FromEngine>;
  readonly pid: number | undefined;
  /** Called once when the process ends, for whatever reason. */
  onExit(listener: (reason: string) => void): void;
  kill(): void;
}


const MAX_RESTARTS_PER_MINUTE = 3;

/**
 * The host's side: an Api-shaped `invoke`, an EventHub fed from the engine, and the
 * watchdog. When the engine process dies the pending calls fail with a message that says
 * so, an `engine.restarted` event goes out, a new process starts on the same data
 * folder, and the jobs that were running and can resume are started again under their
 * old ids (so a window following a job keeps following it).
 */
export class EngineClient {
  readonly events = new EventHub();
  private proc: EngineProcess;
  private ready: Promise<void>;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void; name: string }>();
  private readonly running = new Map<string, StartedJob>();
  private readonly restarts: number[] = [];
  private closing = false;
  /** The last restart or stop, for windows that connect (or reconnect their event stream) after it. */
  lastNotice: Extract<EngineEvent, { type: 'engine.restarted' | 'engine.stopped' }> | null = null;

  constructor(
    private readonly start: () => EngineProcess,
    private readonly init: EngineInit,
    private readonly local: { picker?: FilePicker; shell?: DesktopShell; keyStore?: HostKeyStore } = {},
  ) {
    this.proc = this.launch([]);
    this.ready = this.waitReady();
  }

  /** The engine process's id (tests kill it to check the restart). */
  get pid(): number | undefined {
    return this.proc.pid;
  }

  /** Resolves once the current engine process has answered `init`. */
  whenReady(): Promise<void> {
    return this.ready;
  }

  async invoke(name: string, input: unknown): Promise<unknown> {
    await this.ready;
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, name });
      try {
        this.proc.channel.send({ t: 'call', id, name, input });
      } catch (err) {
        // The structured clone refused the input (nested too deeply, a value it cannot copy): the caller's fault, not the engine's.
        this.pending.delete(id);
        reject(new ApiError('validation', `the input of ${name} cannot be passed to the engine: ${(err as Error).message}`, 'input'));
      }
    });
  }

  async close(): Promise<void> {
    this.closing = true;
    const proc = this.proc;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        proc.kill();
        resolve();
      }, 10_000);
      timer.unref?.();
      proc.onExit(() => {
        clearTimeout(timer);
        resolve();
      });
      try {
        proc.channel.send({ t: 'close' });
      } catch {
        clearTimeout(timer);
        resolve();
      }
    });
  }

  private readyResolve: (resumed: string[]) => void = () => {};

  private waitReady(): Promise<void> {
    return new Promise<string[]>((resolve) => (this.readyResolve = resolve)).then(() => undefined);
  }

  private launch(resume: StartedJob[]): EngineProcess {
    const proc = this.start();
    proc.channel.onMessage((m) => this.receive(proc, m));
    proc.onExit((reason) => this.exited(proc, reason));
    proc.channel.send({ t: 'init', init: this.init, resume });
    return proc;
  }

  private receive(proc: EngineProcess, m: FromEngine): void {
    if (proc !== this.proc) return;
    switch (m.t) {
      case 'ready':
        this.readyResolve(m.resumed);
        return;
      case 'reply': {
        const p = this.pending.get(m.id);
        if (!p) return;
        this.pending.delete(m.id);
        if (m.ok) p.resolve(m.result);
        else p.reject(new ApiError(m.error.code, m.error.message, m.error.field, { retry: m.error.retry }));
        return;
      }
      case 'event':
        if (m.event.type === 'job.ended') this.running.delete(m.event.jobId);
        this.events.emit(m.event);
        return;
      case 'job':
        this.running.set(m.job.jobId, m.job);
        return;
      case 'ask':
        void this.answer(proc, m.id, m.ask);
        return;
      case 'closed':
        return;
    }
  }

  private async answer(proc: EngineProcess, id: number, ask: HostAsk): Promise<void> {
    try {
      let value: string | null;
      if (ask.what === 'pick') {
        if (!this.local.picker) throw new Error('this host has no file dialog');
        value = await this.local.picker(ask.purpose);
      } else if (ask.what === 'keyStore') {
        const store = this.local.keyStore;
        if (!store) throw new Error('this host has no key store');
        if (ask.op === 'available') value = store.isAvailable() ? 'yes' : 'no';
        else {
          const bytes = Buffer.from(ask.data ?? '', 'base64');
          value = (ask.op === 'encrypt' ? store.encrypt(bytes) : store.decrypt(bytes)).toString('base64');
        }
      } else if (ask.what === 'openPath') {
        if (!this.local.shell) throw new Error('this host cannot open files');
        value = await this.local.shell.openPath(ask.path);
      } else {
        if (!this.local.shell) throw new Error('this host cannot show files');
        this.local.shell.showItemInFolder(ask.path);
        value = null;
      }
      proc.channel.send({ t: 'answer', id, ok: true, value });
    } catch (err) {
      proc.channel.send({ t: 'answer', id, ok: false, message: (err as Error).message });
    }
  }

  private exited(proc: EngineProcess, reason: string): void {
    if (proc !== this.proc || this.closing) return;
    for (const [id, p] of this.pending) {
      p.reject(new ApiError('internal', `the engine stopped (${reason}) while answering ${p.name}; it is being restarted, try again`));
      this.pending.delete(id);
    }
    const interrupted = [...this.running.values()];
    this.running.clear();
    const resume = interrupted.filter((j) => isResumableKind(j.kind));
    for (const j of interrupted) {
      if (!isResumableKind(j.kind)) this.events.emit({ type: 'job.ended', jobId: j.jobId, kind: j.kind, state: 'failed', error: `the engine stopped (${reason}) during this job; start it again` });
    }
    const now = Date.now();
    while (this.restarts.length > 0 && now - this.restarts[0]! > 60_000) this.restarts.shift();
    if (this.restarts.length >= MAX_RESTARTS_PER_MINUTE) {
      this.notice({ type: 'engine.stopped', reason, message: `the engine stopped ${this.restarts.length + 1} times in a minute (last: ${reason}); quit and start Equivox again` });
      for (const j of resume) this.events.emit({ type: 'job.ended', jobId: j.jobId, kind: j.kind, state: 'failed', error: `the engine stopped (${reason})` });
      this.ready = Promise.reject(new ApiError('internal', 'the engine stopped and was not restarted; quit and start Equivox again'));
      this.ready.catch(() => {});
      return;
    }
    this.restarts.push(now);
    this.proc = this.launch(resume);
    this.ready = this.waitReady();
    this.notice({ type: 'engine.restarted', reason, resumedJobs: resume.map((j) => j.jobId) });
  }

  private notice(event: NonNullable<EngineClient['lastNotice']>): void {
    this.lastNotice = event;
    this.events.emit(event);
  }
}
