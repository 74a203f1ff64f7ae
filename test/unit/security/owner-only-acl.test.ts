/**
 * The Windows ACL of signing keys. Equivox is tested on Linux only, so this checks the
 * command lines restrictToOwner would run on Windows (platform and program runner stubbed),
 * not their effect on a real NTFS volume.
 */
import { describe, expect, it } from 'vitest';
import { currentUserSid, ownerOnlyAclArgs, restrictToOwner, type RunProgram } from '../../../src/main/security/owner-only-acl';

const SID = 'S-1-5-21-3623811015-3361044348-30300820-1013';

/** A runner that records each call and answers like whoami and icacls on Windows. */
function windowsRunner(fail?: string): RunProgram & { calls: string[][] } {
  const calls: string[][] = [];
  const run = ((file: string, args: string[]) => {
    calls.push([file, ...args]);
    if (file === fail) throw new Error(`${file} exited with code 5: Access is denied.`);
    if (file === 'whoami') return `"laptop\\zoë","${SID}"\r\n`;
    return 'processed file: …\r\nSuccessfully processed 1 files; Failed processing 0 files\r\n';
  }) as RunProgram & { calls: string[][] };
  run.calls = calls;
  return run;
}

describe('signing keys restricted to the user on Windows', () => {
  it("runs icacls with inheritance removed and full control for the user's SID only, per file", () => {
    const run = windowsRunner();
    const files = ['C:\\Users\\zoë\\AppData\\Roaming\\Equivox\\data\\identities\\.id-1.creating-x\\key.pem', 'C:\\Users\\zoë\\AppData\\Roaming\\Equivox\\data\\identities\\.id-1.creating-x\\passphrase'];
    restrictToOwner(files, { platform: 'win32', run });
    expect(run.calls).toEqual([
      ['whoami', '/user', '/fo', 'csv', '/nh'],
      ['icacls', files[0], '/inheritance:r', '/grant:r', `*${SID}:F`],
      ['icacls', files[1], '/inheritance:r', '/grant:r', `*${SID}:F`],
    ]);
  });

  it('does nothing elsewhere (the 0600 mode protects the file there)', () => {
    for (const platform of ['linux', 'darwin'] as const) {
      const run = windowsRunner();
      restrictToOwner(['/home/zoe/.equivox/identities/id-1/key.pem'], { platform, run });
      expect(run.calls).toEqual([]);
    }
  });

  it('a failure names the file, so a key is never left open without a word', () => {
    expect(() => restrictToOwner(['C:\\data\\key.pem'], { platform: 'win32', run: windowsRunner('icacls') })).toThrow(/cannot restrict C:\\data\\key\.pem to your Windows account \(icacls failed: icacls exited with code 5/);
    expect(() => restrictToOwner(['C:\\data\\key.pem'], { platform: 'win32', run: windowsRunner('whoami') })).toThrow(/cannot restrict C:\\data\\key\.pem to your Windows account: whoami exited/);
  });

  it('reads the SID from whoami and refuses output without one', () => {
    expect(currentUserSid(windowsRunner())).toBe(SID);
    expect(() => currentUserSid(() => 'ERROR: access denied')).toThrow(/gave no SID/);
    expect(ownerOnlyAclArgs('C:\\a b\\key.pem', SID)).toEqual(['C:\\a b\\key.pem', '/inheritance:r', '/grant:r', `*${SID}:F`]);
  });
});
