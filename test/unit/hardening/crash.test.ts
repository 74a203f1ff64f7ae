/**
 * Crash safety (issue 9): SIGKILL the real CLI during an import, during embedding
 * extraction, during SER training and during database writes. After each kill the
 * project database must pass `PRAGMA integrity_check`, keep every finished unit, and a
 * re-run must complete without redoing or duplicating finished work. Also: opening a
 * project whose schema is older backs the file up before migrating.
 *
 * About 2.5 minutes on 2 cores; most of it is the demo (c) and the 600-file import and
 * embedding (a, b), which each run once in total across their killed and resumed halves.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/main/store/open';
import { PROJECT_FILE, ProjectStore } from '../../../src/main/store/projects';
import { projectMigrations } from '../../../src/main/store/schema';
import { writeWav } from '../../fixtures/data/make-audio';
import { progressAtLeast, reopen, runCli, runNode } from './crash-helpers';

// Enough that the import outlasts the CLI's first throttled progress line (at most one a second,
// src/main/cli/progress-lines.ts) on a fast, idle machine: with 150 a quiet CI imported them all
// between the first line and the last, and the kill never came.
const CLIPS = 600;
const tempDir = (p: string) => mkdtempSync(join(tmpdir(), `equivox-crash-${p}-`));

/** CLIPS distinct half-second tones and their manifest. */
function corpus(dir: string): string {
  const rows = ['file,speaker,gender'];
  for (let i = 0; i < CLIPS; i += 1) {
    const f = 200 + i * 7;
    writeWav(join(dir, `c${i}.wav`), Float32Array.from({ length: 8000 }, (_, k) => 0.3 * Math.sin((2 * Math.PI * f * k) / 16000)));
    rows.push(`c${i}.wav,s${i % 10},${i % 2 ? 'a' : 'b'}`);
  }
  const manifest = join(dir, 'manifest.csv');
  writeFileSync(manifest, `${rows.join('\n')}\n`);
  return manifest;
}

const count = (db: Database.Database, sql: string, ...params: unknown[]) => (db.prepare(sql).get(...params) as { n: number }).n;

