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
  /**
   * The same call may well succeed once the user has done what the message says (closed the
   * program holding a file): the UI offers "Try again" beside the message.
   */
  retry?: true;
}

export class ApiError extends Error implements ApiErrorShape {
  readonly code: ErrorCode;
  readonly field?: string;
  readonly retry?: true;
  constructor(code: ErrorCode, message: string, field?: string, options: { retry?: boolean | undefined } = {}) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    if (field !== undefined) this.field = field;
    if (options.retry) this.retry = true;
  }
  toJSON(): ApiErrorShape {
    return {
      code: this.code,
      message: this.message,
      ...(this.field !== undefined ? { field: this.field } : {}),
      ...(this.retry ? { retry: true as const } : {}),
    };
  }
}

/** A problem the user can fix (bad file, missing column, wrong project): exit code 1 in the CLI. */
export class UserError extends ApiError {
  constructor(message: string, field?: string, options: { retry?: boolean | undefined } = {}) {
    super('user', message, field, options);
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
