/**
 * The one implementation of the API contract (src/shared/api.ts). Hosts (IPC, CLI,
 * web) call `invoke` with untrusted input; it validates with the operation's zod
 * schema before any handler runs, so malformed input never writes anything.
 */
import type { OperationName, OperationResult } from '../shared/api';
import { ApiError, type ApiErrorShape } from '../shared/errors';
import { validateCall } from '../shared/validate';
import type { Engine } from './engine';
import { appHandlers } from './handlers/app';
import { projectHandlers } from './handlers/projects';
import { datasetHandlers } from './handlers/datasets';
import { modelHandlers } from './handlers/models';
import { reportHandlers } from './handlers/reports';
import { auditHandlers } from './handlers/audits';
import { clipHandlers } from './handlers/clips';
import type { Handler } from './handlers/types';

export const handlers: { [K in OperationName]: Handler<K> } = {
  ...appHandlers,
  ...projectHandlers,
  ...datasetHandlers,
  ...modelHandlers,
  ...reportHandlers,
  ...auditHandlers,
  ...clipHandlers,
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
      const handler = handlers[op] as Handler<K>;
      return await handler(input, engine);
    },
  };
}

/** Serialise any thrown value for a host's wire format, hiding internals of unexpected errors. */
export function toErrorShape(err: unknown): ApiErrorShape {
  if (err instanceof ApiError) return err.toJSON();
  const e = err as { code?: unknown; message?: unknown };
  if (e && typeof e.code === 'string' && ['validation', 'unknown_operation', 'not_found', 'user', 'cancelled'].includes(e.code)) {
    return { code: e.code as ApiErrorShape['code'], message: String(e.message) };
  }
  return { code: 'internal', message: err instanceof Error ? err.message : String(err) };
}
