/**
 * On Windows a file's mode bits (chmod 0600) restrict nothing: who may read it is its ACL,
 * which a new file inherits from its folder (under %APPDATA% usually the user, SYSTEM and
 * Administrators, but a data folder elsewhere may let every user read it). Signing keys
 * and passphrase files get an ACL of their own: inheritance removed, full control for the
 * current user only (by SID, so a localised or renamed account name cannot miss).
 * Elsewhere the 0600 mode already written is what protects them, and nothing runs.
 */
import { execFileSync } from 'node:child_process';
import { UserError } from '../../shared/errors';

/** Runs a program and returns its standard output (throws when it fails). */
export type RunProgram = (file: string, args: string[]) => string;

const runProgram: RunProgram = (file, args) => execFileSync(file, args, { encoding: 'utf8', windowsHide: true, stdio: ['ignore', 'pipe', 'pipe'] });

/** The current user's SID from `whoami /user /fo csv /nh` ("host\\name","S-1-5-21-…"). */
export function currentUserSid(run: RunProgram = runProgram): string {
  const out = run('whoami', ['/user', '/fo', 'csv', '/nh']);
  const sid = /"(S-1-[\d-]+)"/.exec(out)?.[1];
  if (!sid) throw new Error(`whoami /user gave no SID: ${out.trim().slice(0, 200)}`);
  return sid;
}

/** The icacls arguments that leave FILE readable and writable by that SID alone. */
export function ownerOnlyAclArgs(file: string, sid: string): string[] {
  return [file, '/inheritance:r', '/grant:r', `*${sid}:F`];
}

/**
 * Restrict each file to the current user on Windows (no-op elsewhere). A failure is said
 * naming the file, so a key is never left readable by others without a word.
 */
export function restrictToOwner(files: string[], options: { platform?: NodeJS.Platform; run?: RunProgram } = {}): void {
  if ((options.platform ?? process.platform) !== 'win32' || files.length === 0) return;
  const run = options.run ?? runProgram;
  let sid: string;
  try {
    sid = currentUserSid(run);
  } catch (err) {
    throw new UserError(`cannot restrict ${files[0]} to your Windows account: ${(err as Error).message}`, 'identity');
  }
  for (const file of files) {
    try {
      run('icacls', ownerOnlyAclArgs(file, sid));
    } catch (err) {
      throw new UserError(`cannot restrict ${file} to your Windows account (icacls failed: ${(err as Error).message.slice(0, 200)})`, 'identity');
    }
  }
}
