import { ApiError, type ApiErrorShape } from '../shared/errors';

/** Serialise any thrown value for a host's wire format, hiding internals of unexpected errors. */
export function toErrorShape(err: unknown): ApiErrorShape {
  if (err instanceof ApiError) return err.toJSON();
  const e = err as { code?: unknown; message?: unknown };
  if (e && typeof e.code === 'string' && ['validation', 'unknown_operation', 'not_found', 'user', 'cancelled'].includes(e.code)) {
    return { code: e.code as ApiErrorShape['code'], message: String(e.message) };
  }
  return { code: 'internal', message: err instanceof Error ? err.message : String(err) };
}
