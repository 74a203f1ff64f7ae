/**
 * Project folders made by a sender with bad intent (issue 33.1–3), built from scratch for
 * each test: a real project created by Equivox's own store in the sender's data folder,
 * then changed with plain better-sqlite3 the way the tester did. The receiver's Equivox
 * has its own data folder, so every such folder is one it has never opened.
 */
import { closeSync, copyFileSync, mkdirSync, mkdtempSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { encodeWav16 } from '../../src/main/audio/wav';
import { PROJECT_FILE, ProjectStore } from '../../src/main/store/projects';

export const CRAFTS = [
  'clips-trigger',
  'embeddings-trigger',
  'endless-view',
  'delayed-view',
  'newer-user-version',
  'newer-migration',
  'missing-column',
  'foreign-wal',
  'huge-page-count',
] as const;
export type Craft = (typeof CRAFTS)[number];

/** The attacker's SQL for the crafts that are plain SQL. */
export const ATTACK_SQL: Partial<Record<Craft, string>> = {
  // Every imported clip becomes "male", spoken by the attacker, and a mapping is planted.
  'clips-trigger': `CREATE TRIGGER clips_after_insert AFTER INSERT ON clips BEGIN
    UPDATE clips SET groups_json = json_set(groups_json, '$.gender', 'male'), speaker = 'attacker-' || NEW.row_index WHERE id = NEW.id;
    INSERT OR REPLACE INTO column_mappings (name, mapping_json, created_at, updated_at) VALUES ('planted', '{}', 'x', 'x');
  END;`,
  // Every stored embedding mean becomes zeros.
  'embeddings-trigger': `CREATE TRIGGER embeddings_after_insert AFTER INSERT ON embeddings BEGIN
    UPDATE embeddings SET mean = zeroblob(length(NEW.mean))
      WHERE audio_sha256 = NEW.audio_sha256 AND model_sha256 = NEW.model_sha256 AND settings_key = NEW.settings_key;
  END;`,
  // The project row behind a view that never returns.
  'endless-view': `ALTER TABLE project RENAME TO project_data;
    CREATE VIEW project AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)
      SELECT p.id, p.name, p.created_at FROM project_data p, c WHERE c.x = 0;`,
  // The project row behind a view that answers after some seconds (the tester's: opens once, then hangs every list).
  'delayed-view': `ALTER TABLE project RENAME TO project_data;
    CREATE VIEW project AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 30000000)
      SELECT p.id, p.name, p.created_at FROM project_data p, c WHERE c.x = 30000000;`,
  'newer-user-version': 'PRAGMA user_version = 999;',
  'newer-migration': `INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (999, 'from a newer Equivox', 'x', '2099-01-01T00:00:00.000Z');`,
  'missing-column': 'ALTER TABLE clips DROP COLUMN transcript;',
};

/** What a refusal of each craft must name (beside the file). */
export const NAMED: Record<Craft, RegExp> = {
  'clips-trigger': /database code Equivox did not write \(trigger clips_after_insert\)/,
  'embeddings-trigger': /database code Equivox did not write \(trigger embeddings_after_insert\)/,
  'endless-view': /database code Equivox did not write \(view project\)/,
  'delayed-view': /database code Equivox did not write \(view project\)/,
  'newer-user-version': /newer Equivox: it needs database version 999/,
  'newer-migration': /newer Equivox: it needs database version 999/,
  'missing-column': /table clips lacks the column transcript/,
  'foreign-wal': /project\.sqlite-wal does not belong to .*project\.sqlite: it was written for another database, with it the folder would show the project “Another audit”/,
  'huge-page-count': /header claims 2,147,483,632 pages of 4096 bytes, and the file holds \d+/,
};

export const temp = (p: string) => mkdtempSync(join(tmpdir(), `equivox-crafted-${p}-`));

/** A real project, created by Equivox in the sender's own data folder. */
function senderProject(home: string, dir: string, name: string): string {
  const store = new ProjectStore(home);
  try {
    store.create(name, dir);
  } finally {
    store.close();
  }
  return join(dir, PROJECT_FILE);
}

/** Build the crafted folder `dir`, as received: a project.sqlite (and for foreign-wal its -wal), nothing of the receiver's. */
export function craftFolder(craft: Craft, dir: string): { dir: string; file: string } {
  const sender = temp('sender');
  const file = senderProject(sender, dir, 'Received audit');
  const sql = ATTACK_SQL[craft];
  if (sql) {
    const db = new Database(file);
    db.exec(sql);
    db.close(); // folds the WAL in: one file, as a folder is sent
  } else if (craft === 'foreign-wal') {
    // Another project's -wal, copied beside this one while the other was open.
    const other = senderProject(sender, join(sender, 'other'), 'Another');
    const db = new Database(other);
    db.pragma('wal_autocheckpoint = 0');
    db.prepare("UPDATE project SET name = 'Another audit'").run();
    db.prepare('INSERT INTO events (at, kind, detail_json) VALUES (?, ?, ?)').run(new Date().toISOString(), 'note', JSON.stringify({ pad: 'x'.repeat(20000) }));
    copyFileSync(`${other}-wal`, `${file}-wal`);
    db.close();
  } else if (craft === 'huge-page-count') {
    // The header's page count (offset 28), valid for SQLite (offset 24 equals offset 92), far past the file's end.
    const head = readFileSync(file).subarray(0, 100);
    if (head.readUInt32BE(24) !== head.readUInt32BE(92)) throw new Error('expected a header SQLite trusts');
    const fd = openSync(file, 'r+');
    try {
      const n = Buffer.alloc(4);
      n.writeUInt32BE(0x7ffffff0);
      writeSync(fd, n, 0, 4, 28);
    } finally {
      closeSync(fd);
    }
  }
  return { dir, file };
}

/** A manifest of `n` generated 16 kHz WAVs (two speakers, gender alternating), as an auditor's spreadsheet. */
export function writeManifest(folder: string, n = 4): { manifest: string; rows: { path: string; speaker: string; gender: string; transcript: string }[] } {
  mkdirSync(join(folder, 'audio'), { recursive: true });
  const rows = Array.from({ length: n }, (_, i) => ({ path: `audio/clip${i}.wav`, speaker: `spk${i % 2}`, gender: i % 2 === 0 ? 'female' : 'male', transcript: `sentence ${i}` }));
  rows.forEach((r, i) => {
    const samples = new Float32Array(16000 + 4000 * i);
    for (let k = 0; k < samples.length; k += 1) samples[k] = 0.3 * Math.sin((2 * Math.PI * (140 + 40 * i) * k) / 16000) * (0.6 + 0.4 * Math.sin((2 * Math.PI * 3 * k) / 16000));
    writeFileSync(join(folder, r.path), encodeWav16(samples, 16000));
  });
  const manifest = join(folder, 'clips.csv');
  writeFileSync(manifest, `path,speaker,gender,transcript\n${rows.map((r) => `${r.path},${r.speaker},${r.gender},${r.transcript}`).join('\n')}\n`);
  return { manifest, rows };
}

