/** Spawning the real CLI (or a helper script) and SIGKILLing it on a stderr/stdout line. */
import { spawn } from 'node:child_process';
import Database from 'better-sqlite3';

export interface RunOutcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The line that triggered the kill, or null when the run ended by itself. */
  killedAt: string | null;
  stdout: string;
  stderr: string;
}

/**
 * Run `node --import tsx SCRIPT ARGS` (one process: npx and the tsx binary would add
 * parents that a kill misses) in its own process group; SIGKILL the group at the first
 * line of `stream` for which `killWhen` returns true.
 */
export function runNode(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  killWhen: ((line: string) => boolean) | null,
  stream: 'stdout' | 'stderr' = 'stderr',
): Promise<RunOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const out = { stdout: '', stderr: '' };
    let partial = '';
    let killedAt: string | null = null;
    for (const name of ['stdout', 'stderr'] as const) {
      child[name].setEncoding('utf8');
      child[name].on('data', (chunk: string) => {
        out[name] += chunk;
        if (name !== stream || !killWhen || killedAt !== null) return;
        partial += chunk;
        const lines = partial.split('\n');
        partial = lines.pop()!;
        for (const line of lines) {
          if (killedAt === null && killWhen(line)) {
            killedAt = line;
            process.kill(-child.pid!, 'SIGKILL');
          }
        }
      });
    }
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, killedAt, ...out }));
  });
}

/** Run the CLI (`env`: more variables for it). */
export function runCli(args: string[], home: string, killWhen: ((line: string) => boolean) | null = null, env: NodeJS.ProcessEnv = {}): Promise<RunOutcome> {
  return runNode('src/main/cli.ts', args, { EQUIVOX_HOME: home, ...env }, killWhen);
}

/** A line "STAGE: done/total" with done ≥ min (and < total, so the run is really mid-way). */
export function progressAtLeast(stage: RegExp, min: number): (line: string) => boolean {
  return (line) => {
    const m = new RegExp(`^${stage.source}: (\\d+)/(\\d+)`).exec(line);
    return !!m && Number(m[1]) >= min && Number(m[1]) < Number(m[2]);
  };
}

/** Open a database file as a fresh process would after a crash (recovering its WAL) and run `PRAGMA integrity_check`. */
export function reopen(file: string): { db: Database.Database; integrity: string } {
  const db = new Database(file);
  const rows = db.pragma('integrity_check') as { integrity_check: string }[];
  return { db, integrity: rows.map((r) => r.integrity_check).join('; ') };
}
