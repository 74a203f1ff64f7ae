// The engine's parts as the layers below the API see them: each receives only what it uses,
// so audits, report and handlers need not import engine.ts (which composes them).
import type { AppInfo } from '../shared/api';
import type { PickPurpose } from '../shared/api/files';
import type { JobRunner } from './jobs/runner';
import type { PathGuard } from './security/path-policy';
import type { ProjectStore } from './store/projects';

/** A native file dialog (Electron's main process); resolves to the chosen path or null when cancelled. */
export type FilePicker = (purpose: PickPurpose) => Promise<string | null>;

/** The desktop's own programs (Electron's shell): open a file, show it in its folder. */
export interface DesktopShell {
  /** Resolves to '' on success, else the desktop's error message. */
  openPath(path: string): Promise<string>;
  showItemInFolder(path: string): void;
}

/** The registered projects' databases and the data folder (identities, caches). */
export interface ProjectServices {
  readonly dataDir: string;
  readonly store: ProjectStore;
}

/** The projects and the job runner, for work that runs as a job (a report's rendering). */
export interface JobServices extends ProjectServices {
  readonly jobs: JobRunner;
}

/** What an API handler is given: the engine without its event hub and its lifetime, which belong to the host. */
export interface HandlerServices extends JobServices {
  readonly host: AppInfo['host'];
  /** Which paths callers may name (src/main/security/path-policy.ts) and the user's grants. */
  readonly paths: PathGuard;
  /** The host's native file dialog, when it has one (Electron). */
  readonly picker?: FilePicker;
  /** The desktop's programs for opening files, when the host has them (Electron). */
  readonly shell?: DesktopShell;
}
