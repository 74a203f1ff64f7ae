/** File reading and error translation shared by the `stats` commands. */
import { UserError } from '../../shared/errors';
import { readInputFileSync, type InputKind } from '../security/input-file';
import { StatsInputError } from '../stats/speat';
import { decodeSpreadsheetBytes, EncodingProblem } from '../data/text-encoding';

/**
 * The file named by --input, whole. A FIFO, a device, a folder or a file over the kind's
 * size is refused before a byte is read (security/input-file.ts); a sync read is fine
 * here, in a command-line process that does nothing else meanwhile.
 */
export function readBytes(path: string, kind: InputKind): Buffer {
  return readInputFileSync(path, kind, 'input');
}

/** A table file's text in the encoding a spreadsheet saved it in (UTF-8, UTF-16 with a BOM, Windows-1252: data/text-encoding.ts). */
export function readSpreadsheet(path: string, kind: InputKind): string {
  try {
    return decodeSpreadsheetBytes(readBytes(path, kind)).text;
  } catch (err) {
    if (err instanceof EncodingProblem) throw new UserError(`${path}: ${err.message}`, 'input');
    throw err;
  }
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
