/**
 * Paths of files that a separate program reads (ffmpeg decoding a demo clip, onnxruntime's
 * library, a model file), in every layout the code runs from: the source tree, the
 * electron-vite or CLI bundle, and a packaged app.
 *
 * A packaged app keeps its code in `resources/app.asar`, an archive that only Electron's
 * patched `fs` can read; electron-builder.yml's `asarUnpack` puts a real copy of the
 * resources and native packages in `resources/app.asar.unpacked` beside it. A path inside
 * the archive looks valid to this process (Electron answers `existsSync` for it) yet names
 * nothing on disk, so ffmpeg or the OS loader handed it fails. Every such path goes through
 * `unpackedPath`, and resources are looked up through `resourceDir`, which only returns
 * folders that exist on disk as they are named.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ASAR_SEGMENT = /([\\/])app\.asar([\\/]|$)/;

/** The copy of `path` outside the archive: `…/app.asar/x` → `…/app.asar.unpacked/x`; other paths unchanged. */
export function unpackedPath(path: string): string {
  return path.replace(ASAR_SEGMENT, '$1app.asar.unpacked$2');
}

/** True when `path` names something inside a packaged app's archive (not its unpacked copy). */
export function insideArchive(path: string): boolean {
  return ASAR_SEGMENT.test(path);
}

/** Where to look; tests pass a packaged layout, the product uses the defaults. */
export interface ResourceLookup {
  env?: NodeJS.ProcessEnv;
  /** Electron's `process.resourcesPath` (the folder holding app.asar); absent outside Electron. */
  resourcesPath?: string;
  /** The folder of the running code (this module's, or a bundle chunk's). */
  here?: string;
  cwd?: string;
}

// Electron sets process.resourcesPath in its processes; Node's typings do not have it.
function electronResourcesPath(): string | undefined {
  return (process as NodeJS.Process & { resourcesPath?: string }).resourcesPath;
}

/**
 * The folders that may hold `resources/<name>`, in order: `EQUIVOX_RESOURCES`, the packaged
 * app's resources folder (its unpacked copy of the app's `resources/`, then `<name>` directly
 * for an app that ships it as extraResources), every folder above the running code (source
 * tree, bundles, and inside app.asar), then the working directory. Each is already mapped
 * out of the archive.
 */
export function resourceCandidates(name: string, lookup: ResourceLookup = {}): string[] {
  const env = lookup.env ?? process.env;
  const resourcesPath = 'resourcesPath' in lookup ? lookup.resourcesPath : electronResourcesPath();
  const out: string[] = [];
  if (env.EQUIVOX_RESOURCES) out.push(join(env.EQUIVOX_RESOURCES, name));
  if (resourcesPath) out.push(join(resourcesPath, 'app.asar.unpacked', 'resources', name), join(resourcesPath, name));
  let dir = lookup.here ?? dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 8; i += 1) {
    out.push(join(dir, 'resources', name));
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  out.push(resolve(lookup.cwd ?? process.cwd(), 'resources', name));
  return [...new Set(out.map(unpackedPath))];
}

/** The first candidate folder holding `marker` (a file every copy has), or null. */
export function findResourceDir(name: string, marker: string, lookup: ResourceLookup = {}): string | null {
  return resourceCandidates(name, lookup).find((c) => existsSync(join(c, marker))) ?? null;
}

/** `resources/<name>` outside any archive; when none is found, the last place looked (so the caller's error names a path). */
export function resourceDir(name: string, marker: string, lookup: ResourceLookup = {}): string {
  return findResourceDir(name, marker, lookup) ?? resourceCandidates(name, lookup).at(-1)!;
}
