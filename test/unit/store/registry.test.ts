/**
 * The recent-projects registry against a user's file habits (issue 20.3) and a project
 * that is its folder (issue 23.4): folders deleted, moved, replaced and copied behind
 * Equivox's back. None of it may surface as an `internal` error.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { toErrorShape } from '../../../src/main/error-shape';
import { PROJECT_FILE, ProjectStore } from '../../../src/main/store/projects';

const temp = () => mkdtempSync(join(tmpdir(), 'equivox-registry-'));

/** The error a call throws (or its promise rejects with), as a host would send it. */
async function shapeOf(f: () => unknown) {
  try {
    await f();
  } catch (err) {
    return toErrorShape(err);
  }
  throw new Error('expected an error');
}

/** Read a project database as another program would: its project row and event kinds. */
function onDisk(folder: string) {
  const db = new Database(join(folder, PROJECT_FILE), { readonly: true });
  try {
    const project = db.prepare('SELECT id, name FROM project').get() as { id: string; name: string };
    const events = (db.prepare('SELECT kind FROM events ORDER BY seq').all() as { kind: string }[]).map((e) => e.kind);
    return { ...project, events };
  } finally {
    db.close();
  }
}

describe('the registry follows the folders', () => {
  it('creates a project again at a path whose project folder was deleted', async () => {
    const store = new ProjectStore(temp());
    const dir = join(temp(), 'p');
    const first = store.create('First', dir);
    rmSync(dir, { recursive: true });
    expect(await store.recent()).toEqual([expect.objectContaining({ id: first.id, missing: true })]);
    const second = store.create('Second', dir);
    expect(second.id).not.toBe(first.id);
    // One entry for the folder, the new project, and its database is the new file.
    expect(await store.recent()).toEqual([expect.objectContaining({ id: second.id, name: 'Second', path: dir, missing: false })]);
    store.rename(second.id, 'Second, renamed');
    expect(onDisk(dir)).toMatchObject({ id: second.id, name: 'Second, renamed' });
    expect((await shapeOf(() => store.get(first.id))).code).toBe('not_found');
    store.close();
  });

  it('marks a deleted folder missing, says what to do when it is used, and removes it from the list', async () => {
    const store = new ProjectStore(temp());
    const keep = store.create('Kept', join(temp(), 'kept'));
    const gone = store.create('Gone', join(temp(), 'gone'));
    store.db(gone.id); // cached connection: must not hide the deletion
    rmSync(gone.path, { recursive: true });
    const listed = await store.recent();
    expect(listed.find((p) => p.id === gone.id)).toMatchObject({ missing: true, path: gone.path });
    expect(listed.find((p) => p.id === keep.id)).toMatchObject({ missing: false });
    for (const use of [() => store.db(gone.id), () => store.openId(gone.id), () => store.rename(gone.id, 'x'), () => store.resolve(gone.id)]) {
      const e = await shapeOf(use);
      expect(e.code).toBe('user');
      expect(e.message).toContain(gone.path);
      expect(e.message).toMatch(/moved or deleted/);
    }
    // Remove from list (files or not: there are none).
    expect(await store.delete(gone.id, true)).toEqual({ id: gone.id, deletedFiles: false });
    expect((await store.recent()).map((p) => p.id)).toEqual([keep.id]);
    store.close();
  });

  it('follows a moved project to its new folder and records the move in the project', async () => {
    const home = temp();
    const store = new ProjectStore(home);
    const from = join(temp(), 'from');
    const to = join(temp(), 'to');
    const p = store.create('Moved', from);
    store.db(p.id);
    renameSync(from, to);
    expect((await store.recent())[0]).toMatchObject({ id: p.id, missing: true });
    const opened = await store.openPath(to);
    expect(opened).toMatchObject({ id: p.id, path: to, name: 'Moved' });
    expect(await store.recent()).toEqual([expect.objectContaining({ id: p.id, path: to, missing: false })]);
    store.rename(p.id, 'Moved, renamed');
    expect(onDisk(to)).toMatchObject({ id: p.id, name: 'Moved, renamed', events: ['project.created', 'project.moved', 'project.renamed'] });
    store.close();
    // A new process sees the same registry.
    const again = new ProjectStore(home);
    expect(again.list()).toEqual([expect.objectContaining({ id: p.id, path: to })]);
    again.close();
  });

  it('lists a folder that now holds another project as missing and registers the new one when it is opened', async () => {
    const home = temp();
    const store = new ProjectStore(home);
    const dir = join(temp(), 'p');
    const old = store.create('Old', dir);
    rmSync(dir, { recursive: true });
    // Another data folder (another user's Equivox) creates a project in the same place.
    const other = new ProjectStore(temp());
    const replacement = other.create('Replacement', dir);
    other.close();
    expect(await store.recent()).toEqual([expect.objectContaining({ id: old.id, missing: true })]);
    const e = await shapeOf(() => store.db(old.id));
    expect(e).toMatchObject({ code: 'user' });
    expect(e.message).toMatch(/now holds another project \(“Replacement”\)/);
    // Files of the other project are never deleted in the old one's name.
    expect((await shapeOf(() => store.delete(old.id, true))).code).toBe('user');
    expect(onDisk(dir).id).toBe(replacement.id);
    expect((await store.openPath(dir)).id).toBe(replacement.id);
    expect(await store.recent()).toEqual([expect.objectContaining({ id: replacement.id, missing: false })]);
    store.close();
  });

  it('serves a folder deleted and created again from the new file, never from the cached connection', async () => {
    const store = new ProjectStore(temp());
    const dir = join(temp(), 'p');
    const a = store.create('A', dir);
    store.rename(a.id, 'A1');
    rmSync(dir, { recursive: true });
    const b = store.create('B', dir);
    store.rename(b.id, 'B1');
    expect(onDisk(dir)).toMatchObject({ id: b.id, name: 'B1' });
    store.close();
  });
});

