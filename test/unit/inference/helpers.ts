import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { openDatabase } from '../../../src/main/store/open';
import { projectMigrations } from '../../../src/main/store/schema';

import { encodeWav16 } from '../../../src/main/audio/wav';
export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `equivox-${prefix}-`));
}

/** 16-bit PCM mono WAV (the app's one writer, src/main/audio/wav.ts). */
export function writeWav(file: string, samples: Float32Array, rate = 16000): void {
  writeFileSync(file, encodeWav16(samples, rate));
}

/** A voiced-ish test clip: harmonics of f0 with a slow amplitude envelope and seeded noise. */
export function testClip(seconds: number, f0: number, seed: number): Float32Array {
  const n = Math.round(seconds * 16000);
  const out = new Float32Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i += 1) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    const t = i / 16000;
    const env = 0.5 + 0.5 * Math.sin(2 * Math.PI * 3 * t);
    let v = 0;
    for (let h = 1; h <= 5; h += 1) v += Math.sin(2 * Math.PI * f0 * h * t) / h;
    out[i] = 0.25 * env * v + 0.02 * (s / 4294967296 - 0.5);
  }
  return out;
}

/** A project database with one dataset of generated WAV clips (rows inserted directly). */
export function makeProject(clips: { seconds: number; f0: number }[]): { dir: string; db: Database.Database; datasetId: string; files: string[] } {
  const dir = tempDir('proj');
  mkdirSync(join(dir, 'audio'));
  const db = openDatabase(join(dir, 'project.sqlite'), projectMigrations);
  const now = new Date().toISOString();
  db.prepare('INSERT INTO project (id, name, created_at) VALUES (?, ?, ?)').run(randomUUID(), 'test', now);
  const datasetId = randomUUID();
  db.prepare(`INSERT INTO datasets (id, name, role, source_kind, source_path, status, created_at, updated_at) VALUES (?, 'd', 'target', 'folder', ?, 'ready', ?, ?)`).run(datasetId, dir, now, now);
  const files: string[] = [];
  clips.forEach((c, i) => {
    const file = join(dir, 'audio', `clip${i}.wav`);
    writeWav(file, testClip(c.seconds, c.f0, i + 1));
    files.push(file);
    db.prepare(`INSERT INTO clips (id, dataset_id, row_index, path, rel_path, sha256, duration_s) VALUES (?, ?, ?, ?, ?, NULL, ?)`).run(randomUUID(), datasetId, i + 1, file, `audio/clip${i}.wav`, c.seconds);
  });
  return { dir, db, datasetId, files };
}
