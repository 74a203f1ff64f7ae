/**
 * The one place that decides whether two paths name the same file or folder, or one lies
 * inside the other (issue 35.5; the idea of vscode's extpath.ts `isEqualOrParent(…,
 * ignoreCase)` and its `extUri` comparison keys). Nothing else compares path strings.
 *
 * - NFC everywhere: macOS writes names decomposed (NFD) and finds a file by either form,
 *   so "Zoë" typed on Windows and "Zoë" from a Mac's disk are one name.
 * - Letter case folded on Windows and macOS (their disks ignore case), and elsewhere on a
 *   volume found to ignore it (an ext4 folder with casefold, exFAT or FAT from a USB stick,
 *   a Samba share): `C:\Data\Proj` and `c:\data\proj` are one folder there. Found by
 *   probing a folder of the path: its name with the case of its letters flipped is looked
 *   up, and names the same file (device and inode, or a name the folder does not list)
 *   only where the volume ignores case.
 * - Windows paths with `path.win32`: drive letters, `\\?\C:\…` and `\\?\UNC\server\share`
 *   (the long-path forms) as their plain forms, UNC shares, either slash.
 *
 * Case is folded one code point at a time with simple (one-to-one) mappings, as NTFS's
 * upcase table and APFS do: "Straße" is not "STRASSE" on either.
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

export interface PathStyle {
  /** Whose path rules apply (tests pass 'win32' on Linux); the running platform by default. */
  platform?: NodeJS.Platform;
  /**
   * Whether letter case is ignored: true on win32 and darwin; elsewhere decided by probing
   * the path's folders ('probe', the default), or fixed by the caller.
   */
  caseInsensitive?: boolean | 'probe';
}

function pathApi(platform: NodeJS.Platform): path.PlatformPath {
  return platform === 'win32' ? path.win32 : path.posix;
}

/** Windows' long-path and device prefixes written as the plain path they name. */
function withoutWin32Prefix(p: string): string {
  const m = /^[\\/]{2}[?.][\\/](.*)$/s.exec(p);
  if (!m) return p;
  const rest = m[1]!;
  const unc = /^UNC[\\/](.*)$/is.exec(rest);
  return unc ? `\\\\${unc[1]!}` : rest;
}

/** An absolute, normalised path in NFC without a trailing separator (roots keep theirs). */
function normalised(p: string, platform: NodeJS.Platform): string {
  const api = pathApi(platform);
  let s = p.normalize('NFC');
  if (platform === 'win32') s = withoutWin32Prefix(s);
  s = api.resolve(s);
  const root = api.parse(s).root;
  while (s.length > root.length && (s.endsWith(api.sep) || (platform === 'win32' && s.endsWith('/')))) s = s.slice(0, -1);
  return s;
}

/** Simple case folding: each code point to its lower case where that is one code point. */
export function foldCase(s: string): string {
  let out = '';
  for (const ch of s) {
    const lower = ch.toLowerCase();
    out += [...lower].length === 1 ? lower : ch;
  }
  return out;
}

/** `name` with the case of every letter flipped ("Data" → "dATA"); equal to `name` when it has no cased letter. */
function flipCase(name: string): string {
  let out = '';
  for (const ch of name) {
    const lower = ch.toLowerCase();
    const upper = ch.toUpperCase();
    out += ch === lower && [...upper].length === 1 ? upper : ch === upper && [...lower].length === 1 ? lower : ch;
  }
  return out;
}

/** Whether `dir` has an entry spelt exactly `name` (false when it cannot be read). */
function listsName(dir: string, name: string): boolean {
  try {
    return readdirSync(dir).includes(name);
  } catch {
    return false;
  }
}

/** Per folder probed: whether it finds names whatever their case. */
const probed = new Map<string, boolean>();

/**
 * Whether the folders of `p` (an absolute path on this computer) ignore letter case: the
 * deepest existing part of it whose name has a letter is looked up with the case flipped.
 * False when nothing can be probed (no such part exists, or only "/" does).
 */
export function volumeIgnoresCase(p: string): boolean {
  let cur = path.resolve(p);
  for (;;) {
    const parent = path.dirname(cur);
    if (parent === cur) return false;
    const name = path.basename(cur);
    const flipped = flipCase(name);
    if (flipped !== name) {
      const st = statSync(cur, { bigint: true, throwIfNoEntry: false });
      if (st) {
        const cached = probed.get(parent);
        if (cached !== undefined) return cached;
        const other = statSync(path.join(parent, flipped), { bigint: true, throwIfNoEntry: false });
        // Same device and inode: one file. Some file systems give each spelling looked up its own
        // inode number (exFAT through FUSE): then the flipped name is one file only when the
        // folder does not list it as an entry of its own.
        const ignores = other !== undefined && other.dev === st.dev && (other.ino === st.ino || !listsName(parent, flipped));
        if (probed.size > 1024) probed.clear();
        probed.set(parent, ignores);
        return ignores;
      }
    }
    cur = parent;
  }
}

/** Forget what probing found (tests that mount and unmount volumes). */
export function forgetProbedVolumes(): void {
  probed.clear();
}

function ignoresCase(p: string, style: PathStyle, platform: NodeJS.Platform): boolean {
  const rule = style.caseInsensitive ?? 'probe';
  if (rule !== 'probe') return rule;
  if (platform === 'win32' || platform === 'darwin') return true;
  // Only this computer's own paths can be probed.
  return platform === process.platform && volumeIgnoresCase(p);
}

/**
 * The comparison key of a path: two paths name the same place exactly when their keys are
 * equal (use it for maps and sets of folders). Symlinks are not resolved here: callers
 * that must see through them resolve first.
 */
export function pathKey(p: string, style: PathStyle = {}): string {
  const platform = style.platform ?? process.platform;
  const n = normalised(p, platform);
  return ignoresCase(n, style, platform) ? foldCase(n) : n;
}

/** Whether `a` and `b` name the same place. */
export function samePath(a: string, b: string, style: PathStyle = {}): boolean {
  const platform = style.platform ?? process.platform;
  const na = normalised(a, platform);
  const nb = normalised(b, platform);
  if (na === nb) return true;
  // Probe the disk only when case is all that differs.
  return foldCase(na) === foldCase(nb) && ignoresCase(na, style, platform);
}

/** Whether `child` is `parent` or lies inside it (no `..` escapes: both are resolved first). */
export function isEqualOrInside(child: string, parent: string, style: PathStyle = {}): boolean {
  const platform = style.platform ?? process.platform;
  const api = pathApi(platform);
  const c = normalised(child, platform);
  const p = normalised(parent, platform);
  const within = (x: string, y: string) => x === y || x.startsWith(y.endsWith(api.sep) ? y : y + api.sep);
  if (within(c, p)) return true;
  return within(foldCase(c), foldCase(p)) && ignoresCase(p, style, platform);
}

/** The part of `child` below `parent` as `path.relative` gives it, or null when `child` is not inside `parent`. */
export function relativeInside(parent: string, child: string, style: PathStyle = {}): string | null {
  if (!isEqualOrInside(child, parent, style)) return null;
  const platform = style.platform ?? process.platform;
  const c = normalised(child, platform);
  const p = normalised(parent, platform);
  const rootLength = p.endsWith(pathApi(platform).sep) ? p.length : p.length + 1;
  return c.length <= p.length ? '' : c.slice(rootLength);
}
