/**
 * Child process for bad-files.test.ts: import the rows of MANIFEST whose path cell is
 * PATH_CELL into a fresh database and print the clip's duration, issue codes and this
 * process's peak RSS, so the test can tell whether the import held the decoded audio.
 *
 *   node --import tsx test/unit/hardening/import-child.ts MANIFEST DB_FILE PATH_CELL
 */
import { importDataset } from '../../../src/main/data/import';
import { listClips } from '../../../src/main/data/repository';
import { openDatabase } from '../../../src/main/store/open';
import { projectMigrations } from '../../../src/main/store/schema';

async function main(): Promise<void> {
  const [manifest, dbFile, cell] = process.argv.slice(2);
  if (!manifest || !dbFile || !cell) throw new Error('usage: import-child.ts MANIFEST DB_FILE PATH_CELL');
  const db = openDatabase(dbFile, projectMigrations);
  try {
    const r = await importDataset(db, { source: { kind: 'manifest', manifest }, role: 'target', mapping: { path: 'file', groups: [], ignore: [] } });
    const clip = listClips(db, r.datasetId, { includeExcluded: true }).find((c) => c.relPath === cell);
    if (!clip) throw new Error(`no row with path ${cell}`);
    process.stdout.write(`${JSON.stringify({ durationS: clip.durationS, codes: clip.issues.map((i) => i.code), maxRssKiB: process.resourceUsage().maxRSS })}\n`);
  } finally {
    db.close();
  }
}

void main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exitCode = 1;
});
