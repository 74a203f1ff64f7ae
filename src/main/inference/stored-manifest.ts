/**
 * A stored model's manifest names its files by absolute path, in the folder the model was
 * imported into (dataDir/models/<id>/…). A data folder copied to another place (the one
 * data folder taking over an earlier default place, store/data-migration.ts; an
 * EQUIVOX_HOME moved by hand) keeps those old paths: the store reads every stored
 * manifest through `locatedIn`, which puts each file back under the folder the manifest
 * is in now. Paths outside a folder named after the model are left as they are.
 */
import path from 'node:path';
import type { ModelManifest } from './manifest';

/** `file` as it lies under `dir`, found by the last segment of its recorded path that is `dir`'s name (either slash). */
export function rebaseInto(file: string, dir: string): string {
  const parts = file.split(/[\\/]+/);
  const at = parts.lastIndexOf(path.basename(dir));
  if (at < 0 || at === parts.length - 1) return file;
  return path.join(dir, ...parts.slice(at + 1));
}

/** The manifest with its files under `dir`, the model's folder in the store now. */
export function locatedIn(m: ModelManifest, dir: string): ModelManifest {
  if (!Array.isArray(m.files)) return m;
  return { ...m, files: m.files.map((f) => ({ ...f, path: rebaseInto(f.path, dir) })) };
}
