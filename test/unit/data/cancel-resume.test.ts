import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importDataset } from '../../../src/main/data/import';
import type { ImportTaskInput } from '../../../src/main/data/import-task';
import { JobRunner } from '../../../src/main/jobs/runner';
import { openDatabase } from '../../../src/main/store/open';
import { projectMigrations } from '../../../src/main/store/schema';
import type { JobProgress } from '../../../src/shared/api';
import { writeWav } from '../../fixtures/data/make-audio';

// 1,000 in the acceptance run (EQUIVOX_TEST_FILES=1000); fewer by default to keep the suite quick,
// since starting ffmpeg (~60 ms) dominates per short file.
const N = Number(process.env.EQUIVOX_TEST_FILES ?? 240);
let dir: string;

beforeAll(() => {
  // Measured by ffmpeg, the slow path (formats read nowhere else): in process these
  // files import faster than a cancel can land.
  process.env.EQUIVOX_ANALYSE = 'ffmpeg';
  dir = mkdtempSync(join(tmpdir(), 'equivox-many-'));
  const lines = ['path,speaker,group'];
  for (let i = 0; i < N; i += 1) {
    // 0.3 s tones with distinct frequencies: distinct bytes, so no duplicates.
    const f = 200 + i;
    const s = new Float32Array(4800).map((_, k) => 0.3 * Math.sin((2 * Math.PI * f * k) / 16000));
    writeWav(join(dir, 'clips', `c${i}.wav`), s);
    lines.push(`clips/c${i}.wav,s${i % 40},${i % 2 ? 'a' : 'b'}`);
  }
  writeFileSync(join(dir, 'manifest.csv'), `${lines.join('\n')}\n`);
  openDatabase(join(dir, 'project.sqlite'), projectMigrations).close();
});
afterAll(() => {
  delete process.env.EQUIVOX_ANALYSE;
  rmSync(dir, { recursive: true, force: true });
});

describe('importing many short files', () => {
  it('reports progress, can be cancelled leaving a consistent subset, and a re-run completes it', async () => {
    const params = {
      source: { kind: 'manifest' as const, manifest: join(dir, 'manifest.csv') },
      role: 'target' as const,
      mapping: { path: 'path', speaker: 'speaker', groups: ['group'], ignore: [] },
    };
    const runner = new JobRunner();
    const seen: JobProgress[] = [];
    let cancelled = false;
    const input: ImportTaskInput = { projectPath: dir, params };
    const { jobId, result } = runner.start('datasets.import', input, {
      onProgress: (p) => {
        seen.push(p);
        if (!cancelled && p.done >= 60) {
          cancelled = true;
          runner.cancel(jobId);
        }
      },
    });
    await expect(result).rejects.toMatchObject({ code: 'cancelled' });
    await runner.shutdown();
    expect(seen.length).toBeGreaterThan(1);
    expect(seen.every((p) => p.stage === 'importing' && p.total === N)).toBe(true);

    const db = openDatabase(join(dir, 'project.sqlite'), projectMigrations);
    try {
      const ds = db.prepare('SELECT id, status FROM datasets').all() as { id: string; status: string }[];
      expect(ds).toHaveLength(1);
      expect(ds[0]!.status).toBe('cancelled');
      const rows = db.prepare('SELECT row_index, sha256, duration_s, status FROM clips ORDER BY row_index').all() as {
        row_index: number;
        sha256: string | null;
        duration_s: number | null;
        status: string;
      }[];
      // A consistent subset: distinct manifest rows, every stored clip complete.
      expect(rows.length).toBeGreaterThanOrEqual(60);
      expect(rows.length).toBeLessThan(N);
      expect(new Set(rows.map((r) => r.row_index)).size).toBe(rows.length);
      rows.forEach((r) => {
        expect(r.row_index).toBeLessThanOrEqual(N);
        expect(r.sha256).toMatch(/^[0-9a-f]{64}$/);
        expect(r.duration_s).toBeCloseTo(0.3, 3);
        expect(r.status).toBe('ok');
      });

      let lastDone = 0;
      const again = await importDataset(db, params, { progress: (_s, done) => (lastDone = done) });
      expect(again.datasetId).toBe(ds[0]!.id);
      expect(again.processed).toBe(N - rows.length);
      expect(again.imported).toBe(N);
      expect(again.failed).toEqual([]);
      expect(lastDone).toBe(N);
      const count = db.prepare('SELECT COUNT(*) AS n, COUNT(DISTINCT row_index) AS d FROM clips').get() as { n: number; d: number };
      expect(count).toEqual({ n: N, d: N });
      expect((db.prepare('SELECT status FROM datasets').get() as { status: string }).status).toBe('ready');
    } finally {
      db.close();
    }
  }, 180_000);
});
