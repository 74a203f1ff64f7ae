import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface RunningHost {
  url: string;
  base: string;
  token: string;
  home: string;
  process: ChildProcess;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Start the real web host (tsx src/main/web.ts) with its own data folder and wait for its URL line. */
export async function startHost(home = mkdtempSync(join(tmpdir(), 'equivox-e2e-'))): Promise<RunningHost> {
  // node itself (not npx → sh → tsx), in its own process group, so stop() reaches the server.
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main/web.ts'], {
    env: { ...process.env, EQUIVOX_HOME: home },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`web host did not start: ${stderr}`)), 60_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /EQUIVOX_WEB_URL=(\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.on('exit', (code) => reject(new Error(`web host exited with ${code}: ${stderr}`)));
  });
  const parsed = new URL(url);
  return {
    url,
    base: parsed.origin,
    token: parsed.searchParams.get('token') ?? '',
    home,
    process: child,
    stop: (signal = 'SIGTERM') =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        try {
          process.kill(-child.pid!, signal);
        } catch {
          child.kill(signal);
        }
      }),
  };
}
