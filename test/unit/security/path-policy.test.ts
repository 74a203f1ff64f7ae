import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi, type Api } from '../../../src/main/api';
import { createEngine, type Engine } from '../../../src/main/engine';
import { PathGuard } from '../../../src/main/security/path-policy';
import { operations, operationNames } from '../../../src/shared/api';
import type { PathFieldSpec } from '../../../src/shared/api/files';

// A scratch tree: granted/ (with a manifest, and a link escaping to outside/), outside/.
const root = realpathSync(mkdtempSync(join(tmpdir(), 'equivox-paths-')));
const granted = join(root, 'granted');
const outside = join(root, 'outside');
mkdirSync(granted);
mkdirSync(outside);
writeFileSync(join(granted, 'manifest.csv'), 'path,group\n');
writeFileSync(join(outside, 'secret.csv'), 'path,group\n');
symlinkSync(outside, join(granted, 'escape'));
symlinkSync(join(outside, 'secret.csv'), join(granted, 'linked.csv'));

function refused(fn: () => unknown, field: string, message: RegExp): void {
  try {
    fn();
  } catch (err) {
    expect(err).toMatchObject({ code: 'validation', field });
    expect((err as Error).message).toMatch(new RegExp(`^${field.replace('.', '\\.')}: `));
    expect((err as Error).message).toMatch(message);
    return;
  }
  throw new Error('expected the path to be refused');
}

describe('PathGuard (granted)', () => {
  it('refuses a path nobody chose, naming the field', () => {
    const guard = new PathGuard('granted');
    refused(() => guard.check('source.manifest', join(outside, 'secret.csv')), 'source.manifest', /was not chosen in a file dialog; choose it with Choose…/);
  });

  it('accepts a granted file and anything inside a granted folder, returning the real path', () => {
    const guard = new PathGuard('granted');
    guard.grant(join(granted, 'manifest.csv'), 'manifest');
    expect(guard.check('source.manifest', join(granted, 'manifest.csv'))).toBe(join(granted, 'manifest.csv'));
    refused(() => guard.check('source.folder', granted), 'source.folder', /not chosen/);
    guard.grant(granted, 'folder');
    expect(guard.check('source.folder', granted)).toBe(granted);
    expect(guard.check('manifest', join(granted, 'manifest.csv'))).toBe(join(granted, 'manifest.csv'));
  });

  it('resolves symlinks: a link inside a granted folder that escapes it is refused', () => {
    const guard = new PathGuard('granted');
    guard.grant(granted, 'folder');
    refused(() => guard.check('source.folder', join(granted, 'escape')), 'source.folder', /link to a place outside/);
    refused(() => guard.check('source.manifest', join(granted, 'escape', 'secret.csv')), 'source.manifest', /link to a place outside/);
    refused(() => guard.check('source.manifest', join(granted, 'linked.csv')), 'source.manifest', /link to a place outside/);
  });

  it("refuses '..' even when it would land inside a grant, and relative paths", () => {
    const guard = new PathGuard('granted');
    guard.grant(granted, 'folder');
    refused(() => guard.check('manifest', `${granted}/../outside/secret.csv`), 'manifest', /'\.\.' is not allowed/);
    refused(() => guard.check('manifest', `${granted}/../granted/manifest.csv`), 'manifest', /'\.\.' is not allowed/);
    refused(() => guard.check('manifest', 'granted/manifest.csv'), 'manifest', /full path/);
    refused(() => guard.grant(`${granted}/..`, 'folder'), 'path', /'\.\.' is not allowed/);
  });

  it('keeps read grants from being written to; a save-dialog choice may be written', () => {
    const guard = new PathGuard('granted');
    guard.grant(granted, 'folder');
    refused(() => guard.check('out', join(granted, 'report.pdf'), 'write'), 'out', /save dialog/);
    const target = `${outside}/new/../x.pdf`;
    refused(() => guard.grant(target, 'save-pdf'), 'path', /'\.\.'/);
    guard.grant(join(outside, 'report.pdf'), 'save-pdf');
    expect(guard.check('out', join(outside, 'report.pdf'), 'write')).toBe(join(outside, 'report.pdf'));
    refused(() => guard.check('out', join(outside, 'other.pdf'), 'write'), 'out', /save dialog/);
  });

  it('allows the resources folder for reading and project folders for both', () => {
    const guard = new PathGuard('granted', { readRoots: () => [granted], projectRoots: () => [outside] });
    expect(guard.check('manifest', join(granted, 'manifest.csv'))).toBe(join(granted, 'manifest.csv'));
    refused(() => guard.check('out', join(granted, 'r.pdf'), 'write'), 'out', /save dialog/);
    expect(guard.check('out', join(outside, 'r.pdf'), 'write')).toBe(join(outside, 'r.pdf'));
  });

  it('rewrites checked fields of an input to their real paths and skips absent ones', () => {
    const guard = new PathGuard('granted', { isProjectId: (v) => v === 'p1' });
    guard.grant(granted, 'folder');
    const input = { source: { kind: 'manifest', manifest: `${granted}//manifest.csv` }, project: 'p1' };
    guard.checkInput(['source.manifest', 'source.folder', { field: 'project', projectRef: true }], input);
    expect(input.source.manifest).toBe(join(granted, 'manifest.csv'));
    expect(input.project).toBe('p1');
  });
});

