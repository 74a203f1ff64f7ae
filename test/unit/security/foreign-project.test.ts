/**
 * A received project folder is data, never code (issue 33.1–3). Each crafted folder of
 * test/support/crafted-projects.ts is built from scratch (a real project, then the
 * sender's SQL) and opened by a receiver whose Equivox has never seen it: it is refused
 * with a user error naming the object and the file, before any statement of the app runs
 * on it; the file, the recent-projects list and the receiver's other project are left as
 * they were. The two triggers are shown to be live attacks on a plain SQLite connection,
 * and a clean received folder imports and embeds as before, with the manifest's labels
 * and the model's embeddings. `projects list` and delete answer within 2 s (a bound on a
 * hang, not a speed target) with such folders in the list.
 */
import { createHash, randomBytes } from 'node:crypto';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { decodeAudio } from '../../../src/main/audio';
import { importDataset } from '../../../src/main/data/import';
import { toErrorShape } from '../../../src/main/error-shape';
import { loadEmbeddings } from '../../../src/main/inference/cache';
import { embedDataset } from '../../../src/main/inference/embed';
import { createEmbedder } from '../../../src/main/inference/embedder';
import { ensureModel } from '../../../src/main/inference/models';
import { identifyProjects } from '../../../src/main/store/db-check';
import { inlineContext } from '../../../src/main/jobs/task';
import { openDatabase } from '../../../src/main/store/open';
import { PROJECT_FILE, ProjectStore } from '../../../src/main/store/projects';
import { PROJECT_DB } from '../../../src/main/store/schema';
import { craftFolder, CRAFTS, NAMED, temp, writeManifest } from '../../support/crafted-projects';

/** The error a call throws or rejects with, as a host would send it. */
async function shapeOf(f: () => unknown) {
  try {
    await f();
  } catch (err) {
    return toErrorShape(err);
  }
  throw new Error('expected an error');
}

/** Every file in a folder with its SHA-256: what "nothing was written" is checked against. */
function snapshot(dir: string): Record<string, string> {
  return Object.fromEntries(readdirSync(dir).map((f) => [f, createHash('sha256').update(readFileSync(join(dir, f))).digest('hex')]));
}

const MAPPING = { path: 'path', speaker: 'speaker', groups: ['gender'], transcript: 'transcript', ignore: [] };

describe('a crafted project folder is refused before any statement of the app runs on it', () => {
  for (const craft of CRAFTS) {
    it(`${craft}: a user error naming what and the file; file, list and the other project untouched`, async () => {
      const home = temp('home');
      const first = new ProjectStore(home);
      const mine = first.create('Mine', join(temp('mine'), 'p'));
      first.rename(mine.id, 'Mine, renamed');
      first.close();
      const mineBefore = snapshot(mine.path);
      const store = new ProjectStore(home);
      const listBefore = store.list();
      const { dir, file } = craftFolder(craft, join(temp('in'), 'received'));
      const before = snapshot(dir);

      for (const open of [() => store.openPath(dir), () => store.resolve(dir), () => store.openOrCreate('x', dir)]) {
        const e = await shapeOf(open);
        expect(e).toMatchObject({ code: 'user', field: 'path' });
        expect(e.message).toContain(file);
        expect(e.message).toMatch(NAMED[craft]);
      }
      // What a job worker or a CLI command uses on a folder it was handed: the same check, in process.
      if (craft !== 'foreign-wal') expect((await shapeOf(() => openDatabase(file, PROJECT_DB))).message).toMatch(NAMED[craft]);

      expect(snapshot(dir)).toEqual(before);
      expect(store.list()).toEqual(listBefore);
      store.close();
      expect(snapshot(mine.path)).toEqual(mineBefore);
      const again = new ProjectStore(home);
      expect(await again.openId(mine.id)).toMatchObject({ id: mine.id, name: 'Mine, renamed' });
      again.close();
    });
  }

  it('the app’s own connections run with trusted_schema off, cell_size_check on and SQLite’s defensive mode', () => {
    const store = new ProjectStore(temp('home'));
    const p = store.create('Defended', join(temp('p'), 'p'));
    const db = store.db(p.id);
    expect(db.pragma('trusted_schema', { simple: true })).toBe(0);
    expect(db.pragma('cell_size_check', { simple: true })).toBe(1);
    // SQLITE_DBCONFIG_DEFENSIVE: even with writable_schema the schema table cannot be written.
    db.pragma('writable_schema = ON');
    expect(() => db.prepare("UPDATE sqlite_schema SET sql = sql WHERE name = 'clips'").run()).toThrow(/may not be modified/);
    store.close();
  });

  it('a -wal that belongs to its database (a folder copied while the sender had it open) is accepted', async () => {
    const sender = new ProjectStore(temp('sender'));
    const dir = join(temp('in'), 'open-copy');
    const p = sender.create('Copied while open', dir);
    sender.close();
    const db = new Database(join(dir, PROJECT_FILE));
    db.pragma('wal_autocheckpoint = 0');
    db.prepare('UPDATE project SET name = ?').run('Renamed before the copy');
    const received = join(temp('in'), 'received');
    cpSync(dir, received, { recursive: true });
    db.close();
    expect(statSync(join(received, `${PROJECT_FILE}-wal`)).size).toBeGreaterThan(4096);
    const store = new ProjectStore(temp('home'));
    expect(await store.openPath(received)).toMatchObject({ id: p.id, name: 'Renamed before the copy' });
    store.close();
  });

  it('a stray -shm (random bytes) is not the database’s: SQLite rebuilds it, and the folder opens as itself', async () => {
    const sender = new ProjectStore(temp('sender'));
    const p = sender.create('With a stray shm', join(temp('in'), 'p'));
    sender.close();
    writeFileSync(join(p.path, `${PROJECT_FILE}-shm`), randomBytes(32768));
    const store = new ProjectStore(temp('home'));
    const opened = await store.openPath(p.path);
    expect(opened).toMatchObject({ id: p.id, name: 'With a stray shm' });
    expect(store.db(opened.id).pragma('quick_check', { simple: true })).toBe('ok');
    store.close();
  });
});

