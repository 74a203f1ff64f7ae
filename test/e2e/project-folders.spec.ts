/**
 * A project is its folder, in the real renderer against the real web host (issues 20.3
 * and 23.4): a folder copied with `cp -a` and opened from the home screen asks first
 * (open as a copy, or cancel); as a copy it gets its own id, and renaming it changes the
 * copy's database, never the original's. A project whose folder was deleted is marked
 * "Folder missing" with "Remove from list" instead of failing the list. A folder whose
 * project.sqlite holds the sender's SQL (a view that never ends) is refused when opened,
 * with the engine still answering, and the home screen lists it as "Cannot be opened"
 * with the reason and "Remove from list" (issue 33.2).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect, test, type APIRequestContext } from '@playwright/test';
import { craftFolder } from '../support/crafted-projects';
import { AuditorApp } from './pages/app';
import { startHostWithTemp, type RunningHost } from './web-host';

let host: RunningHost;
let dir: string;

async function call<T>(request: APIRequestContext, op: string, input: unknown): Promise<{ status: number; ok: boolean; result: T; error?: { code: string; message: string; field?: string } }> {
  const res = await request.post(`${host.base}/api/invoke/${op}`, { headers: { 'X-Equivox-Token': host.token }, data: input });
  return { status: res.status(), ...((await res.json()) as { ok: boolean; result: T; error?: { code: string; message: string; field?: string } }) };
}

function onDisk(folder: string): { id: string; name: string } {
  const db = new Database(join(folder, 'project.sqlite'), { readonly: true });
  try {
    return db.prepare('SELECT id, name FROM project').get() as { id: string; name: string };
  } finally {
    db.close();
  }
}

test.beforeAll(async () => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'equivox-folders-')));
  // The host's temporary folder is this spec's own, so the chooser lists a few rows, not CI's whole /tmp.
  host = await startHostWithTemp(dir);
});

test.afterAll(async () => {
  await host.stop();
});

test('a copied project folder opens only as a copy, with its own id; the original is unchanged', async ({ page, request }, info) => {
  const app = new AuditorApp(page, info);
  expect((await call(request, 'files.grant', { path: dir, purpose: 'project-folder' })).ok).toBe(true);
  const original = join(dir, 'original');
  const created = await call<{ id: string }>(request, 'projects.create', { name: 'Pilot audit', dir: original });
  expect(created.ok, JSON.stringify(created.error)).toBe(true);
  const copy = join(dir, 'copy');
  execFileSync('cp', ['-a', original, copy]);

  // Through the API: refused with both folders named, the same words the CLI gives.
  const refused = await call(request, 'projects.open', { path: copy });
  expect(refused.status).toBe(422);
  expect(refused.error).toMatchObject({ code: 'user', field: 'asCopy' });
  expect(refused.error!.message).toContain(original);

  await page.goto(host.url);
  await page.getByText('Open a project from a folder').click();
  await app.choose('Project folder', copy, 'folder');
  await page.getByRole('button', { name: 'Open project' }).click();
  const dialog = page.getByRole('dialog', { name: 'This folder is a copy of another project' });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText(`${copy} is a copy of the project “Pilot audit” in ${original}`);
  await expect(dialog).not.toContainText('--as-copy');
  await app.record('copy-dialog');
  // Cancel opens nothing.
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  expect(onDisk(copy).id).toBe(created.result.id);

  await page.getByRole('button', { name: 'Open project' }).click();
  await dialog.getByRole('button', { name: 'Open as a copy' }).click();
  await expect(app.heading('Pilot audit')).toBeVisible();
  const copyId = onDisk(copy).id;
  expect(copyId).not.toBe(created.result.id);

  const renamed = await call(request, 'projects.rename', { id: copyId, name: 'Pilot audit (copy)' });
  expect(renamed.ok, JSON.stringify(renamed.error)).toBe(true);
  expect(onDisk(copy)).toEqual({ id: copyId, name: 'Pilot audit (copy)' });
  expect(onDisk(original)).toEqual({ id: created.result.id, name: 'Pilot audit' });
  const listed = await call<{ id: string; path: string; missing: boolean }[]>(request, 'projects.list', {});
  expect(listed.result.filter((p) => p.path === copy || p.path === original).map((p) => [p.path, p.id, p.missing]).sort()).toEqual(
    [[copy, copyId, false], [original, created.result.id, false]].sort(),
  );
});

test('a project whose folder was deleted is marked missing and can be removed from the list', async ({ page, request }, info) => {
  const app = new AuditorApp(page, info);
  const gone = join(dir, 'gone');
  const created = await call<{ id: string }>(request, 'projects.create', { name: 'Deleted behind our back', dir: gone });
  expect(created.ok, JSON.stringify(created.error)).toBe(true);
  rmSync(gone, { recursive: true });
  await page.goto(host.url);
  const list = page.getByRole('list', { name: 'Recent projects' });
  const entry = list.getByRole('listitem').filter({ hasText: 'Deleted behind our back' });
  await expect(entry).toContainText('Folder missing');
  await expect(entry).toContainText(gone);
  await app.record('missing-folder');
  await entry.getByRole('button', { name: 'Remove from list: Deleted behind our back' }).click();
  await expect(entry).toHaveCount(0);
  expect((await call<{ id: string }[]>(request, 'projects.list', {})).result.map((p) => p.id)).not.toContain(created.result.id);
});

test('a folder holding a view that never ends is refused with the engine still answering, and the home screen lists it with the reason and removes it', async ({ page, request }, info) => {
  const app = new AuditorApp(page, info);
  expect((await call(request, 'files.grant', { path: dir, purpose: 'project-folder' })).ok).toBe(true);
  const received = craftFolder('endless-view', join(dir, 'received-endless'));
  const started = Date.now();
  const refused = await call(request, 'projects.open', { path: received.dir });
  expect(refused.status).toBe(422);
  expect(refused.error).toMatchObject({ code: 'user', field: 'path' });
  expect(refused.error!.message).toContain(`${received.file}: this project folder contains database code Equivox did not write (view project)`);
  expect((await call(request, 'app.info', {})).ok).toBe(true);
  expect(Date.now() - started).toBeLessThan(30_000);

  // A listed project whose file was replaced by the crafted one.
  const swapped = join(dir, 'swapped');
  const created = await call<{ id: string }>(request, 'projects.create', { name: 'Swapped for a crafted file', dir: swapped });
  expect(created.ok, JSON.stringify(created.error)).toBe(true);
  rmSync(join(swapped, 'project.sqlite'));
  cpSync(received.file, join(swapped, 'project.sqlite'));
  await page.goto(host.url);
  const list = page.getByRole('list', { name: 'Recent projects' });
  const entry = list.getByRole('listitem').filter({ hasText: 'Swapped for a crafted file' });
  await expect(entry).toContainText('Cannot be opened');
  await expect(entry).toContainText('contains database code Equivox did not write (view project)');
  await app.record('crafted-folder');
  await entry.getByRole('button', { name: 'Remove from list: Swapped for a crafted file' }).click();
  await expect(entry).toHaveCount(0);
  expect((await call<{ id: string }[]>(request, 'projects.list', {})).result.map((p) => p.id)).not.toContain(created.result.id);
});
