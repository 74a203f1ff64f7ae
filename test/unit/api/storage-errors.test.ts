/**
 * Storage failures reach every host as `user` errors in words (issue 23.6), from real
 * errors: ENOSPC from writing to /dev/full, SQLITE_BUSY from a second connection while
 * another holds the write lock. The folder and the need are named when the step knows
 * them; with no context, the message still says what to do.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { bytesText, freeBytes, storageError, storageProblem, toErrorShape } from '../../../src/main/error-shape';
import { openDatabase } from '../../../src/main/store/open';

function caught(f: () => unknown): unknown {
  try {
    f();
  } catch (err) {
    return err;
  }
  throw new Error('expected an error');
}

describe('storage errors', () => {
  it('ENOSPC is a user error naming the folder, its free space and the estimated need', () => {
    const enospc = caught(() => writeFileSync('/dev/full', 'x'));
    expect(storageProblem(enospc)).toBe('full');
    const e = storageError(enospc, { folder: '/dev', step: 'writing the report', needBytes: 2_500_000, estimate: 'an estimate: the PDF and its files' })!;
    expect(e.code).toBe('user');
    expect(e.message).toBe(
      `The disk holding /dev is full (${bytesText(freeBytes('/dev')!)} free): writing the report needs about 2.5 MB more (an estimate: the PDF and its files). Free some space on that disk, then run it again: nothing already saved was lost, and finished work is not redone.`,
    );
    // With no step around it (and no path on the error: write() failed, not open()), the host still says what to do.
    expect(toErrorShape(enospc)).toEqual({
      code: 'user',
      message: 'Equivox could not save to disk (the disk is full). Free some space or check the disk holding your project and the Equivox data folder, then try again: nothing already saved was lost.',
    });
    // One that names its file names its folder.
    expect(toErrorShape(Object.assign(new Error('ENOSPC: no space left on device, open'), { code: 'ENOSPC', path: '/dev/full' }))).toMatchObject({ code: 'user', message: expect.stringMatching(/^The disk holding \/dev is full/) });
  });

  it('SQLITE_BUSY after the wait is a user error, and BEGIN IMMEDIATE transactions wait for the lock', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'equivox-busy-')), 'x.sqlite');
    const a = openDatabase(file, [{ version: 1, name: 't', sql: 'CREATE TABLE t (x INTEGER)' }]);
    const b = new Database(file, { timeout: 0 });
    a.exec('BEGIN IMMEDIATE');
    a.prepare('INSERT INTO t VALUES (1)').run();
    const busy = caught(() => b.prepare('INSERT INTO t VALUES (2)').run());
    expect((busy as { code: string }).code).toBe('SQLITE_BUSY');
    expect(toErrorShape(busy)).toEqual({ code: 'user', message: expect.stringMatching(/^A project database is busy: another Equivox window or command kept it locked/) });
    a.exec('COMMIT');
    // A transaction of an Equivox connection starts IMMEDIATE: it holds the lock from its first statement.
    a.transaction(() => {
      expect((caught(() => b.prepare('INSERT INTO t VALUES (3)').run()) as { code: string }).code).toBe('SQLITE_BUSY');
      a.prepare('SELECT COUNT(*) FROM t').get();
    })();
    b.close();
    a.close();
  });

  it('leaves other errors internal', () => {
    expect(storageProblem(new Error('boom'))).toBeNull();
    expect(toErrorShape(new TypeError('x is undefined'))).toEqual({ code: 'internal', message: 'x is undefined' });
  });
});
