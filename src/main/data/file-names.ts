/**
 * File names as they arrive from other machines (issue 35.6). macOS writes names in
 * decomposed Unicode (NFD: "Zoë" as "Zoe" + U+0308) and its disks find a file by either
 * form; Linux and Windows disks keep the bytes they were given and find only that form.
 * So a manifest typed on Windows (NFC) names a file copied from a Mac (NFD) that Linux
 * cannot open by that name, and the reverse. Names are therefore compared in NFC: a path
 * that does not exist as written is looked up component by component among the folder's
 * entries in NFC.
 *
 * Folders also carry what operating systems leave in them, which is never a recording:
 * Windows' Thumbs.db, ehthumbs.db and desktop.ini, macOS's .DS_Store, "._" AppleDouble
 * files (resource forks on non-Mac disks and in zips), "Icon\r" and .localized, and the
 * folders __MACOSX (a zip made on a Mac), $RECYCLE.BIN, System Volume Information,
 * .Spotlight-V100, .Trashes, .fseventsd and .TemporaryItems. Any other name that starts
 * with a dot is a hidden file and is left out too, as before; the folder import counts
 * what it left out and says so.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

const LITTER_FILES = new Set(['thumbs.db', 'ehthumbs.db', 'ehthumbs_vista.db', 'desktop.ini', '.ds_store', 'icon\r', '.localized']);
const LITTER_FOLDERS = new Set(['__macosx', '$recycle.bin', 'system volume information', '.spotlight-v100', '.trashes', '.fseventsd', '.temporaryitems', '.appledouble']);

/** Whether a folder entry is something an operating system left there, or a hidden file (never a recording). */
export function isOsLitter(name: string, isFolder: boolean): boolean {
  const lower = name.toLowerCase();
  if (name.startsWith('.')) return true; // .DS_Store, ._AppleDouble files, other hidden files and folders
  return isFolder ? LITTER_FOLDERS.has(lower) : LITTER_FILES.has(lower);
}

/** Per folder (and its modification time): its entries by their NFC name. */
const entriesByNfc = new Map<string, { mtimeMs: number; names: Map<string, string[]> }>();

function nfcEntries(dir: string): Map<string, string[]> {
  const st = statSync(dir, { throwIfNoEntry: false });
  if (!st?.isDirectory()) return new Map();
  const cached = entriesByNfc.get(dir);
  if (cached && cached.mtimeMs === st.mtimeMs) return cached.names;
  const names = new Map<string, string[]>();
  try {
    for (const name of readdirSync(dir)) {
      const key = name.normalize('NFC');
      const list = names.get(key);
      if (list) list.push(name);
      else names.set(key, [name]);
    }
  } catch {
    // unreadable: nothing to offer
  }
  if (entriesByNfc.size > 256) entriesByNfc.clear();
  entriesByNfc.set(dir, { mtimeMs: st.mtimeMs, names });
  return names;
}

/**
 * The path on disk of `abs` when its names are written in another Unicode form than the
 * disk's (NFC for NFD, or the reverse): `abs` itself when it exists; else the one entry
 * of each folder whose name is the same in NFC; null when there is none, or more than one
 * (two files whose names differ only in their form, neither written as asked).
 */
export function findByNormalisedName(abs: string): string | null {
  if (existsSync(abs)) return abs;
  const parent = dirname(abs);
  if (parent === abs) return null;
  const onDisk = findByNormalisedName(parent);
  if (onDisk === null) return null;
  const matches = nfcEntries(onDisk).get(basename(abs).normalize('NFC'));
  return matches?.length === 1 ? join(onDisk, matches[0]!) : null;
}