describe("PathGuard ('any', the CLI)", () => {
  it('accepts any path unchanged, including .. and links', () => {
    const guard = new PathGuard('any');
    expect(guard.check('manifest', `${granted}/../outside/secret.csv`)).toBe(`${granted}/../outside/secret.csv`);
    const input = { manifest: join(granted, 'escape', 'secret.csv') };
    guard.checkInput(['manifest'], input);
    expect(input.manifest).toBe(join(granted, 'escape', 'secret.csv'));
  });
});

describe('api.invoke under the granted policy', () => {
  let engine: Engine;
  let api: Api;
  beforeAll(() => {
    engine = createEngine({ host: 'web', pathPolicy: 'granted', dataDir: mkdtempSync(join(tmpdir(), 'equivox-paths-home-')) });
    api = createApi(engine);
  });
  afterAll(() => engine.close());

  it('refuses an ungranted path before the handler runs, naming the field', async () => {
    await expect(api.invoke('datasets.preview', { manifest: join(outside, 'secret.csv') })).rejects.toMatchObject({ code: 'validation', field: 'manifest' });
    await expect(api.invoke('projects.create', { name: 'x', dir: join(outside, 'proj') })).rejects.toMatchObject({ code: 'validation', field: 'dir' });
    expect(await api.invoke('projects.list', {})).toEqual([]);
  });

  it('accepts it once granted through files.grant (web host)', async () => {
    await api.invoke('files.grant', { path: join(granted, 'manifest.csv'), purpose: 'manifest' });
    const preview = await api.invoke('datasets.preview', { manifest: join(granted, 'manifest.csv') });
    expect(preview.header).toEqual(['path', 'group']);
  });

  it('files.browse lists a folder with kinds and sizes and refuses folders outside home and tmp', async () => {
    const listing = await api.invoke('files.browse', { path: granted });
    expect(listing.entries).toEqual(expect.arrayContaining([{ name: 'manifest.csv', kind: 'file', size: 11 }, { name: 'escape', kind: 'folder', size: null }]));
    await expect(api.invoke('files.browse', { path: '/etc' })).rejects.toMatchObject({ code: 'validation', field: 'path' });
  });

  it('files.pick has no dialog in the web host', async () => {
    await expect(api.invoke('files.pick', { purpose: 'manifest' })).rejects.toMatchObject({ code: 'user' });
  });
});

