/** File reading and error translation shared by the `stats` commands. */
import { readFileSync } from 'node:fs';
import { UserError } from '../../shared/errors';
import { StatsInputError } from '../stats/speat';

export function readBytes(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new UserError(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, 'input');
  }
}

export function readText(path: string): string {
  return readBytes(path).toString('utf8');
}

/** Run a stats function, turning its input errors into user errors (exit 1). */
export function guard<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof StatsInputError) throw new UserError(err.message, err.field);
    throw err;
  }
}
