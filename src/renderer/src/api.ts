import type { EquivoxBridge, OperationInput, OperationName, OperationResult } from '../../shared/api';

declare global {
  interface Window {
    equivox?: EquivoxBridge;
  }
}

export interface UiError {
  code: string;
  message: string;
  field?: string;
  /** The same action may succeed once the user did what the message says (closed a program holding a file). */
  retry?: boolean;
}

export function bridge(): EquivoxBridge {
  if (!window.equivox) throw new Error('The Equivox engine is not connected.');
  return window.equivox;
}

export function call<K extends OperationName>(name: K, input: OperationInput<K>): Promise<OperationResult<K>> {
  return bridge().invoke(name, input);
}

export function asUiError(err: unknown): UiError {
  const e = err as Partial<UiError> & { message?: string };
  return { code: e.code ?? 'internal', message: e.message ?? String(err), ...(e.field ? { field: e.field } : {}), ...(e.retry === true ? { retry: true } : {}) };
}