describe('SIGKILL during an import and during embedding extraction', () => {
  it('keeps every finished clip and embedding; re-runs finish the rest without duplicates', { timeout: 240_000 }, async () => {
    const home = tempDir('home');
    const project = join(tempDir('proj'), 'p');
    const store = new ProjectStore(home);
    store.create('Crash test', project);
    store.close();
    const manifest = corpus(tempDir('corpus'));
    const dbFile = join(project, PROJECT_FILE);
    const importArgs = ['datasets', 'import', '--project', project, '--manifest', manifest, '--map', 'file=path,speaker=speaker,gender=group'];

    // (a) import, killed once 20 clips are reported done. Measured by ffmpeg (as for
    // formats read nowhere else): in process, short WAVs import before a kill lands.
    const killed = await runCli(importArgs, home, progressAtLeast(/importing/, 20), { EQUIVOX_ANALYSE: 'ffmpeg' });
    expect(killed.killedAt, killed.stderr.slice(-2000)).not.toBeNull();
    expect(killed.signal).toBe('SIGKILL');
    const { db: afterKill, integrity } = reopen(dbFile);
    expect(integrity).toBe('ok');
    const before = afterKill.prepare('SELECT row_index, status, sha256, duration_s, sample_rate, issues_json FROM clips ORDER BY row_index').all() as {
      row_index: number; status: string; sha256: string | null; duration_s: number | null; sample_rate: number | null; issues_json: string;
    }[];
    afterKill.close();
    expect(before.length).toBeGreaterThanOrEqual(20); // progress is reported after each clip's commit
    expect(before.length).toBeLessThan(CLIPS);
    for (const c of before) {
      expect(c, `row ${c.row_index}`).toMatchObject({ status: 'ok', sha256: expect.stringMatching(/^[0-9a-f]{64}$/), duration_s: 0.5, sample_rate: 16000, issues_json: '[]' });
    }

    const resumed = await runCli(importArgs, home);
    expect(resumed.code, resumed.stderr.slice(-2000)).toBe(0);
    const imported = JSON.parse(resumed.stdout) as { datasetId: string; imported: number; processed: number; failed: unknown[] };
    expect(imported).toMatchObject({ imported: CLIPS, processed: CLIPS - before.length, failed: [] });
    const { db: done, integrity: integrity2 } = reopen(dbFile);
    expect(integrity2).toBe('ok');
    expect(count(done, 'SELECT COUNT(*) AS n FROM clips')).toBe(CLIPS);
    expect(count(done, 'SELECT COUNT(DISTINCT row_index) AS n FROM clips')).toBe(CLIPS);
    expect(count(done, "SELECT COUNT(*) AS n FROM clips WHERE status = 'ok' AND sha256 IS NOT NULL AND duration_s IS NOT NULL")).toBe(CLIPS);
    expect(count(done, 'SELECT COUNT(*) AS n FROM datasets')).toBe(1);
    expect((done.prepare('SELECT status FROM datasets').get() as { status: string }).status).toBe('ready');
    done.close();

    // (b) embedding extraction with the built-in baseline, killed after ≥ 20 clips.
    const embedArgs = ['embed', '--project', project, '--dataset', imported.datasetId, '--model', 'acoustic-baseline', '--threads', '1'];
    const killedEmbed = await runCli(embedArgs, home, progressAtLeast(/embedding/, 20));
    expect(killedEmbed.killedAt, killedEmbed.stderr.slice(-2000)).not.toBeNull();
    const { db: e1, integrity: integrity3 } = reopen(dbFile);
    expect(integrity3).toBe('ok');
    const rows = e1.prepare('SELECT audio_sha256, layer_count, dims_json, length(mean) AS mean, length(min) AS min, length(max) AS max FROM embeddings').all() as {
      audio_sha256: string; layer_count: number; dims_json: string; mean: number; min: number; max: number;
    }[];
    e1.close();
    expect(rows.length).toBeGreaterThanOrEqual(20);
    expect(rows.length).toBeLessThan(CLIPS);
    for (const r of rows) {
      const width = (JSON.parse(r.dims_json) as number[]).reduce((a, b) => a + b, 0);
      expect({ layers: r.layer_count, mean: r.mean, min: r.min, max: r.max }).toEqual({ layers: 3, mean: width * 4, min: width * 4, max: width * 4 });
    }

    const embedDone = await runCli(embedArgs, home);
    expect(embedDone.code, embedDone.stderr.slice(-2000)).toBe(0);
    const summary = JSON.parse(embedDone.stdout) as { clips: number; computed: number; cached: number; failed: unknown[] };
    expect(summary).toMatchObject({ clips: CLIPS, cached: rows.length, computed: CLIPS - rows.length, failed: [] });
    const { db: e2, integrity: integrity4 } = reopen(dbFile);
    expect(integrity4).toBe('ok');
    expect(count(e2, 'SELECT COUNT(*) AS n FROM embeddings')).toBe(CLIPS);
    e2.close();
  });
});

describe('SIGKILL during SER training in the demo', () => {
  it('keeps the finished audit units; the re-run resumes and writes all four sections', { timeout: 300_000 }, async () => {
    const home = tempDir('demo-home');
    const out = join(tempDir('demo-out'), 'demo');
    const args = ['demo', '--fast', '--out', out];
    const killed = await runCli(args, home, (line) => line.startsWith('SER training'));
    expect(killed.killedAt, killed.stderr.slice(-2000)).not.toBeNull();
    expect(killed.signal).toBe('SIGKILL');
    const dbFile = join(out, 'project', PROJECT_FILE);
    const { db, integrity } = reopen(dbFile);
    expect(integrity).toBe('ok');
    const units = new Map((db.prepare('SELECT unit_key, result_json FROM results').all() as { unit_key: string; result_json: string }[]).map((u) => [u.unit_key, u.result_json]));
    const audits = db.prepare('SELECT status FROM audits').all() as { status: string }[];
    db.close();
    expect(units.size).toBeGreaterThanOrEqual(1);
    expect(audits).toEqual([{ status: 'running' }]);

    const resumed = await runCli(args, home);
    expect(resumed.code, resumed.stderr.slice(-2000)).toBe(0);
    expect(resumed.stderr).toMatch(/resuming audit/);
    const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as Record<string, unknown>;
    for (const section of ['speat', 'ser', 'wer', 'fdi']) expect(results[section], section).toBeTruthy();
    const { db: after, integrity: integrity2 } = reopen(dbFile);
    expect(integrity2).toBe('ok');
    // Every unit finished before the kill is still there, unchanged (it was not recomputed).
    for (const [key, json] of units) {
      const row = after.prepare('SELECT result_json FROM results WHERE unit_key = ?').get(key) as { result_json: string } | undefined;
      expect(row?.result_json, key).toBe(json);
    }
    expect(count(after, 'SELECT COUNT(*) AS n FROM results')).toBeGreaterThan(units.size);
    expect(after.prepare('SELECT status FROM audits').all()).toEqual([{ status: 'finished' }]);
    after.close();
  });
});

