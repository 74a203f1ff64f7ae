/**
 * Where Equivox keeps its own data (issue 35 item 4): one folder for the desktop app, the
 * web host and the command line, so identities, trusted certificates, models and the list
 * of recent projects are the same whichever is used.
 *
 * - `EQUIVOX_HOME`, when set, is that folder for all of them (tests, portable installs).
 * - Otherwise it is `data` in the desktop app's user-data folder, computed here in plain
 *   Node; the Electron host sets its user-data folder to `userDataDir()` before anything
 *   reads it (index.ts), so the app and the CLI cannot drift apart whatever name Electron
 *   would have taken from package.json ("equivox" from source, "Equivox" packaged).
 *   Linux `$XDG_CONFIG_HOME/Equivox` (default `~/.config/Equivox`, where Electron puts it),
 *   macOS `~/Library/Application Support/Equivox`, Windows `%LOCALAPPDATA%\Equivox`.
 * - Windows: Local, not Roaming, for all of it. Models run to gigabytes and Chromium's
 *   caches live in the user-data folder too, and a roaming profile copies Roaming to every
 *   computer the user signs in to; the rest (the recent-projects list names this
 *   computer's folders, keys are sealed to this user here) means nothing elsewhere, so no
 *   part of it is split off into Roaming (Chrome keeps its profile in Local for the same
 *   reasons).
 * - The `data` subfolder keeps Equivox's files apart from Chromium's profile (Cache,
 *   Local Storage, …), which the app writes into the user-data folder itself.
 */
import { homedir } from 'node:os';
import path from 'node:path';
import { samePath } from './same-path';

/** The name of the app's user-data folder (electron-builder.yml productName). */
export const APP_NAME = 'Equivox';

function api(platform: NodeJS.Platform): path.PlatformPath {
  return platform === 'win32' ? path.win32 : path.posix;
}

function homeOf(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string {
  return (platform === 'win32' ? env.USERPROFILE : env.HOME) || homedir();
}

/** Electron's `appData` folder: %APPDATA% (Roaming), ~/Library/Application Support, or $XDG_CONFIG_HOME (~/.config). */
export function electronAppDataDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  const p = api(platform);
  const home = homeOf(env, platform);
  if (platform === 'win32') return env.APPDATA || p.join(home, 'AppData', 'Roaming');
  if (platform === 'darwin') return p.join(home, 'Library', 'Application Support');
  return env.XDG_CONFIG_HOME || p.join(home, '.config');
}

/** The app's user-data folder: Electron's appData/Equivox, except on Windows %LOCALAPPDATA%\Equivox. */
export function userDataDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  const p = api(platform);
  if (platform === 'win32') return p.join(env.LOCALAPPDATA || p.join(homeOf(env, platform), 'AppData', 'Local'), APP_NAME);
  return p.join(electronAppDataDir(env, platform), APP_NAME);
}

/** The Equivox data folder: EQUIVOX_HOME, else userData/data. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.EQUIVOX_HOME) return env.EQUIVOX_HOME;
  return api(platform).join(userDataDir(env, platform), 'data');
}

/** Whether `dataDir` is the default place (not EQUIVOX_HOME, not a folder a caller chose). */
export function isDefaultDataDir(dataDir: string, env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): boolean {
  return !env.EQUIVOX_HOME && samePath(dataDir, defaultDataDir(env, platform), { platform });
}

/**
 * The folders earlier versions used by default, which the first start on the default data
 * folder copies from (store/data-migration.ts), oldest first: the command line's and the
 * web host's (XDG_DATA_HOME/equivox on Linux, the Equivox folder of Application Support or
 * %APPDATA% elsewhere), and the desktop app's `data` in Electron's user-data folder, named
 * after package.json ("equivox", from source) or the product ("Equivox"). Duplicates (the
 * two spellings on a disk that ignores case) and the data folder itself are left out.
 */
export function earlierDataDirs(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string[] {
  const p = api(platform);
  const home = homeOf(env, platform);
  const cli =
    platform === 'win32' || platform === 'darwin'
      ? p.join(electronAppDataDir(env, platform), APP_NAME)
      : p.join(env.XDG_DATA_HOME || p.join(home, '.local', 'share'), 'equivox');
  const candidates = [cli, p.join(electronAppDataDir(env, platform), 'equivox', 'data'), p.join(electronAppDataDir(env, platform), APP_NAME, 'data')];
  const now = defaultDataDir({ ...env, EQUIVOX_HOME: '' }, platform);
  const out: string[] = [];
  for (const c of candidates) {
    if (samePath(c, now, { platform }) || out.some((o) => samePath(o, c, { platform }))) continue;
    out.push(c);
  }
  return out;
}
