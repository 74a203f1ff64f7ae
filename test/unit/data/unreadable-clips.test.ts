/**
 * One recording the system will not let Equivox read is that clip's problem, with its
 * name and what to do, never the whole import's (issue 35.7). The tests run as root, who
 * can read every file, so the import runs as the unprivileged user `nobody` (setpriv, a
 * real process with its own uid: no stub), over a spreadsheet of four demo recordings:
 * one file with mode 000 (EACCES on open) and one in a folder nobody may enter (EACCES
 * while resolving its path). The mapping of other codes (macOS privacy, OneDrive
 * placeholders, Windows locks) to words is checked from the table.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isReadRefusal, unreadableReason } from '../../../src/main/data/unreadable';
import { skipUnless } from '../../support/skips';

const root = mkdtempSync(join(tmpdir(), 'equivox-unreadable-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The uid and gid of `nobody`, or why the import cannot run as an unprivileged user here. */
function nobody(): { uid: number; gid: number } | string {
  if (process.getuid?.() !== 0) return 'the tests must run as root to start the import as the unprivileged user nobody';
  const id = spawnSync('id', ['-u', 'nobody'], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', 'nobody'], { encoding: 'utf8' });
  if (id.status !== 0 || gid.status !== 0) return 'there is no user nobody here';
  if (spawnSync('setpriv', ['--version']).error) return 'setpriv (util-linux) is not installed';
  return { uid: Number(id.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

describe('an unreadable clip, imported by an unprivileged user', () => {
  it('is excluded with its name and the reason; the other clips import', (ctx) => {
    const user = nobody();
    skipUnless(typeof user === 'string' ? user : null, (r) => ctx.skip(r));
    if (typeof user === 'string') return;
    const dir = join(root, 'recordings');
    mkdirSync(join(dir, 'locked'), { recursive: true });
    const demo = resolve('resources/demo/asr');
    const files = ['asr-us-f2-1.opus', 'asr-us-m1-1.opus', 'asr-uk-f2-1.opus', 'asr-uk-m1-1.opus'];
    copyFileSync(join(demo, files[0]!), join(dir, files[0]!));
    copyFileSync(join(demo, files[1]!), join(dir, files[1]!));
    copyFileSync(join(demo, files[2]!), join(dir, files[2]!));
    copyFileSync(join(demo, files[3]!), join(dir, 'locked', files[3]!));
    writeFileSync(
      join(dir, 'clips.csv'),
      [
        'path,speaker,accent,transcript',
        `${files[0]},us-f2,us,open the window and let the air in`,
        `${files[1]},us-m1,us,open the window and let the air in`,
        `${files[2]},uk-f2,uk,open the window and let the air in`,
        `locked/${files[3]},uk-m1,uk,open the window and let the air in`,
        '',
      ].join('\n'),
    );
    // Everything readable by others, except one file and one folder; the project folder is nobody's.
    chmodSync(root, 0o755);
    chmodSync(dir, 0o755);
    for (const f of files.slice(0, 3)) chmodSync(join(dir, f), 0o644);
    chmodSync(join(dir, 'clips.csv'), 0o644);
    chmodSync(join(dir, files[1]!), 0o000);
    chmodSync(join(dir, 'locked'), 0o700);
    const project = join(root, 'project');
    mkdirSync(project);
    chownSync(project, user.uid, user.gid);

    const r = spawnSync(
      'setpriv',
      ['--reuid', String(user.uid), '--regid', String(user.gid), '--clear-groups', '--', process.execPath, '--import', 'tsx', 'test/unit/data/unreadable-child.ts', join(dir, 'clips.csv'), join(project, 'project.sqlite')],
      { encoding: 'utf8', env: { ...process.env, HOME: project }, timeout: 120_000 },
    );
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as {
      uid: number;
      imported: number;
      clips: { row: number; path: string; status: string; issues: { code: string; message: string }[] }[];
    };
    expect(out.uid).toBe(user.uid);
    expect(out.imported).toBe(2);
    expect(out.clips.map((c) => [c.row, c.status])).toEqual([
      [1, 'ok'],
      [2, 'excluded'],
      [3, 'ok'],
      [4, 'excluded'],
    ]);
    expect(out.clips[1]!.issues).toEqual([
      { code: 'unreadable_file', message: `${join(dir, files[1]!)}: the file cannot be read (permission denied, EACCES): give your user account read access to it, or copy it to a folder you own` },
    ]);
    expect(out.clips[3]!.issues).toEqual([
      { code: 'unreadable_file', message: `${join(dir, 'locked', files[3]!)}: the file cannot be read (permission denied, EACCES): give your user account read access to it, or copy it to a folder you own` },
    ]);
  });
});

describe('why a file could not be read, by code and platform', () => {
  const err = (code: string) => Object.assign(new Error(code), { code });
  it('names macOS privacy, OneDrive placeholders and Windows locks', () => {
    expect(unreadableReason(err('EPERM'), 'darwin')).toBe(
      'macOS did not let Equivox read the file (EPERM): allow Equivox in System Settings › Privacy & Security › Files and Folders (or Full Disk Access), then import again',
    );
    expect(unreadableReason(err('EIO'), 'win32')).toMatch(/^the file could not be read \(EIO\): if it is in OneDrive, iCloud Drive or another synced folder, it may be a placeholder/);
    expect(unreadableReason(err('UNKNOWN'), 'win32')).toMatch(/placeholder whose content is not on this computer/);
    expect(unreadableReason(err('EBUSY'), 'win32')).toBe('the file is open in another program that does not share it (EBUSY): close that program, then import again');
    expect(unreadableReason(err('EPERM'), 'win32')).toMatch(/^the file is open in another program that does not share it, or it is not yours to read \(EPERM\)/);
  });

  it('a missing file, running out of memory and errors of Equivox itself are not read refusals', () => {
    expect(isReadRefusal(err('EACCES'))).toBe(true);
    expect(isReadRefusal(err('ETIMEDOUT'))).toBe(true);
    expect(isReadRefusal(err('ENOENT'))).toBe(false);
    expect(isReadRefusal(err('ENOMEM'))).toBe(false);
    expect(isReadRefusal(new TypeError('x is undefined'))).toBe(false);
    expect(isReadRefusal(Object.assign(new Error('busy'), { code: 'SQLITE_BUSY' }))).toBe(false);
  });
});
