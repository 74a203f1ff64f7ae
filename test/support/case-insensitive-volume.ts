/**
 * A real case-insensitive volume on Linux, for the tests of the one path comparison
 * (src/main/paths/same-path.ts). Tried in order, as root:
 *
 * 1. an ext4 image made with `mkfs.ext4 -O casefold`, loop-mounted, with `chattr +F` on a
 *    folder (what STACK.md names); the kernel must be built with CONFIG_UNICODE, and these
 *    machines' is not ("Filesystem with casefold feature cannot be mounted without
 *    CONFIG_UNICODE", in the kernel log);
 * 2. an exFAT image (mkfs.exfat from exfatprogs) on a loop device mounted through FUSE
 *    (exfat-fuse): exFAT ignores case as Windows and macOS disks do, and it is what USB
 *    sticks carry.
 *
 * Returns the folder to work in (case-insensitive) and how to unmount, or why none could
 * be made (for skipUnless).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type Volume = { ok: true; dir: string; kind: string; close: () => void } | { ok: false; reason: string };

function run(cmd: string, args: string[]): { ok: boolean; out: string } {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  const out = `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? r.error.message : ''}`.trim();
  return { ok: !r.error && r.status === 0, out };
}

function has(cmd: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
}

/** Mount a case-insensitive volume of `sizeMb` in a new temporary folder. */
export function mountCaseInsensitiveVolume(sizeMb = 32): Volume {
  if (process.getuid?.() !== 0) return { ok: false, reason: 'mounting a case-insensitive test volume needs root (loop devices and mount)' };
  if (!existsSync('/dev/loop-control')) return { ok: false, reason: 'no loop devices here (/dev/loop-control is missing), so no test volume can be mounted' };
  const work = mkdtempSync(join(tmpdir(), 'equivox-ci-volume-'));
  const mnt = join(work, 'mnt');
  mkdirSync(mnt);
  const reasons: string[] = [];

  // 1. ext4 with casefold.
  const ext4 = join(work, 'casefold.img');
  if (has('mkfs.ext4') && run('truncate', ['-s', `${sizeMb}M`, ext4]).ok && run('mkfs.ext4', ['-q', '-O', 'casefold', '-E', 'encoding=utf8', ext4]).ok) {
    const m = run('mount', ['-o', 'loop', ext4, mnt]);
    if (m.ok) {
      const dir = join(mnt, 'ci');
      mkdirSync(dir);
      const f = run('chattr', ['+F', dir]);
      if (f.ok) {
        return { ok: true, dir, kind: 'ext4 with casefold (chattr +F)', close: () => cleanup(work, mnt, null) };
      }
      reasons.push(`chattr +F failed (${f.out})`);
      run('umount', [mnt]);
    } else {
      const log = run('sh', ['-c', 'dmesg 2>/dev/null | grep -i casefold | tail -1']).out;
      reasons.push(`an ext4 casefold image does not mount here (${log || m.out})`);
    }
  } else reasons.push('mkfs.ext4 cannot make a casefold image here');

  // 2. exFAT through FUSE.
  if (!has('mkfs.exfat') || !has('mount.exfat-fuse')) {
    reasons.push('and exFAT needs the Debian packages exfatprogs and exfat-fuse (apt-get install exfatprogs exfat-fuse)');
    cleanup(work, null, null);
    return { ok: false, reason: reasons.join('; ') };
  }
  const img = join(work, 'exfat.img');
  run('truncate', ['-s', `${sizeMb}M`, img]);
  const mk = run('mkfs.exfat', [img]);
  if (!mk.ok) {
    cleanup(work, null, null);
    return { ok: false, reason: [...reasons, `mkfs.exfat failed (${mk.out})`].join('; ') };
  }
  const loop = run('losetup', ['-f', '--show', img]);
  if (!loop.ok) {
    cleanup(work, null, null);
    return { ok: false, reason: [...reasons, `no free loop device (${loop.out})`].join('; ') };
  }
  const device = loop.out.split('\n')[0]!;
  const m = run('mount.exfat-fuse', [device, mnt]);
  if (!m.ok) {
    cleanup(work, null, device);
    return { ok: false, reason: [...reasons, `exFAT through FUSE does not mount here (${m.out})`].join('; ') };
  }
  return { ok: true, dir: mnt, kind: `exFAT through FUSE (${reasons.join('; ')})`, close: () => cleanup(work, mnt, device) };
}

function cleanup(work: string, mnt: string | null, device: string | null): void {
  if (mnt) {
    // FUSE may still be busy for a moment after the last file closed.
    for (let i = 0; i < 20 && !run('umount', [mnt]).ok; i += 1) spawnSync('sleep', ['0.1']);
  }
  if (device) run('losetup', ['-d', device]);
  rmSync(work, { recursive: true, force: true });
}
