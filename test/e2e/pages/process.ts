import { execFileSync } from 'node:child_process';

/** The host runs as npx → sh → tsx → node; kill every process of that tree, as a crash would. */
export function killTree(pid: number): void {
  const children = (p: number): number[] => {
    try {
      return execFileSync('ps', ['-o', 'pid=', '--ppid', String(p)]).toString().split(/\s+/).filter(Boolean).map(Number);
    } catch {
      return [];
    }
  };
  const all: number[] = [];
  const walk = (p: number) => {
    all.push(p);
    for (const c of children(p)) walk(c);
  };
  walk(pid);
  for (const p of all.reverse()) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}
