/**
 * Starting engine-process.ts with Node's child_process.fork (the web host, tests,
 * benches). Electron uses utilityProcess.fork instead (index.ts); both hand
 * EngineClient the same EngineProcess.
 */
import { fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EngineProcess, FromEngine } from './engine-transport';
import { childExecArgv } from './jobs/entries';
import { emptyDir } from './security/empty-dir';

/** engine-process.ts beside this file when run from source, engine-process.js in a bundle. */
export function engineEntry(): string {
  const here = fileURLToPath(import.meta.url);
  const ts = join(dirname(here), 'engine-process.ts');
  return here.endsWith('.ts') && existsSync(ts) ? ts : join(dirname(here), 'engine-process.js');
}

/** `cwd`: an empty folder of the engine's own (security/empty-dir.ts; the web host passes the one in its data folder). */
export function forkEngine(entry = engineEntry(), cwd = emptyDir()): EngineProcess {
  // In an empty folder of its own (security/empty-dir.ts), not the host's (the web host's is
  // the checkout); from source with the TypeScript loader named by its full URL.
  const child = fork(entry, [], { cwd, execArgv: childExecArgv(entry), serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  let exitListeners: ((reason: string) => void)[] = [];
  let ended: string | null = null;
  child.on('exit', (code, signal) => {
    ended = signal ? `killed by ${signal}` : `exit code ${code}`;
    for (const l of exitListeners) l(ended);
    exitListeners = [];
  });
  return {
    pid: child.pid,
    channel: {
      send: (m) => {
        if (child.connected) child.send(m);
      },
      onMessage: (l) => child.on('message', (m) => l(m as FromEngine)),
    },
    onExit: (l) => {
      if (ended !== null) l(ended);
      else exitListeners.push(l);
    },
    kill: () => void child.kill('SIGKILL'),
  };
}
