import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultDataDir } from '../../src/main/paths/data-folders';
import { PRIVACY_ENV } from '../../src/main/security/telemetry';
import { parseStraceLog, STRACE_ARGS, type StraceLog } from '../support/strace-log';

export interface RunningHost {
  url: string;
  base: string;
  token: string;
  /** The data folder (EQUIVOX_HOME, or its default place inside HOME when traced). */
  home: string;
  process: ChildProcess;
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Set when started with `traced`: HOME (an empty folder at the start) and the strace log, read after stop(). */
  traced?: { homeDir: string; log(): StraceLog };
  /** HOME (an empty folder at the start) when started with `traced` or `defaultHome`. */
  homeDir?: string;
}

/**
 * Start the real web host (node --import tsx src/main/web.ts) with its own data folder
 * and wait for its URL line. With `traced`, it runs under `strace -f` with HOME pointed
 * at an empty folder, no EQUIVOX_HOME (so the data folder takes its default place in
 * HOME) and no ORT_DISABLE_TELEMETRY from this harness (the host must set it itself).
 * With `defaultHome`, the same HOME and environment without strace (the data folder's
 * default place, shared with the CLI run with that HOME).
 */
export async function startHost(home = mkdtempSync(join(tmpdir(), 'equivox-e2e-')), options: { traced?: boolean; defaultHome?: boolean } = {}): Promise<RunningHost> {
  const node = [process.execPath, '--import', 'tsx', 'src/main/web.ts'];
  let env: NodeJS.ProcessEnv = { ...process.env, EQUIVOX_HOME: home };
  let cmd = node;
  let traced: RunningHost['traced'];
  let dataDir = home;
  let homeDir: string | undefined;
  if (options.traced || options.defaultHome) {
    homeDir = mkdtempSync(join(tmpdir(), 'equivox-e2e-home-'));
    env = { ...process.env, HOME: homeDir };
    for (const k of ['EQUIVOX_HOME', 'XDG_DATA_HOME', 'XDG_CACHE_HOME', 'XDG_CONFIG_HOME', ...Object.keys(PRIVACY_ENV)]) delete env[k];
    dataDir = defaultDataDir({ HOME: homeDir }, 'linux');
  }
  if (options.traced && homeDir) {
    const logFile = join(mkdtempSync(join(tmpdir(), 'equivox-e2e-strace-')), 'strace.log');
    cmd = ['strace', ...STRACE_ARGS, '-o', logFile, '--', ...node];
    traced = { homeDir, log: () => parseStraceLog(existsSync(logFile) ? readFileSync(logFile, 'utf8') : '', process.cwd()) };
  }
  // node (or strace running node), not npx → sh → tsx, in its own process group, so stop() reaches the server.
  const child = spawn(cmd[0]!, cmd.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
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
    home: dataDir,
    process: child,
    ...(traced ? { traced } : {}),
    ...(homeDir ? { homeDir } : {}),
    stop: (signal = 'SIGTERM') =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        try {
          if (traced) {
            // Stop the traced server, not strace: strace then finishes its log and exits.
            const tracee = execFileSync('ps', ['-o', 'pid=', '--ppid', String(child.pid)]).toString().trim().split(/\s+/)[0];
            process.kill(Number(tracee), signal);
          } else process.kill(-child.pid!, signal);
        } catch {
          child.kill(signal);
        }
      }),
  };
}

/**
 * A web host whose temporary folder ("Temporary files" in the chooser) is `folder`, so a
 * spec that chooses its files there scrolls a few rows, not a busy machine's whole /tmp
 * (thousands of entries in CI: choosers ran past their tests' time limits).
 */
export async function startHostWithTemp(folder: string, home = mkdtempSync(join(tmpdir(), 'equivox-e2e-'))): Promise<RunningHost> {
  // By default the data folder is outside `folder`: the app refuses to take a folder that holds its own data folder.
  const before = process.env.TMPDIR;
  process.env.TMPDIR = folder;
  try {
    return await startHost(home);
  } finally {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
  }
}
