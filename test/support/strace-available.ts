import { spawnSync } from 'node:child_process';

/**
 * Whether `strace -f` can trace a child here: installed (Debian package strace; .ci/run
 * installs it) and allowed to ptrace (some containers forbid it). The reason is shown in
 * the skipped test's name, so a skip is never silent.
 */
export function straceAvailability(): { ok: boolean; reason: string } {
  const r = spawnSync('strace', ['-f', '-qq', '-o', '/dev/null', '--', 'true'], { encoding: 'utf8' });
  if (r.error) return { ok: false, reason: `strace is not installed (${(r.error as NodeJS.ErrnoException).code ?? r.error.message}); install the Debian package strace` };
  if (r.status !== 0) return { ok: false, reason: `strace cannot trace here: ${r.stderr.trim().split('\n')[0] ?? `exit ${r.status}`}` };
  return { ok: true, reason: '' };
}
