import type { AppInfo } from '../shared/api';
import { EventHub } from './events';
import { JobRunner } from './jobs/runner';
import { defaultDataDir } from './store/data-dir';
import { ProjectStore } from './store/projects';

/** Everything the API implementation needs, created once per host process. */
export interface Engine {
  readonly host: AppInfo['host'];
  readonly dataDir: string;
  readonly store: ProjectStore;
  readonly jobs: JobRunner;
  readonly events: EventHub;
  close(): Promise<void>;
}

export function createEngine(options: { host: AppInfo['host']; dataDir?: string }): Engine {
  const dataDir = options.dataDir ?? defaultDataDir();
  const events = new EventHub();
  const store = new ProjectStore(dataDir);
  const jobs = new JobRunner(events.emit);
  return {
    host: options.host,
    dataDir,
    store,
    jobs,
    events,
    async close() {
      await jobs.shutdown();
      store.close();
    },
  };
}
