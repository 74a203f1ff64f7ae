import { dirname } from 'node:path';
import type { AppInfo } from '../shared/api';
import type { PickPurpose } from '../shared/api/files';
import { demoDir } from './audits/demo-plan';
import { EventHub } from './events';
import { JobRunner } from './jobs/runner';
import { defaultDataDir } from './store/data-dir';
import { ProjectStore } from './store/projects';
import { removeStaleTemps } from './atomic-write';
import { PathGuard, type PathPolicy } from './security/path-policy';

/** A native file dialog (Electron's main process); resolves to the chosen path or null when cancelled. */
export type FilePicker = (purpose: PickPurpose) => Promise<string | null>;

/** The desktop's own programs (Electron's shell): open a file, show it in its folder. */
export interface DesktopShell {
  /** Resolves to '' on success, else the desktop's error message. */
  openPath(path: string): Promise<string>;
  showItemInFolder(path: string): void;
}

/** Everything the API implementation needs, created once per host process. */
export interface Engine {
  readonly host: AppInfo['host'];
  readonly dataDir: string;
  readonly store: ProjectStore;
  readonly jobs: JobRunner;
  readonly events: EventHub;
  /** Which paths callers may name (src/main/security/path-policy.ts) and the user's grants. */
  readonly paths: PathGuard;
  /** The host's native file dialog, when it has one (Electron). */
  readonly picker?: FilePicker;
  /** The desktop's programs for opening files, when the host has them (Electron). */
  readonly shell?: DesktopShell;
  close(): Promise<void>;
}

export function createEngine(options: {
  host: AppInfo['host'];
  dataDir?: string;
  /** 'any' (default, the CLI: its user types paths in their own shell) or 'granted' (Electron and web hosts). */
  pathPolicy?: PathPolicy;
  picker?: FilePicker;
  shell?: DesktopShell;
}): Engine {
  const dataDir = options.dataDir ?? defaultDataDir();
  const events = new EventHub();
  const store = new ProjectStore(dataDir);
  // Hidden copies that killed writes left in the data folder (identities, trusted certificates).
  removeStaleTemps(dataDir, 3);
  const jobs = new JobRunner(events.emit);
  const paths = new PathGuard(options.pathPolicy ?? 'any', {
    readRoots: () => [dirname(demoDir())],
    projectRoots: () => store.list().map((p) => p.path),
    isProjectId: (value) => store.list().some((p) => p.id === value),
    dataDir,
  });
  return {
    host: options.host,
    dataDir,
    store,
    jobs,
    events,
    paths,
    ...(options.picker ? { picker: options.picker } : {}),
    ...(options.shell ? { shell: options.shell } : {}),
    async close() {
      await jobs.shutdown();
      store.close();
    },
  };
}
