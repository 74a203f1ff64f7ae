/**
 * files.*: how a path the user chose becomes usable (see src/main/security/path-policy.ts).
 *
 * - files.pick: the host's native dialog (Electron); the chosen path is granted.
 * - files.browse / files.grant: the web host's in-app chooser. The web host has no native
 *   dialog, and whoever holds its per-launch token is the local user at the browser, so
 *   it may list and grant anything under the home and temporary folders. The trade-off:
 *   script running in the web host's page could grant itself any file there; the
 *   desktop app does not offer these two operations, so there only a real dialog grants.
 */
import { existsSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { BrowseEntry, PickPurpose } from '../../shared/api/files';
import { ApiError, UserError } from '../../shared/errors';
import type { HandlerServices } from '../engine-services';
import { isEqualOrInside, samePath } from '../paths/same-path';
import { pathSyntaxProblem, resolveReal } from '../security/path-policy';
import type { HandlerMap } from './types';

const MAX_ENTRIES = 5000;

/** Folders the web host's chooser may show: home and the temporary folder, symlinks resolved. */
export function browseRoots(): string[] {
  const roots: string[] = [];
  for (const r of [homedir(), tmpdir()]) {
    try {
      const real = realpathSync(r);
      if (!roots.includes(real)) roots.push(real);
    } catch {
      // A missing home folder is simply not offered.
    }
  }
  return roots;
}

function webOnly(engine: HandlerServices, op: string): void {
  if (engine.host !== 'web') {
    throw new UserError(`${op} is only available in the browser preview; choose files with Choose… (files.pick)`, 'operation');
  }
}

/** A path inside a browse root, resolved; refused (naming `field`) otherwise. */
function insideRoots(path: string, field: string): string {
  const problem = pathSyntaxProblem(path);
  if (problem) throw new ApiError('validation', `${field}: ${problem}`, field);
  let real: string;
  try {
    real = resolveReal(path);
  } catch (err) {
    throw new ApiError('validation', `${field}: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`, field);
  }
  if (!browseRoots().some((root) => isEqualOrInside(real, root))) {
    throw new ApiError('validation', `${field}: only folders under your home folder or the temporary folder can be browsed`, field);
  }
  return real;
}

export const fileHandlers: HandlerMap<'files.pick' | 'files.browse' | 'files.grant'> = {
  'files.pick': async ({ purpose }: { purpose: PickPurpose }, engine) => {
    if (!engine.picker) {
      throw new UserError(
        engine.host === 'web'
          ? 'the browser preview has no file dialog; use the in-app chooser (files.browse and files.grant)'
          : 'this host has no file dialog; give paths on the command line',
        'purpose',
      );
    }
    const chosen = await engine.picker(purpose);
    if (chosen === null) return { path: null };
    return { path: engine.paths.grant(chosen, purpose).path };
  },

  'files.browse': ({ path }, engine) => {
    webOnly(engine, 'files.browse');
    const folder = insideRoots(path ?? homedir(), 'path');
    engine.paths.refuseDataFolder('path', folder);
    if (!existsSync(folder) || !statSync(folder).isDirectory()) throw new ApiError('validation', `path: ${folder} is not a folder`, 'path');
    const names = readdirSync(folder).sort((a, b) => a.localeCompare(b));
    const entries: BrowseEntry[] = [];
    for (const name of names) {
      if (entries.length >= MAX_ENTRIES) break;
      try {
        // stat follows links: a link shows as what it points to; choosing it is checked again.
        const st = statSync(join(folder, name));
        if (st.isDirectory()) entries.push({ name, kind: 'folder', size: null });
        else if (st.isFile()) entries.push({ name, kind: 'file', size: st.size });
      } catch {
        // Dangling links and unreadable entries are left out.
      }
    }
    const parent = dirname(folder);
    const roots = browseRoots();
    return {
      path: folder,
      parent: !samePath(parent, folder) && roots.some((root) => isEqualOrInside(parent, root)) ? parent : null,
      roots,
      entries,
      truncated: names.length > entries.length && entries.length >= MAX_ENTRIES,
    };
  },

  'files.grant': ({ path, purpose }, engine) => {
    webOnly(engine, 'files.grant');
    const real = insideRoots(path, 'path');
    const grant = engine.paths.grant(real, purpose, 'path');
    return { path: grant.path, kind: grant.kind };
  },
};
