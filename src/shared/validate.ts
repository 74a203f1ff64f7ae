import type { z } from 'zod';
import { ApiError } from './errors';
import { isOperationName, operations, type OperationName, type ParsedInput } from './api';

/** Dotted path of a zod issue, "input" for the root. */
function fieldOf(path: readonly PropertyKey[]): string {
  return path.length === 0 ? 'input' : path.map(String).join('.');
}

export function zodToApiError(error: z.ZodError): ApiError {
  const first = error.issues[0];
  if (!first) return new ApiError('validation', 'invalid input');
  const field = fieldOf(first.path);
  let message = first.message;
  if (first.code === 'unrecognized_keys') {
    const keys = (first as { keys?: string[] }).keys ?? [];
    return new ApiError('validation', `unknown field ${keys.join(', ')}`, keys[0] ?? field);
  }
  if (first.code === 'invalid_type' && /received undefined/.test(message)) message = 'is required';
  return new ApiError('validation', `${field}: ${message}`, field);
}

/** Validate an untrusted call; throws ApiError('validation' | 'unknown_operation'). */
export function validateCall<K extends OperationName>(name: unknown, input: unknown): { name: K; input: ParsedInput<K> } {
  if (!isOperationName(name)) {
    throw new ApiError('unknown_operation', `unknown operation ${JSON.stringify(String(name)).slice(0, 80)}`, 'operation');
  }
  const schema = operations[name].input as z.ZodType;
  const parsed = schema.safeParse(input ?? {});
  if (!parsed.success) throw zodToApiError(parsed.error);
  return { name: name as K, input: parsed.data as ParsedInput<K> };
}