describe('the attacker SQL never runs', () => {
  it('the triggers are live attacks on a plain SQLite connection; a clean received folder imports and embeds with the manifest’s labels and the model’s embeddings', { timeout: 120_000 }, async () => {
    const data = temp('data');
    const { manifest, rows } = writeManifest(data);
    const models = temp('models');

    // Control: the real import and embed on a plain connection to the crafted files run the sender's SQL.
    const labels = craftFolder('clips-trigger', join(temp('in'), 'labels'));
    const raw = new Database(labels.file);
    await importDataset(raw, { source: { kind: 'manifest', manifest }, role: 'target', mapping: MAPPING });
    const rewritten = raw.prepare('SELECT speaker, groups_json FROM clips ORDER BY row_index').all() as { speaker: string; groups_json: string }[];
    expect(rewritten.map((r) => [r.speaker, JSON.parse(r.groups_json).gender])).toEqual(rows.map((_, i) => [`attacker-${i + 1}`, 'male']));
    expect(raw.prepare("SELECT COUNT(*) AS n FROM column_mappings WHERE name = 'planted'").get()).toEqual({ n: 1 });
    raw.close();
    const means = craftFolder('embeddings-trigger', join(temp('in'), 'means'));
    const raw2 = new Database(means.file);
    const imported = await importDataset(raw2, { source: { kind: 'manifest', manifest }, role: 'target', mapping: MAPPING });
    await embedDataset(raw2, { dataDir: models, datasetId: imported.datasetId, model: 'acoustic-baseline', provider: 'cpu', threads: 1 }, inlineContext());
    const zeroed = raw2.prepare('SELECT mean FROM embeddings').all() as { mean: Buffer }[];
    expect(zeroed).toHaveLength(rows.length);
    for (const r of zeroed) expect(r.mean.every((b) => b === 0)).toBe(true);
    raw2.close();

    // A clean folder from another computer: checked in full, then imported and embedded as usual.
    const sender = new ProjectStore(temp('sender'));
    const sent = join(temp('in'), 'clean');
    sender.create('Clean audit', sent);
    sender.close();
    const store = new ProjectStore(temp('home'));
    const p = await store.openPath(sent);
    const db = store.db(p.id);
    const r = await importDataset(db, { source: { kind: 'manifest', manifest }, role: 'target', mapping: MAPPING });
    expect(r.failed).toEqual([]);
    const clips = db.prepare('SELECT path, speaker, groups_json, transcript FROM clips WHERE dataset_id = ? ORDER BY row_index').all(r.datasetId) as { path: string; speaker: string; groups_json: string; transcript: string }[];
    expect(clips.map((c) => [c.speaker, JSON.parse(c.groups_json), c.transcript])).toEqual(rows.map((m) => [m.speaker, { gender: m.gender }, m.transcript]));
    await embedDataset(db, { dataDir: models, datasetId: r.datasetId, model: 'acoustic-baseline', provider: 'cpu', threads: 1 }, inlineContext());
    const { manifest: model, graphs } = await ensureModel(models, 'acoustic-baseline');
    const embedder = await createEmbedder(model, graphs, { provider: 'cpu', threads: 1 });
    try {
      for (const c of clips) {
        const sha = createHash('sha256').update(readFileSync(c.path)).digest('hex');
        const stored = loadEmbeddings(db, model.id, model.settingsKey, [sha]).get(sha)!;
        const fresh = await embedder.embed((await decodeAudio(c.path)).samples);
        expect(stored.frames).toBe(fresh.frames);
        for (let l = 0; l < fresh.mean.length; l += 1) expect(Array.from(stored.mean[l]!)).toEqual(Array.from(fresh.mean[l]!));
        expect(stored.mean.some((layer) => layer.some((v) => v !== 0))).toBe(true);
      }
    } finally {
      await embedder.release();
    }
    store.close();
  });
});

