/**
 * An empty folder of Equivox's own (issue 33 item 4): the working directory the engine
 * process and the job processes are started in. Anything that still resolved a relative
 * name against the working directory (a model's external data handed to onnxruntime as
 * bytes, a native library's relative path) finds nothing there, instead of the user's home
 * (Electron on Linux), `/` (Electron on macOS), the checkout (the web host) or wherever a
 * shell was.
 *
 * It lives in the Equivox data folder (`empty/`, mode 0700), so starting the engine writes
 * nowhere else (the strace checks in test/unit/security/offline.test.ts and
 * test/e2e/journey.spec.ts hold the app to its data folder); should something have been put
 * there, a fresh `empty-XXXXXX` beside it is used instead and removed at exit. Without a
 * data folder (a test that starts an engine bare) the system's temporary folder holds it.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made = new Map<string, string>();

function removeAtExit(dir: string): void {
  process.once('exit', () => {
    try {
      rmdirSync(dir);
    } catch {
      // Not empty (something wrote there after all) or already gone: leave it.
    }
  });
}

export function emptyDir(dataDir?: string): string {
  const key = dataDir ?? '';
  const known = made.get(key);
  if (known) return known;
  let dir: string;
  if (dataDir) {
    dir = join(dataDir, 'empty');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (readdirSync(dir).length > 0) {
      dir = mkdtempSync(join(dataDir, 'empty-'));
      removeAtExit(dir);
    }
  } else {
    dir = mkdtempSync(join(tmpdir(), 'equivox-cwd-'));
    removeAtExit(dir);
  }
  made.set(key, dir);
  return dir;
}

/**
 * A folder that cannot exist: a name under this program's own executable file. onnxruntime
 * is told to read external data from here when it is handed a model as bytes with no folder
 * of its own (inference/providers.ts), so a reference that slipped past the checks resolves
 * to nothing, never to a file in the working directory.
 */
export function noSuchFolder(): string {
  return join(process.execPath, 'no-external-data');
}
