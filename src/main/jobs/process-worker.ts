/**
 * A job worker that is a process of its own (src/main/job-process.ts), for the jobs that run
 * models from other people (issue 33 item 5). A worker thread cannot be ended while it is
 * inside onnxruntime: `Worker.terminate()` waits for JavaScript to run again, and a Loop
 * that never ends never returns to it (measured: the thread kept a core busy after
 * terminate, until its process exited). A process can be ended at once (SIGKILL), its
 * memory is its own and comes back with it, and its resident size can be read while its
 * job thread is busy. To the runner it looks like a Worker: the same messages, the same
 * events; the cancel flag, which cannot be shared across processes, is a message.
 *
 * It starts in an empty folder (security/empty-dir.ts), so nothing a model resolves against
 * the working directory finds a file.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { setPriority } from 'node:os';
import type { JobKind } from '../../shared/jobs';
import { emptyDir } from '../security/empty-dir';
import { childExecArgv, processEntry } from './entries';
import type { ProcessMessage, RunnerMessage, WorkerBoot, WorkerMessage } from './protocol';

/** What the runner needs of a worker, thread or process. */
export interface JobWorker {
  postMessage(m: RunnerMessage): void;
  on(event: 'message', listener: (m: WorkerMessage) => void): this;
  on(event: 'error', listener: (err: Error) => void): this;
  on(event: 'exit', listener: (code: number) => void): this;
  ref(): void;
  unref(): void;
  terminate(): Promise<unknown>;
  /** A job process: the runner's cancel, as a message. */
  cancel?(): void;
}

/** Whether this process can start job processes: not inside Electron, whose RunAsNode fuse is off (child_process.fork would start the app again). */
export function canForkJobProcesses(): boolean {
  return !process.versions.electron;
}

/**
 * The kinds that start a child process (ffmpeg, ffprobe) for each recording they read. On
 * Linux, Node starts a child with fork(), which holds the memory map of the whole process
 * that starts it while it copies its page tables: every other thread of that process that
 * touches a new page waits. Started from a job thread of the engine (hundreds of MB
 * resident), each start stopped the engine's main thread for 30–470 ms on a loaded
 * computer (issue 33: `app.info` p99 170 ms during 50 imports on a nearly idle one). In a
 * job process of their own, the forks stop only that process.
 */
export const SPAWNING_JOB_KINDS: ReadonlySet<string> = new Set<JobKind>(['datasets.import', 'demo.import']);

export class ProcessWorker extends EventEmitter implements JobWorker {
  private readonly child: ChildProcess;
  private readonly ended: Promise<void>;

  /** `cwd`: an empty folder of Equivox's own (the runner's processCwd). */
  constructor(boot: WorkerBoot, cwd: string = emptyDir()) {
    super();
    const entry = processEntry();
    this.child = fork(entry, [JSON.stringify(boot)], { cwd, execArgv: childExecArgv(entry), serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    // The whole process at the job's niceness, from its start: loading its code (compiling it,
    // from source) competes with the engine's answers to the window as much as the job does.
    // (On Linux this sets the main thread's, which the threads it starts inherit; elsewhere the process's.)
    if (boot.nice !== undefined && this.child.pid !== undefined) {
      try {
        setPriority(this.child.pid, boot.nice);
      } catch {
        // Not allowed here: the job thread still lowers its own (job-worker.ts).
      }
    }
    this.ended = new Promise((resolve) => this.child.once('exit', () => resolve()));
    this.child.on('message', (m: WorkerMessage) => {
      if (m.type === 'crash') this.emit('error', new Error(m.message));
      else this.emit('message', m);
    });
    // A failed start or a send after the child went: its 'exit' follows and ends the job.
    this.child.on('error', () => undefined);
    this.child.on('exit', (code, signal) => this.emit('exit', code ?? (signal ? 1 : 0)));
  }

  /** The job process's id. */
  get pid(): number | undefined {
    return this.child.pid;
  }

  postMessage(m: RunnerMessage): void {
    let out: ProcessMessage = m;
    if (m.type === 'start') {
      // The shared cancel flag stays here; cancel() sends it across.
      const { cancelFlag: _here, ...job } = m;
      out = job;
    }
    // Throws at once for an input that cannot be cloned, as Worker.postMessage does.
    this.child.send(out);
  }

  cancel(): void {
    if (this.child.connected) this.child.send({ type: 'cancel' } satisfies ProcessMessage);
  }

  ref(): void {
    this.child.ref();
    this.child.channel?.ref();
  }

  unref(): void {
    this.child.unref();
    this.child.channel?.unref();
  }

  terminate(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    return this.ended;
  }
}