describe('projects list and delete with crafted folders in the list', () => {
  it('answer within 2 s, mark each folder with its problem, open nothing known, and delete files only of what they can identify', { timeout: 120_000 }, async () => {
    const home = temp('home');
    let store = new ProjectStore(home);
    const made = (name: string) => store.create(name, join(temp('p'), 'p'));
    const endless = made('Endless');
    const delayed = made('Delayed');
    const inPlace = made('Swapped in place');
    const locked = made('Locked');
    const fine = made('Fine');
    store.close();
    // Registered folders whose project.sqlite was replaced by a crafted one (a new file)...
    const swap = (path: string, craft: 'endless-view' | 'delayed-view') => {
      const crafted = craftFolder(craft, join(temp('c'), 'p'));
      rmSync(join(path, PROJECT_FILE));
      cpSync(crafted.file, join(path, PROJECT_FILE));
    };
    swap(endless.path, 'endless-view');
    swap(delayed.path, 'delayed-view');
    // ...one overwritten in place (the same file, so the registry still knows it)...
    const inPlaceFile = join(inPlace.path, PROJECT_FILE);
    const ino = statSync(inPlaceFile).ino;
    writeFileSync(inPlaceFile, readFileSync(craftFolder('endless-view', join(temp('c'), 'p')).file));
    expect(statSync(inPlaceFile).ino).toBe(ino);
    // ...and a replaced one that another program holds locked: reading it would wait.
    swap(locked.path, 'delayed-view');
    const holder = new Database(join(locked.path, PROJECT_FILE));
    holder.pragma('locking_mode = EXCLUSIVE');
    holder.exec('BEGIN EXCLUSIVE');

    try {
      store = new ProjectStore(home);
      let t = Date.now();
      const listed = await store.recent();
      expect(Date.now() - t).toBeLessThan(2000);
      const byId = new Map(listed.map((p) => [p.id, p]));
      expect(byId.get(fine.id)).toMatchObject({ missing: false });
      expect(byId.get(fine.id)!.problem).toBeUndefined();
      for (const p of [endless, delayed]) expect(byId.get(p.id)).toMatchObject({ missing: true, problem: expect.stringMatching(/database code Equivox did not write \(view project\)/) });
      expect(byId.get(locked.id)).toMatchObject({ missing: true, problem: expect.stringContaining(`${join(locked.path, PROJECT_FILE)}: SQLite cannot read this project folder's database (database is locked)`) });
      // The same file as last opened: listed from the registry, without reading it...
      expect(byId.get(inPlace.id)).toMatchObject({ missing: false });
      // ...and refused when it is opened.
      const e = await shapeOf(() => store.openId(inPlace.id));
      expect(e).toMatchObject({ code: 'user' });
      expect(e.message).toMatch(/view project/);

      for (const [p, files] of [[endless, false], [delayed, true], [locked, true], [inPlace, false]] as const) {
        t = Date.now();
        expect(await store.delete(p.id, files)).toEqual({ id: p.id, deletedFiles: false });
        expect(Date.now() - t).toBeLessThan(2000);
        expect(existsSync(join(p.path, PROJECT_FILE))).toBe(true);
      }
      expect((await store.recent()).map((p) => p.id)).toEqual([fine.id]);
      expect(await store.delete(fine.id, true)).toEqual({ id: fine.id, deletedFiles: true });
      store.close();

      // A read that takes longer than the list waits (here: a lock waited for 5 s) is given up at the deadline.
      t = Date.now();
      const late = await identifyProjects([join(locked.path, PROJECT_FILE)], PROJECT_DB, { deadlineMs: 300, busyTimeoutMs: 5000 });
      expect(Date.now() - t).toBeLessThan(2000);
      expect(late.get(join(locked.path, PROJECT_FILE))).toEqual({ kind: 'unchecked', reason: `Equivox could not check ${join(locked.path, PROJECT_FILE)} within 0.3 s` });
    } finally {
      holder.close();
    }
  });
});