describe('SIGKILL during database writes', () => {
  it('five kills at random moments: integrity ok and only whole transactions each time', { timeout: 120_000 }, async () => {
    const ROWS = 50; // as in db-writer.ts
    const home = tempDir('writer-home');
    const project = join(tempDir('writer'), 'p');
    const store = new ProjectStore(home);
    store.create('Writer', project);
    store.close();
    const dbFile = join(project, PROJECT_FILE);
    let committed = 0;
    for (let round = 1; round <= 5; round += 1) {
      // Kill after a random number of further commits: the child is then inside the next transaction.
      const target = committed + 3 + Math.floor(Math.random() * 40);
      const r = await runNode('test/unit/hardening/db-writer.ts', [dbFile], {}, (line) => Number(/^committed (\d+)$/.exec(line)?.[1] ?? -1) >= target, 'stdout');
      expect(r.killedAt, r.stderr.slice(-2000)).not.toBeNull();
      const reported = Math.max(...r.stdout.split('\n').map((l) => Number(/^committed (\d+)$/.exec(l)?.[1] ?? -1)));
      const { db, integrity } = reopen(dbFile);
      expect(integrity, `round ${round}`).toBe('ok');
      const rows = count(db, "SELECT COUNT(*) AS n FROM clips WHERE dataset_id = 'crash-writer'");
      const distinct = count(db, "SELECT COUNT(DISTINCT row_index) AS n FROM clips WHERE dataset_id = 'crash-writer'");
      db.close();
      expect(rows % ROWS, `round ${round}: a partial transaction survived`).toBe(0);
      expect(distinct).toBe(rows);
      // Every reported commit is there; at most one more committed between its print and the kill.
      expect(rows / ROWS, `round ${round}`).toBeGreaterThanOrEqual(reported);
      expect(rows / ROWS, `round ${round}`).toBeLessThanOrEqual(reported + 1);
      committed = rows / ROWS;
    }
    expect(committed).toBeGreaterThanOrEqual(15);
  });
});

describe('migrations', () => {
  it('opening a project at an older schema version backs the file up before migrating', async () => {
    const home = tempDir('mig-home');
    const project = join(tempDir('mig'), 'p');
    const dbFile = join(project, PROJECT_FILE);
    new ProjectStore(home).close();
    // A project created by a build that only knew migration 1.
    mkdirSync(project, { recursive: true });
    const old = openDatabase(dbFile, projectMigrations.filter((m) => m.version === 1));
    old.prepare('INSERT INTO project (id, name, created_at) VALUES (?, ?, ?)').run('old-project', 'Old project', new Date().toISOString());
    old.close();
    expect(projectMigrations.some((m) => m.version === 10)).toBe(true);

    const store = new ProjectStore(home);
    const p = await store.openPath(project);
    expect(p.id).toBe('old-project');
    const db = store.db(p.id);
    expect((db.prepare('SELECT version FROM schema_migrations ORDER BY version').all() as { version: number }[]).map((r) => r.version)).toEqual(projectMigrations.map((m) => m.version));
    store.close();

    const backup = `${dbFile}.before-migration-10.bak`;
    expect(existsSync(backup)).toBe(true);
    const b = new Database(backup, { readonly: true });
    expect(b.pragma('integrity_check', { simple: true })).toBe('ok');
    expect((b.prepare('SELECT version FROM schema_migrations').all() as { version: number }[]).map((r) => r.version)).toEqual([1]);
    expect(b.prepare('SELECT id FROM project').get()).toEqual({ id: 'old-project' });
    expect(b.prepare("SELECT name FROM sqlite_master WHERE name = 'column_mappings'").get()).toBeUndefined();
    b.close();
  });
});