describe('the Equivox data folder is never grantable', () => {
  // The data folder sits under a folder the web chooser may browse, as ~/.local/share/equivox does.
  const home = join(root, 'home');
  const dataDir = join(home, '.local', 'share', 'equivox');
  let engine: Engine;
  let api: Api;
  let keyDir: string;
  beforeAll(async () => {
    engine = createEngine({ host: 'web', pathPolicy: 'granted', dataDir });
    api = createApi(engine);
    const id = await api.invoke('identities.create', { name: 'Probe', organisation: 'Probe org' });
    keyDir = join(dataDir, 'identities', id.id);
    mkdirSync(join(home, 'recordings'), { recursive: true });
    writeFileSync(join(home, 'recordings', 'manifest.csv'), 'path,group\n');
    symlinkSync(join(keyDir, 'key.pem'), join(home, 'recordings', 'key.csv'));
  });
  afterAll(() => engine.close());

  it.each([
    ['the data folder', () => dataDir, /inside Equivox's own data folder/],
    ['its identities folder', () => join(dataDir, 'identities'), /inside Equivox's own data folder/],
    ['the signing key', () => join(keyDir, 'key.pem'), /inside Equivox's own data folder/],
    ['the passphrase file', () => join(keyDir, 'passphrase'), /inside Equivox's own data folder/],
    ['a folder above it', () => home, /holds Equivox's own data folder .* choose a folder inside it/],
    ['a folder far above it', () => root, /holds Equivox's own data folder/],
  ])('files.grant refuses %s', async (_what, path, message) => {
    await expect(api.invoke('files.grant', { path: path(), purpose: 'folder' })).rejects.toMatchObject({ code: 'validation', field: 'path', message: expect.stringMatching(message) });
  });

  it('datasets.preview refuses key.pem and passphrase, also through a link in a granted folder', async () => {
    for (const f of ['key.pem', 'passphrase']) {
      await expect(api.invoke('datasets.preview', { manifest: join(keyDir, f) })).rejects.toMatchObject({ code: 'validation', field: 'manifest', message: expect.stringMatching(/data folder/) });
    }
    await api.invoke('files.grant', { path: join(home, 'recordings'), purpose: 'folder' });
    expect((await api.invoke('datasets.preview', { manifest: join(home, 'recordings', 'manifest.csv') })).header).toEqual(['path', 'group']);
    await expect(api.invoke('datasets.preview', { manifest: join(home, 'recordings', 'key.csv') })).rejects.toMatchObject({ code: 'validation', field: 'manifest', message: expect.stringMatching(/data folder/) });
  });

  it('files.browse does not list inside it', async () => {
    await expect(api.invoke('files.browse', { path: join(dataDir, 'identities') })).rejects.toMatchObject({ code: 'validation', field: 'path' });
  });

  it('the CLI (any path) still refuses to preview or import from it', async () => {
    const cli = createEngine({ host: 'cli', dataDir });
    const cliApi = createApi(cli);
    await expect(cliApi.invoke('datasets.preview', { manifest: join(keyDir, 'passphrase') })).rejects.toMatchObject({ code: 'validation', field: 'manifest' });
    const p = await cliApi.invoke('projects.create', { name: 'CLI probe', dir: join(root, 'cli-project') });
    await expect(cliApi.invoke('datasets.import', { projectId: p.id, source: { kind: 'folder', folder: join(dataDir, 'identities') }, role: 'target' })).rejects.toMatchObject({ code: 'validation', field: 'source.folder' });
    await cli.close();
  });

  it('projects kept in its projects/ folder stay usable', async () => {
    const p = await api.invoke('projects.create', { name: 'Default place' });
    expect(p.path.startsWith(join(dataDir, 'projects'))).toBe(true);
    expect((await api.invoke('files.grant', { path: p.path, purpose: 'project-folder' })).path).toBe(p.path);
    expect((await api.invoke('projects.open', { path: p.path })).id).toBe(p.id);
  });
});

describe('the contract declares every path field', () => {
  // Field names that hold a filesystem path. `mapping.path` is a manifest column name, not a path.
  const pathLike = /(^|\.)(path|p12Path|certPath|resultsPath|file|folder|dir|manifest|out)$/;
  const notPaths = new Set(['mapping.path']);

  function stringFields(schema: unknown, prefix = ''): string[] {
    const def = (schema as { _zod?: { def?: Record<string, unknown> } })._zod?.def;
    if (!def) return [];
    switch (def.type) {
      case 'object': {
        const shape = def.shape as Record<string, unknown>;
        return Object.entries(shape).flatMap(([k, v]) => stringFields(v, prefix ? `${prefix}.${k}` : k));
      }
      case 'optional':
      case 'default':
      case 'nullable':
      case 'prefault':
      case 'readonly':
        return stringFields(def.innerType, prefix);
      case 'pipe':
        return stringFields(def.in, prefix);
      case 'union':
        return (def.options as unknown[]).flatMap((o) => stringFields(o, prefix));
      case 'string':
        return [prefix];
      default:
        return [];
    }
  }

  it.each(operationNames.filter((n) => !n.startsWith('files.')))('%s', (name) => {
    const declared = ((operations[name] as { paths?: readonly PathFieldSpec[] }).paths ?? []).map((s) => (typeof s === 'string' ? s : s.field));
    const found = [...new Set(stringFields(operations[name].input))].filter((f) => pathLike.test(f) && !notPaths.has(f));
    if (['plans.save', 'datasets.import', 'reports.build', 'models.import'].includes(name)) expect(found.length).toBeGreaterThan(0);
    expect(declared.sort()).toEqual(expect.arrayContaining(found.sort()));
  });
});
