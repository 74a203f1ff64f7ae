/** `--project` takes a project folder or a project id: which one this is. */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { checkInputFolder, inputExists } from '../security/input-file';
import { PROJECT_FILE } from '../store/projects';

/**
 * A folder holding a project, or an id. Something at the path that is not a folder (a
 * file, a FIFO, a device, a dangling link) is refused with what it is, rather than being
 * looked up as an id.
 */
export function projectRef(ref: string): { dir: string } | { id: string } {
  const dir = resolve(ref);
  if (existsSync(join(dir, PROJECT_FILE))) return { dir };
  if (inputExists(dir)) checkInputFolder(dir, 'project', 'project folder');
  return { id: ref };
}
