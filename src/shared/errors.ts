/**
 * Errors that cross process boundaries. They carry a machine-readable code and, for
 * validation problems, the field at fault, so every host (IPC, CLI, web) can tell the
 * auditor exactly what to fix.
 */
export type ErrorCode = 'validation' | 'unknown_operation' | 'not_found' | 'user' | 'cancelled' | 'internal';

export interface ApiErrorShape {
  code: ErrorCode;
  message: string;
  /** Dotted path of the offending input field, when there is one. */
  field?: string;
}

export class ApiError extends Error implements ApiErrorShape {
  readonly code: ErrorCode;
  readonly field?: string;
  constructor(code: ErrorCode, message: string, field?: string) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    if (field !== undefined) this.field = field;
  }
  toJSON(): ApiErrorShape {
    return this.field === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, field: this.field };
  }
}

/** A problem the user can fix (bad file, missing column, wrong project): exit code 1 in the CLI. */
export class UserError extends ApiError {
  constructor(message: string, field?: string) {
    super('user', message, field);
    this.name = 'UserError';
  }
}

export class NotFoundError extends ApiError {
  constructor(message: string, field?: string) {
    super('not_found', message, field);
    this.name = 'NotFoundError';
  }
}

export class CancelledError extends ApiError {
  constructor(message = 'Cancelled') {
    super('cancelled', message);
    this.name = 'CancelledError';
  }
}

export function isApiErrorShape(value: unknown): value is ApiErrorShape {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { code?: unknown }).code === 'string' &&
    typeof (value as { message?: unknown }).message === 'string'
  );
}
