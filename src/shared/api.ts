/**
 * The API contract: every operation the renderer, the CLI and the web host can call,
 * with its zod input schema and its result type. One implementation lives in
 * src/main/api.ts; hosts only validate and forward.
 */
import type { z } from 'zod';
import { appOperations } from './api/app';
import type { EngineEvent } from './api/common';
import { projectOperations } from './api/projects';
import { datasetOperations } from './api/datasets';
import { modelOperations } from './api/models';
import { reportOperations } from './api/reports';
import { auditOperations } from './api/audits';
import { clipOperations } from './api/clips';
import { fileOperations } from './api/files';
import { reportFileOperations, uiOperations } from './api/ui';
import { clusterOperations } from './api/cluster';

export * from './api/common';
export type { AppInfo } from './api/app';

export const operations = {
  ...appOperations,
  ...projectOperations,
  ...datasetOperations,
  ...modelOperations,
  ...reportOperations,
  ...auditOperations,
  ...clipOperations,
  ...fileOperations,
  ...uiOperations,
  ...clusterOperations,
  ...reportFileOperations,
} as const;

export type Operations = typeof operations;
export type OperationName = keyof Operations;
export type OperationInput<K extends OperationName> = z.input<Operations[K]['input']>;
export type ParsedInput<K extends OperationName> = z.output<Operations[K]['input']>;
export type OperationResult<K extends OperationName> = Operations[K]['result'];

export const operationNames = Object.keys(operations) as OperationName[];

export function isOperationName(name: unknown): name is OperationName {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(operations, name);
}

/** The typed surface every host gives the renderer as `window.equivox`. */
export interface EquivoxBridge {
  invoke<K extends OperationName>(name: K, input: OperationInput<K>): Promise<OperationResult<K>>;
  /** Subscribe to engine events; returns an unsubscribe function. */
  onEvent(listener: (event: EngineEvent) => void): () => void;
}