describe('a project is its folder', () => {
  it('refuses a copied folder naming both folders, opens it as a copy with a new id, and leaves the original unchanged', async () => {
    const store = new ProjectStore(temp());
    const original = join(temp(), 'original');
    const copy = join(temp(), 'copy');
    const p = store.create('Pilot', original);
    store.rename(p.id, 'Pilot audit');
    execFileSync('cp', ['-a', original, copy]);

    const refused = await shapeOf(() => store.openPath(copy));
    expect(refused).toMatchObject({ code: 'user', field: 'asCopy' });
    expect(refused.message).toContain(copy);
    expect(refused.message).toContain(original);
    expect(refused.message).toContain('--as-copy');
    // So does every command that names the folder (`--project DIR`).
    expect(await shapeOf(() => store.resolve(copy))).toMatchObject({ code: 'user', field: 'asCopy' });

    const opened = await store.openPath(copy, { asCopy: true });
    expect(opened.id).not.toBe(p.id);
    expect(opened).toMatchObject({ name: 'Pilot audit', path: copy });
    store.rename(opened.id, 'Pilot audit (copy)');
    expect(onDisk(copy)).toMatchObject({ id: opened.id, name: 'Pilot audit (copy)', events: ['project.created', 'project.renamed', 'project.copied', 'project.renamed'] });
    expect(onDisk(original)).toMatchObject({ id: p.id, name: 'Pilot audit', events: ['project.created', 'project.renamed'] });
    // Both are listed, each at its own folder; reopening either is plain.
    expect((await store.recent()).map((x) => [x.id, x.path, x.missing]).sort()).toEqual([[opened.id, copy, false], [p.id, original, false]].sort());
    expect((await store.openPath(copy)).id).toBe(opened.id);
    expect((await store.openPath(original)).id).toBe(p.id);
    // --as-copy on a folder that is no copy changes nothing.
    expect((await store.openPath(copy, { asCopy: true })).id).toBe(opened.id);
    store.close();
  });

  it('keys open databases by the real folder: a symlinked spelling is the same project, not a copy', async () => {
    const store = new ProjectStore(temp());
    const dir = join(temp(), 'real');
    const link = join(temp(), 'link');
    const p = store.create('Linked', dir);
    symlinkSync(dir, link);
    expect((await store.openPath(link)).id).toBe(p.id);
    expect(store.db(p.id)).toBe(store.db(p.id));
    store.close();
  });

  it('opens a copy whose original folder is gone as the project itself (it was moved, not copied)', async () => {
    const store = new ProjectStore(temp());
    const original = join(temp(), 'original');
    const copy = join(temp(), 'copy');
    const p = store.create('Solo', original);
    execFileSync('cp', ['-a', original, copy]);
    rmSync(original, { recursive: true });
    expect((await store.openPath(copy)).id).toBe(p.id);
    expect(await store.recent()).toEqual([expect.objectContaining({ id: p.id, path: copy, missing: false })]);
    store.close();
  });
});
