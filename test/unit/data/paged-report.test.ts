/**
 * Output that does not grow with the data (issue 25): `datasets show` on a 200,000-row
 * dataset with problems prints counts and the first 20 problem rows (under 50 KB), and
 * paging through the report (the API's limit/offset, as the app and `--offset` use it)
 * returns every problem row exactly once; `--problems FILE.csv` writes them all. The
 * dataset is made by the real importer from a manifest whose rows mostly name missing
 * files, with real clips (some clipped, a warning) among them.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importDataset } from '../../../src/main/data/import';
import { datasetFacts, problemsPage } from '../../../src/main/data/repository';
import { openDatabase } from '../../../src/main/store/open';
import { PROJECT_FILE, ProjectStore } from '../../../src/main/store/projects';
import { projectMigrations } from '../../../src/main/store/schema';
import { writeWav } from '../../fixtures/data/make-audio';

const ROWS = 200_000;
const tempDir = (p: string) => mkdtempSync(join(tmpdir(), `equivox-paged-${p}-`));

function cli(home: string, args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/main/cli.ts', ...args], { env: { ...process.env, EQUIVOX_HOME: home }, encoding: 'utf8', maxBuffer: 1 << 28 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('a 200,000-row dataset with problems', () => {
  it('prints a page by default, and paging returns every problem row exactly once', { timeout: 600_000 }, async () => {
    const home = tempDir('home');
    const project = join(tempDir('proj'), 'p');
    const store = new ProjectStore(home);
    store.create('Paging', project);
    store.close();
    const corpus = tempDir('corpus');
    const lines = ['path,speaker,accent'];
    let clipped = 0;
    for (let i = 0; i < ROWS; i += 1) {
      if (i % 2000 === 0) {
        const k = i / 2000;
        // Every other real clip is driven into full scale for a stretch: a "clipped" warning.
        const loud = k % 2 === 1;
        if (loud) clipped += 1;
        writeWav(join(corpus, `c${k}.wav`), Float32Array.from({ length: 8000 }, (_, n) => (loud ? 1.6 : 0.3) * Math.sin((2 * Math.PI * (200 + k) * n) / 16000)));
        lines.push(`c${k}.wav,s${k % 20},${k % 4}`);
      } else lines.push(`missing/m${i}.wav,s${i % 500},${i % 4}`);
    }
    writeFileSync(join(corpus, 'manifest.csv'), `${lines.join('\n')}\n`);
    const realClips = ROWS / 2000;
    const expectedProblems = ROWS - realClips + clipped;

    const db = openDatabase(join(project, PROJECT_FILE), projectMigrations);
    let datasetId: string;
    try {
      const r = await importDataset(db, { source: { kind: 'manifest', manifest: join(corpus, 'manifest.csv') }, role: 'target', mapping: { path: 'path', speaker: 'speaker', groups: ['accent'], ignore: [] } });
      datasetId = r.datasetId;
      expect(r.imported).toBe(realClips);

      // The API behind the app's list (datasets.problems): pages of 1,000.
      const seen: number[] = [];
      let total = -1;
      for (let offset = 0; ; offset += 1000) {
        const f = problemsPage(db, datasetId, { limit: 1000, offset });
        total = f.total;
        expect(f.offset).toBe(offset);
        seen.push(...f.rows.map((x) => x.row));
        if (f.rows.length < 1000) break;
      }
      expect(total).toBe(expectedProblems);
      expect(seen.length).toBe(expectedProblems);
      expect(new Set(seen).size).toBe(expectedProblems);
      expect(seen).toEqual([...seen].sort((a, b) => a - b));
      const stored = (db.prepare("SELECT row_index FROM clips WHERE dataset_id = ? AND issues_json != '[]' ORDER BY row_index").pluck().all(datasetId) as number[]);
      expect(seen).toEqual(stored);
      // datasets.show: the facts and its first page, the same rows.
      const facts = datasetFacts(db, datasetId, { limit: 50, offset: 100 });
      expect(facts.report.map((x) => x.row)).toEqual(seen.slice(100, 150));
      expect(facts.reportKinds).toEqual({ leftOut: ROWS - realClips, warning: clipped, note: 0, excluded: 0 });
    } finally {
      db.close();
    }

    // The CLI's default: counts and the first 20, well under 50 KB.
    const shown = cli(home, ['datasets', 'show', '--project', project, '--id', datasetId]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(Buffer.byteLength(shown.stdout)).toBeLessThan(50_000);
    const facts = JSON.parse(shown.stdout) as { totals: { clips: number; usable: number }; report: { row: number }[]; reportTotal: number };
    expect(facts.totals).toMatchObject({ clips: ROWS, usable: realClips });
    expect(facts.report.map((x) => x.row)).toEqual(Array.from({ length: 20 }, (_, i) => i + 2)); // rows 2–21 name missing files (row 1 is a real clip)
    expect(facts.reportTotal).toBe(expectedProblems);
    expect(shown.stderr).toMatch(new RegExp(`showing problem rows 1–20 of ${expectedProblems}; --offset 20`));

    // --offset and --limit page the same list; --problems writes all of it.
    const later = JSON.parse(cli(home, ['datasets', 'show', '--project', project, '--id', datasetId, '--offset', '150000', '--limit', '3']).stdout) as { report: { row: number }[] };
    expect(later.report).toHaveLength(3);
    const csvFile = join(tempDir('out'), 'problems.csv');
    const withCsv = cli(home, ['datasets', 'show', '--project', project, '--id', datasetId, '--problems', csvFile]);
    expect(withCsv.code, withCsv.stderr).toBe(0);
    const csvRows = readFileSync(csvFile, 'utf8').trim().split('\r\n').slice(1).map((l) => Number(l.split(',')[0]));
    expect(csvRows.length).toBe(expectedProblems);
    expect(new Set(csvRows).size).toBe(expectedProblems);
    expect(csvRows).toContain(later.report[0]!.row);
  });
});
