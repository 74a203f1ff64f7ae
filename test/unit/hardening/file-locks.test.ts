/**
 * Files another program holds (issue 35.3), with node:fs stubbed to refuse as Windows does
 * (EPERM, EBUSY, EACCES on rename, open and delete): short locks are waited out, lasting
 * ones are user errors naming the file and the program that may hold it, with `retry` set
 * for the UI's "Try again"; nothing is left half changed. The platform is mocked as win32
 * only around the calls that ask which platform they are on.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type * as NodeFs from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

/** Hooks the stubbed node:fs calls before doing the real thing; a hook throws to refuse. */
const hooks = vi.hoisted(() => ({
  rename: null as null | ((from: string, to: string) => void),
  open: null as null | ((path: string, flags: unknown) => void),
  rm: null as null | ((path: string) => void),
}));

vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof NodeFs>();
  const stubbed = {
    ...actual,
    renameSync: (from: string, to: string) => {
      hooks.rename?.(from, to);
      return actual.renameSync(from, to);
    },
    openSync: (path: string, flags?: unknown, mode?: unknown) => {
      hooks.open?.(path, flags);
      return (actual.openSync as (...a: unknown[]) => number)(path, flags, mode);
    },
    rmSync: (path: string, options?: Parameters<typeof actual.rmSync>[1]) => {
      hooks.rm?.(path);
      return actual.rmSync(path, options);
    },
  };
  return { ...stubbed, default: stubbed };
});

const { writeFileAtomic, replaceDir, tempSibling } = await import('../../../src/main/atomic-write');
const { toErrorShape } = await import('../../../src/main/error-shape');
const { assertReplaceable, retryWhileLocked } = await import('../../../src/main/file-locks');
const { ProjectStore } = await import('../../../src/main/store/projects');
const { projectHandlers } = await import('../../../src/main/handlers/projects');
const { UserError } = await import('../../../src/shared/errors');

/** An fs error as Node makes it. */
function fsError(code: string, syscall: string, path: string, dest?: string): NodeJS.ErrnoException {
  const err = new Error(`${code}: operation not permitted, ${syscall} '${path}'${dest ? ` -> '${dest}'` : ''}`) as NodeJS.ErrnoException;
  err.code = code;
  err.syscall = syscall;
  err.path = path;
  if (dest) (err as { dest?: string }).dest = dest;
  return err;
}

/** Run `fn` with process.platform reading `platform`. */
function asPlatform<T>(platform: NodeJS.Platform, fn: () => T): T {
  const original = Object.getOwnPropertyDescriptor(process, 'platform')!;
  Object.defineProperty(process, 'platform', { value: platform });
  try {
    return fn();
  } finally {
    Object.defineProperty(process, 'platform', original);
  }
}

/** The error `fn` throws (fails the test when it throws none). */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected an error');
}

