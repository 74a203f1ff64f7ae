import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { AppInfo } from '../shared/api';
import { demoDir } from './audits/demo-plan';
import type { DesktopShell, FilePicker, HandlerServices } from './engine-services';
import { EventHub } from './events';
import { jobLimits } from './jobs/limits';
import { JobRunner } from './jobs/runner';
import { defaultDataDir } from './store/data-dir';
import { migrateAtStart } from './store/data-migration';
import { earlierDataDirs, isDefaultDataDir } from './paths/data-folders';
import { ProjectStore } from './store/projects';
import { removeStaleTemps } from './atomic-write';
import { PathGuard, type PathPolicy } from './security/path-policy';
import { emptyDir } from './security/empty-dir';

export type { DesktopShell, FilePicker } from './engine-services';

/** Everything the API implementation needs, created once per host process. */
export interface Engine extends HandlerServices {
  readonly events: EventHub;
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
  // Once, into the default data folder only: what earlier versions kept elsewhere (issue 35 item 4).
  migrateAtStart(dataDir);
  const events = new EventHub();
  const store = new ProjectStore(dataDir);
  // Hidden copies that killed writes left in the data folder (identities, trusted certificates).
  removeStaleTemps(dataDir, 3);
  const jobs = new JobRunner(events.emit);
  jobs.limits = jobLimits();
  // Job processes (the ones that run models) start in an empty folder of the data folder's.
  jobs.processCwd = () => emptyDir(dataDir);
  const earlier = isDefaultDataDir(dataDir) ? earlierDataDirs() : [];
  const paths = new PathGuard(options.pathPolicy ?? 'any', {
    readRoots: () => [dirname(demoDir())],
    projectRoots: () => store.list().map((p) => p.path),
    isProjectId: (value) => store.list().some((p) => p.id === value),
    dataDir,
    // The folders the migration copied keys from, where they were this user's default (EQUIVOX_HOME or a test's folder: none).
    earlierDataDirs: () => earlier.filter((d) => existsSync(d)),
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
