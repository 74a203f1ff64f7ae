/**
 * Every API operation, through the real web host, refuses malformed input with a 400
 * naming the field at fault, and writes nothing. The malformed inputs are derived from
 * each operation's zod schema (test/support/zod-probe.ts), so a new operation or field
 * is covered without editing this file.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, test, type APIRequestContext } from '@playwright/test';
import { operationNames, operations } from '../../src/shared/api';
import { malformedInputs } from '../support/zod-probe';
import { startHost, type RunningHost } from './web-host';

let host: RunningHost;
let headers: Record<string, string>;
let projectsBefore: unknown;
let filesBefore: string[];

/** Every file under the data folder with its size: what "nothing was written" compares. */
function snapshot(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      // SQLite's -wal/-shm files change size on checkpoints without any logical write.
      else out.push(/-(wal|shm)$/.test(name) ? relative(dir, p) : `${relative(dir, p)} ${st.size}`);
    }
  };
  walk(dir);
  return out.sort();
}

async function call(request: APIRequestContext, op: string, body: string): Promise<{ status: number; json: { ok: boolean; error?: { code: string; message: string; field?: string } } }> {
  const res = await request.post(`${host.base}/api/invoke/${op}`, { headers: { ...headers, 'Content-Type': 'application/json' }, data: body });
  return { status: res.status(), json: (await res.json()) as { ok: boolean; error?: { code: string; message: string; field?: string } } };
}

test.beforeAll(async ({ request }) => {
  host = await startHost();
  headers = { 'X-Equivox-Token': host.token };
  // One project, so that a refused call that wrote anything would show in the list.
  const created = await call(request, 'projects.create', JSON.stringify({ name: 'Malformed input target' }));
  expect(created.status).toBe(200);
  projectsBefore = (await call(request, 'projects.list', '{}')).json;
  filesBefore = snapshot(host.home);
});

test.afterAll(async () => {
  await host.stop();
});

test.describe('malformed input to every operation', () => {
  for (const op of operationNames) {
    test(op, async ({ request }) => {
      const cases = malformedInputs(operations[op].input);
      expect(cases.length).toBeGreaterThanOrEqual(5);
      for (const c of cases) {
        const { status, json } = await call(request, op, JSON.stringify(c.input));
        const where = `${op} with ${c.name} (${JSON.stringify(c.input).slice(0, 200)})`;
        expect(status, where).toBe(400);
        expect(json.ok, where).toBe(false);
        expect(json.error, where).toMatchObject({ code: 'validation', field: c.field });
        // The message names the field too, for the people reading it.
        if (c.field !== 'input' && !/^unknown field/.test(json.error!.message)) expect(json.error!.message, where).toContain(c.field);
      }
      // Not JSON at all.
      const notJson = await call(request, op, '{"unterminated": ');
      expect(notJson.status).toBe(400);
      expect(notJson.json.error).toMatchObject({ code: 'validation', field: 'input' });
    });
  }

  test('a body over 10 MB is refused with 413 for every operation', async ({ request }) => {
    const huge = JSON.stringify({ name: 'x'.repeat(10 * 1024 * 1024 + 16) });
    for (const op of operationNames) {
      const res = await request.post(`${host.base}/api/invoke/${op}`, { headers: { ...headers, 'Content-Type': 'application/json' }, data: huge });
      expect(res.status(), op).toBe(413);
      expect(((await res.json()) as { error: unknown }).error, op).toMatchObject({ code: 'validation', field: 'input' });
    }
  });

  test('nothing was written by any refused call', async ({ request }) => {
    expect((await call(request, 'projects.list', '{}')).json).toEqual(projectsBefore);
    expect(snapshot(host.home)).toEqual(filesBefore);
  });
});

test.describe('path inputs only through grants (web host)', () => {
  test('an ungranted path is refused naming the field; after files.grant it is accepted; .. and links out are refused', async ({ request }) => {
    const { mkdtempSync, mkdirSync, realpathSync, symlinkSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'equivox-grant-')));
    mkdirSync(join(dir, 'chosen'));
    mkdirSync(join(dir, 'other'));
    writeFileSync(join(dir, 'chosen', 'manifest.csv'), 'path,group\na.wav,x\n');
    writeFileSync(join(dir, 'other', 'secret.csv'), 'path,group\n');
    symlinkSync(join(dir, 'other'), join(dir, 'chosen', 'link'));
    const manifest = join(dir, 'chosen', 'manifest.csv');

    const before = await call(request, 'datasets.preview', JSON.stringify({ manifest }));
    expect(before.status).toBe(400);
    expect(before.json.error).toMatchObject({ code: 'validation', field: 'manifest' });
    expect(before.json.error!.message).toBe('manifest: this file was not chosen in a file dialog; choose it with Choose…');

    const listing = await call(request, 'files.browse', JSON.stringify({ path: join(dir, 'chosen') }));
    expect(listing.status).toBe(200);
    const granted = await call(request, 'files.grant', JSON.stringify({ path: join(dir, 'chosen'), purpose: 'folder' }));
    expect(granted.status).toBe(200);
    expect((await call(request, 'datasets.preview', JSON.stringify({ manifest }))).status).toBe(200);

    const traversal = await call(request, 'datasets.preview', JSON.stringify({ manifest: `${dir}/chosen/../other/secret.csv` }));
    expect(traversal.json.error).toMatchObject({ code: 'validation', field: 'manifest' });
    const viaLink = await call(request, 'datasets.preview', JSON.stringify({ manifest: join(dir, 'chosen', 'link', 'secret.csv') }));
    expect(viaLink.json.error).toMatchObject({ code: 'validation', field: 'manifest' });
    const outsideRoots = await call(request, 'files.grant', JSON.stringify({ path: '/etc/passwd' }));
    expect(outsideRoots.json.error).toMatchObject({ code: 'validation', field: 'path' });
    const noDialog = await call(request, 'files.pick', JSON.stringify({ purpose: 'manifest' }));
    expect(noDialog.status).toBe(422);
  });
});

test.describe('the Equivox data folder through the web host', () => {
  test('granting the data folder, its keys or a folder above it is refused; previewing key.pem or passphrase is refused', async ({ request }) => {
    // The host's data folder (EQUIVOX_HOME) holds a signing identity with its key and passphrase file.
    const id = await call(request, 'identities.create', JSON.stringify({ name: 'Web Auditor', organisation: 'Org' }));
    expect(id.status).toBe(200);
    const keyDir = join(host.home, 'identities', (id.json as unknown as { result: { id: string } }).result.id);
    for (const path of [host.home, join(host.home, 'identities'), keyDir, join(keyDir, 'key.pem'), join(keyDir, 'passphrase'), join(host.home, '..')]) {
      const r = await call(request, 'files.grant', JSON.stringify({ path, purpose: 'folder' }));
      expect(r.status, path).toBe(400);
      expect(r.json.error, path).toMatchObject({ code: 'validation', field: 'path' });
      expect(r.json.error!.message, path).toMatch(/Equivox's own data folder/);
    }
    for (const f of ['key.pem', 'passphrase']) {
      const r = await call(request, 'datasets.preview', JSON.stringify({ manifest: join(keyDir, f) }));
      expect(r.status, f).toBe(400);
      expect(r.json.error, f).toMatchObject({ code: 'validation', field: 'manifest' });
      expect(JSON.stringify(r.json)).not.toMatch(/BEGIN|ENCRYPTED/);
    }
  });
});