const root = mkdtempSync(join(tmpdir(), 'equivox-locks-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
afterEach(() => {
  hooks.rename = null;
  hooks.open = null;
  hooks.rm = null;
});

describe('writeFileAtomic over a file another program holds', () => {
  it('waits out a short lock (antivirus scanning the new file) and writes', () => {
    const dir = join(root, 'short');
    mkdirSync(dir);
    const file = join(dir, 'report.pdf');
    writeFileSync(file, 'old');
    let refusals = 0;
    hooks.rename = (_from, to) => {
      if (to === file && refusals < 2) {
        refusals += 1;
        throw fsError('EPERM', 'rename', _from, to);
      }
    };
    asPlatform('win32', () => writeFileAtomic(file, 'new'));
    expect(refusals).toBe(2);
    expect(readFileSync(file, 'utf8')).toBe('new');
    expect(readdirSync(dir)).toEqual(['report.pdf']);
  });

  it('a lasting lock on Windows: a user error naming the PDF and Acrobat, with retry; the old file and nothing else stays', () => {
    const dir = join(root, 'held');
    mkdirSync(dir);
    const file = join(dir, 'audit.pdf');
    writeFileSync(file, 'old signed report');
    let tries = 0;
    hooks.rename = (from, to) => {
      if (to === file) {
        tries += 1;
        throw fsError('EPERM', 'rename', from, to);
      }
    };
    const err = asPlatform('win32', () => thrown(() => writeFileAtomic(file, 'new')));
    expect(err).toBeInstanceOf(UserError);
    const shape = toErrorShape(err);
    expect(shape).toEqual({
      code: 'user',
      retry: true,
      message: `${file} could not be replaced: it is open in another program (a PDF viewer such as Acrobat?) — close it and try again. It was left as it was.`,
    });
    // The first try and one per wait.
    expect(tries).toBe(7);
    expect(readFileSync(file, 'utf8')).toBe('old signed report');
    expect(readdirSync(dir)).toEqual(['audit.pdf']);
  });

  it('a CSV held by Excel (EBUSY, on any platform) names Excel', () => {
    const dir = join(root, 'csv');
    mkdirSync(dir);
    const file = join(dir, 'wer-groups.csv');
    writeFileSync(file, 'old');
    hooks.rename = (from, to) => {
      if (to === file) throw fsError('EBUSY', 'rename', from, to);
    };
    expect(toErrorShape(thrown(() => writeFileAtomic(file, 'new'))).message).toBe(
      `${file} could not be replaced: it is open in another program (a spreadsheet such as Excel?) — close it and try again. It was left as it was.`,
    );
    expect(readdirSync(dir)).toEqual(['wer-groups.csv']);
  });

  it('elsewhere EPERM is a permission the user lacks: said so, and not retried', () => {
    const dir = join(root, 'perm');
    mkdirSync(dir);
    const file = join(dir, 'results.json');
    let tries = 0;
    hooks.rename = (from, to) => {
      if (to === file) {
        tries += 1;
        throw fsError('EPERM', 'rename', from, to);
      }
    };
    const shape = toErrorShape(asPlatform('linux', () => thrown(() => writeFileAtomic(file, '{}'))));
    expect(tries).toBe(1);
    expect(shape.code).toBe('user');
    expect(shape.message).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} could not be written: permission denied \\(EPERM\\)`));
  });
});

describe('errors nobody put in context', () => {
  it('an unmapped EBUSY from a temporary sibling names the file it stands for', () => {
    const target = join(root, 'x', 'results.json');
    const shape = toErrorShape(fsError('EBUSY', 'rename', tempSibling(target), target));
    expect(shape).toEqual({
      code: 'user',
      retry: true,
      message: `${target} could not be replaced or moved: it is open in another program (an editor?) — close it and try again.`,
    });
  });

  it('an unlink refused on Windows names the file as deleted', () => {
    const shape = asPlatform('win32', () => toErrorShape(fsError('EACCES', 'unlink', 'C:\\Users\\zoe\\audit\\wer.csv')));
    expect(shape.message).toBe('C:\\Users\\zoe\\audit\\wer.csv could not be deleted: it is open in another program (a spreadsheet such as Excel?) — close it and try again.');
  });

  it('other errors stay as they were', () => {
    expect(toErrorShape(fsError('ENOENT', 'open', '/nope')).code).toBe('internal');
  });
});

describe('replaceDir over a folder with a file held open', () => {
  it('leaves the old folder in place and the new one out of it', () => {
    const dir = join(root, 'exports');
    const target = join(dir, 'audit-data');
    mkdirSync(target, { recursive: true });
    writeFileSync(join(target, 'wer.csv'), 'old');
    const staging = tempSibling(target);
    mkdirSync(staging);
    writeFileSync(join(staging, 'wer.csv'), 'new');
    hooks.rename = (from, to) => {
      if (from === target) throw fsError('EBUSY', 'rename', from, to);
    };
    const shape = toErrorShape(thrown(() => replaceDir(staging, target)));
    expect(shape.message).toBe(`The folder ${target} could not be replaced: it is open in another program (a program with a file of it open, or a File Explorer window showing it?) — close it and try again. It was left as it was.`);
    expect(readFileSync(join(target, 'wer.csv'), 'utf8')).toBe('old');
  });
});

describe('assertReplaceable: a report checks its files before writing any', () => {
  it('an existing file that cannot be opened for writing stops with the note; a missing one passes', () => {
    const file = join(root, 'pre.pdf');
    writeFileSync(file, 'x');
    hooks.open = (path, flags) => {
      if (path === file && flags === 'r+') throw fsError('EBUSY', 'open', path);
    };
    expect(toErrorShape(thrown(() => assertReplaceable(file, { note: 'Nothing was written.' }))).message).toBe(
      `${file} could not be replaced: it is open in another program (a PDF viewer such as Acrobat?) — close it and try again. Nothing was written.`,
    );
    expect(() => assertReplaceable(join(root, 'absent.pdf'), {})).not.toThrow();
  });

  it('retryWhileLocked gives up after its waits and throws the last error as it came', () => {
    let n = 0;
    const err = thrown(() =>
      retryWhileLocked(
        () => {
          n += 1;
          throw fsError('EBUSY', 'rename', '/a');
        },
        { delaysMs: [1, 1] },
      ),
    ) as NodeJS.ErrnoException;
    expect(n).toBe(3);
    expect(err.code).toBe('EBUSY');
  });
});

describe('deleting a project', () => {
  let home: string;
  let store: InstanceType<typeof ProjectStore>;
  beforeAll(() => {
    home = join(root, 'home');
    store = new ProjectStore(home);
  });
  afterAll(() => store.close());

  it('moves the folder aside first: a file held open stops it with nothing deleted and the project still listed', async () => {
    const p = store.create('Held', join(root, 'projects', 'held'));
    writeFileSync(join(p.path, 'notes.txt'), 'mine');
    let moves = 0;
    hooks.rename = (from, to) => {
      if (from === p.path) {
        moves += 1;
        throw fsError('EBUSY', 'rename', from, to);
      }
    };
    const err = await store.delete(p.id, true).then(
      () => null,
      (e: unknown) => e,
    );
    expect(moves).toBe(7);
    expect(toErrorShape(err)).toEqual({
      code: 'user',
      retry: true,
      message: `The folder ${p.path} could not be deleted: it is open in another program (a program with a file of it open, or a File Explorer window showing it?) — close it and try again. Nothing was deleted; “Held” is still in the list of projects.`,
    });
    expect(readFileSync(join(p.path, 'notes.txt'), 'utf8')).toBe('mine');
    expect(existsSync(join(p.path, 'project.sqlite'))).toBe(true);
    expect(store.list().map((x) => x.id)).toContain(p.id);
    // Closed for the move, the project opens again as it was.
    expect((await store.openId(p.id)).name).toBe('Held');
  });

  it('once moved aside the folder is gone from its place; what a held file keeps is reported, not left in the list', async () => {
    const p = store.create('Leftover', join(root, 'projects', 'leftover'));
    hooks.rm = (path) => {
      if (basename(path).startsWith('.leftover.tmp-')) throw fsError('EBUSY', 'rmdir', path);
    };
    const r = await store.delete(p.id, true);
    expect(r.deletedFiles).toBe(true);
    expect(r.leftOver).toMatch(/[/\\]\.leftover\.tmp-\d+-[0-9a-f]{8}$/);
    expect(existsSync(p.path)).toBe(false);
    expect(existsSync(r.leftOver!)).toBe(true);
    expect(store.list().map((x) => x.id)).not.toContain(p.id);
  });

  it('an ordinary delete leaves nothing beside the folder', async () => {
    const p = store.create('Plain', join(root, 'projects', 'plain'));
    expect(await store.delete(p.id, true)).toEqual({ id: p.id, deletedFiles: true });
    expect(readdirSync(join(root, 'projects')).filter((n) => n.includes('plain'))).toEqual([]);
  });

  it('is refused while a job of the project runs (its database, or a report written inside it), with nothing deleted', async () => {
    const p = store.create('Busy', join(root, 'projects', 'busy'));
    const other = store.create('Other', join(root, 'projects', 'other'));
    // The runner's own record of running jobs, as JobRunner.running() gives it.
    let running: { jobId: string; kind: string; input: unknown }[] = [{ jobId: 'j1', kind: 'audits.run', input: { projectPath: join(p.path, '.', ''), dataDir: home, auditId: 'a' } }];
    const services = { store, jobs: { running: () => running } } as unknown as Parameters<(typeof projectHandlers)['projects.delete']>[1];
    const refusal = await Promise.resolve()
      .then(() => projectHandlers['projects.delete']({ id: p.id, deleteFiles: true }, services))
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(toErrorShape(refusal)).toEqual({
      code: 'user',
      field: 'id',
      retry: true,
      message: '“Busy” has a job running (running an audit, job j1): cancel it or wait until it has finished, then delete the project. Nothing was deleted.',
    });
    expect(existsSync(join(p.path, 'project.sqlite'))).toBe(true);
    running = [{ jobId: 'j2', kind: 'reports.render', input: { out: join(p.path, 'reports', 'audit.pdf') } }];
    await expect(Promise.resolve().then(() => projectHandlers['projects.delete']({ id: p.id, deleteFiles: true }, services))).rejects.toThrow(/writing a report, job j2/);
    // A job of another project does not hold this one; removing from the list never waits.
    running = [{ jobId: 'j3', kind: 'audits.run', input: { projectPath: other.path } }];
    expect(await projectHandlers['projects.delete']({ id: p.id, deleteFiles: true }, services)).toEqual({ id: p.id, deletedFiles: true });
    running = [{ jobId: 'j4', kind: 'audits.run', input: { projectPath: other.path } }];
    expect(await projectHandlers['projects.delete']({ id: other.id, deleteFiles: false }, services)).toEqual({ id: other.id, deletedFiles: false });
  });
});
