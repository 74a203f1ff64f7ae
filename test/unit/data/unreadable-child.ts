/**
 * Child process for unreadable-clips.test.ts, run as an unprivileged user (setpriv): import
 * MANIFEST into a fresh project database DB_FILE and print each clip's row, status and
 * issue codes and messages as JSON, or the error that stopped the import.
 *
 *   node --import tsx test/unit/data/unreadable-child.ts MANIFEST DB_FILE
 */
import { importDataset } from '../../../src/main/data/import';
import { listClips } from '../../../src/main/data/repository';
import { openDatabase } from '../../../src/main/store/open';
import { projectMigrations } from '../../../src/main/store/schema';

async function main(): Promise<void> {
  const [manifest, dbFile] = process.argv.slice(2);
  if (!manifest || !dbFile) throw new Error('usage: unreadable-child.ts MANIFEST DB_FILE');
  const db = openDatabase(dbFile, projectMigrations);
  try {
    const r = await importDataset(db, { source: { kind: 'manifest', manifest }, role: 'asr', mapping: { path: 'path', speaker: 'speaker', transcript: 'transcript', groups: ['accent'], ignore: [] } });
    const clips = listClips(db, r.datasetId, { includeExcluded: true }).map((c) => ({ row: c.rowIndex, path: c.relPath, status: c.status, issues: c.issues.map((i) => ({ code: i.code, message: i.message })) }));
    process.stdout.write(`${JSON.stringify({ uid: process.getuid?.(), imported: r.imported, clips })}\n`);
  } finally {
    db.close();
  }
}

void main().catch((err: unknown) => {
  process.stdout.write(`${JSON.stringify({ error: err instanceof Error ? err.message : String(err) })}\n`);
  process.exitCode = 1;
});
