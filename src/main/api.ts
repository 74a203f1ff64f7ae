/**
 * The one implementation of the API contract (src/shared/api.ts). Hosts (IPC, CLI,
 * web) call `invoke` with untrusted input; it validates with the operation's zod
 * schema before any handler runs, so malformed input never writes anything.
 */
import { operations, type OperationName, type OperationResult } from '../shared/api';
import type { PathFieldSpec } from '../shared/api/files';
import { resolve } from 'node:path';
import { validateCall } from '../shared/validate';
import { storageError } from './error-shape';
import type { Engine } from './engine';
import { appHandlers } from './handlers/app';
import { projectHandlers } from './handlers/projects';
import { datasetHandlers } from './handlers/datasets';
import { modelHandlers } from './handlers/models';
import { reportHandlers } from './handlers/reports';
import { auditHandlers } from './handlers/audits';
import { clipHandlers } from './handlers/clips';
import { fileHandlers } from './handlers/files';
import { uiHandlers } from './handlers/ui';
import { clusterHandlers } from './handlers/cluster';
import type { Handler } from './handlers/types';

export const handlers: { [K in OperationName]: Handler<K> } = {
  ...appHandlers,
  ...projectHandlers,
  ...datasetHandlers,
  ...modelHandlers,
  ...reportHandlers,
  ...auditHandlers,
  ...clipHandlers,
  ...fileHandlers,
  ...uiHandlers,
  ...clusterHandlers,
};

export interface Api {
  /** The engine behind the API, for hosts that run long work inline (the CLI). */
  readonly engine: Engine;
  invoke<K extends OperationName>(name: K | string, input: unknown): Promise<OperationResult<K>>;
}

export function createApi(engine: Engine): Api {
  return {
    engine,
    async invoke<K extends OperationName>(name: K | string, rawInput: unknown): Promise<OperationResult<K>> {
      const { name: op, input } = validateCall<K>(name, rawInput);
      // Path fields only through grants (src/main/security/path-policy.ts); a no-op for the CLI.
      engine.paths.checkInput((operations[op] as { paths?: readonly PathFieldSpec[] }).paths, input);
      const handler = handlers[op] as Handler<K>;
      try {
        return await handler(input, engine);
      } catch (err) {
        // A full disk or a locked database is the auditor's to fix: say which folder and how much room.
        throw storageError(err, { folder: writtenFolder(engine, op, input), step: `“${operations[op].summary}”` }) ?? err;
      }
    },
  };
}

/** The folder an operation most likely wrote to: its project's, else the data folder. */
function writtenFolder(engine: Engine, op: string, input: unknown): string {
  const i = (input ?? {}) as { projectId?: unknown; project?: unknown; path?: unknown; dir?: unknown; id?: unknown };
  // projects.open and projects.create name the project folder itself.
  if (op.startsWith('projects.') && typeof (i.path ?? i.dir) === 'string') return resolve(String(i.path ?? i.dir));
  const ref = typeof i.projectId === 'string' ? i.projectId : typeof i.project === 'string' ? i.project : op.startsWith('projects.') && typeof i.id === 'string' ? i.id : null;
  if (ref === null) return engine.dataDir;
  try {
    const registered = engine.store.list().find((p) => p.id === ref);
    if (registered) return registered.path;
  } catch {
    // The registry itself cannot be read: name the data folder.
    return engine.dataDir;
  }
  // `project` may be a folder (reports.build); a projectId that is not registered names nothing.
  return typeof i.project === 'string' ? resolve(i.project) : engine.dataDir;
}

export { toErrorShape } from './error-shape';
