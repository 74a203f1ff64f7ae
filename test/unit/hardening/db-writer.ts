/**
 * Child process for crash.test.ts and storage.test.ts: opens a project database the way
 * the app does and commits transactions of ROWS clip rows in a loop, printing
 * "committed N" (N = committed transactions in the file) after each commit, until it is
 * killed.
 *
 *   node --import tsx test/unit/hardening/db-writer.ts PROJECT_SQLITE [HOLD_MS [GAP_MS]]
 *
 * HOLD_MS plants a slow disk: each transaction keeps the write lock that long before it
 * commits (as a cluster import's shard merge on a slow drive does); GAP_MS is the pause
 * between transactions (reading the next shard).
 */
import { randomUUID } from 'node:crypto';
import { writeSync } from 'node:fs';
import { openDatabase } from '../../../src/main/store/open';
import { projectMigrations } from '../../../src/main/store/schema';

const ROWS_PER_TRANSACTION = 50;
const DATASET = 'crash-writer';
const sleeper = new Int32Array(new SharedArrayBuffer(4));
const sleep = (ms: number) => (ms > 0 ? Atomics.wait(sleeper, 0, 0, ms) : undefined);

function main(): void {
  const file = process.argv[2];
  if (!file) throw new Error('usage: db-writer.ts PROJECT_SQLITE [HOLD_MS [GAP_MS]]');
  const holdMs = Number(process.argv[3] ?? 0);
  const gapMs = Number(process.argv[4] ?? 0);
  const db = openDatabase(file, projectMigrations);
  const now = new Date().toISOString();
  db.prepare(
    `INSERT OR IGNORE INTO datasets (id, name, role, source_kind, source_path, status, created_at, updated_at)
     VALUES (?, 'crash writer', 'target', 'manifest', '/crash-writer.csv', 'importing', ?, ?)`,
  ).run(DATASET, now, now);
  const insert = db.prepare(
    `INSERT INTO clips (id, dataset_id, row_index, path, rel_path, sha256, duration_s, groups_json, metadata_json, status)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'ok')`,
  );
  const padding = 'x'.repeat(2000); // ~2 kB a row: each transaction spans several pages
  const commit = db.transaction((first: number) => {
    for (let k = 0; k < ROWS_PER_TRANSACTION; k += 1) {
      const row = first + k;
      insert.run(randomUUID(), DATASET, row, `/clips/${row}.wav`, `${row}.wav`, randomUUID().replace(/-/g, '').padEnd(64, '0'), 1.5, '{"group":"a"}', JSON.stringify({ padding }));
    }
    sleep(holdMs); // still inside the transaction: the write lock is held
  });
  const count = () => (db.prepare('SELECT COUNT(*) AS n FROM clips WHERE dataset_id = ?').get(DATASET) as { n: number }).n;
  for (let i = 0; i < 1_000_000; i += 1) {
    commit(count() + 1);
    // Written synchronously: a line the parent reads was committed before it was written.
    writeSync(1, `committed ${count() / ROWS_PER_TRANSACTION}\n`);
    sleep(gapMs);
  }
}

main();
