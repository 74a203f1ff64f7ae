import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/main/cli';
import { listClips } from '../../../src/main/data/repository';
import { attributeSets, designSpeatTest } from '../../../src/main/data/speat-design';
import { openDatabase } from '../../../src/main/store/open';
import { projectMigrations } from '../../../src/main/store/schema';
import type { ColumnMapping, DatasetFacts } from '../../../src/shared/api/datasets';

const demoDir = resolve(__dirname, '../../../resources/demo');
interface DemoJson {
  datasets: { name: string; role: string; manifest: string; mapping: ColumnMapping; expected: { clips: number; speakers: number } }[];
}
const demo = JSON.parse(readFileSync(join(demoDir, 'demo.json'), 'utf8')) as DemoJson;

let home: string;
const ids = new Map<string, string>();

async function cli(...argv: string[]): Promise<unknown> {
  let out = '';
  let err = '';
  const code = await runCli(argv, { stdout: (s) => (out += s), stderr: (s) => (err += s) });
  if (code !== 0) throw new Error(`cli ${argv.join(' ')} exited ${code}: ${err}${out}`);
  return JSON.parse(out);
}

function mapSpec(m: ColumnMapping): string {
  const parts = [`${m.path}=path`, ...m.groups.map((g) => `${g}=group`)];
  for (const k of ['speaker', 'transcript', 'valence', 'hypothesis'] as const) if (m[k]) parts.push(`${m[k]}=${k}`);
  return parts.join(',');
}

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'equivox-demo-'));
  process.env.EQUIVOX_HOME = join(home, 'data');
  await cli('projects', 'create', '--name', 'demo', '--dir', join(home, 'project'));
  for (const d of demo.datasets) {
    const r = (await cli('datasets', 'import', '--project', join(home, 'project'), '--manifest', join(demoDir, d.manifest), '--role', d.role, '--map', mapSpec(d.mapping), '--name', d.name)) as {
      datasetId: string;
      imported: number;
      failed: unknown[];
    };
    expect(r.failed, d.manifest).toEqual([]);
    expect(r.imported, d.manifest).toBe(d.expected.clips);
    ids.set(d.role, r.datasetId);
  }
}, 120_000);

afterAll(() => {
  delete process.env.EQUIVOX_HOME;
  rmSync(home, { recursive: true, force: true });
});

describe('the demo corpus', () => {
  it('is synthetic, documented and small', () => {
    expect(readFileSync(join(demoDir, 'README.md'), 'utf8')).toMatch(/synthetic/i);
    for (const d of demo.datasets) expect(existsSync(join(demoDir, d.manifest))).toBe(true);
  });

  it('imports through the CLI with zero failures and the documented facts', async () => {
    const list = (await cli('datasets', 'list', '--project', join(home, 'project'))) as { role: string; usable: number; status: string }[];
    expect(list.map((d) => d.role).sort()).toEqual(['asr', 'attribute', 'target', 'verification']);
    expect(list.every((d) => d.status === 'ready')).toBe(true);
    for (const d of demo.datasets) {
      const facts = (await cli('datasets', 'show', '--project', join(home, 'project'), '--id', ids.get(d.role)!)) as DatasetFacts;
      expect(facts.totals.usable).toBe(d.expected.clips);
      expect(facts.totals.speakers).toBe(d.expected.speakers);
      expect(facts.totals.excluded).toBe(0);
      expect(facts.totals.meanDurationS).toBeGreaterThan(1);
    }
    const target = (await cli('datasets', 'show', '--project', join(home, 'project'), '--id', ids.get('target')!)) as DatasetFacts;
    const g = (label: string, value: string) => target.groups.find((x) => x.label === label && x.value === value)!;
    for (const [label, value] of [['accent', 'us'], ['accent', 'uk'], ['gender', 'female'], ['gender', 'male'], ['rate', 'natural'], ['rate', 'slowed']]) {
      expect(g(label!, value!).clips).toBe(24);
    }
    expect(g('accent', 'us').speakers).toBe(6);
    expect(g('rate', 'slowed').meanDurationS).toBeGreaterThan(g('rate', 'natural').meanDurationS);
    expect(target.warnings).toEqual([]);
    const asr = (await cli('datasets', 'show', '--project', join(home, 'project'), '--id', ids.get('asr')!)) as DatasetFacts;
    expect(asr.warnings.filter((w) => w.code === 'small_group').length).toBe(asr.groups.length);
  });

  it('designs matched SpEAT tests and attribute sets from the imported data', () => {
    const db = openDatabase(join(home, 'project', 'project.sqlite'), projectMigrations);
    try {
      const target = listClips(db, ids.get('target')!);
      const d = designSpeatTest(target, { label: 'rate', x: 'natural', y: 'slowed', matchOn: ['accent', 'gender'], perCell: 5, seed: 7 });
      expect(d.cells).toHaveLength(4);
      expect(d.X).toHaveLength(20);
      expect(d.Y).toHaveLength(20);
      d.X.forEach((x, i) => {
        expect(x.groups.rate).toBe('natural');
        expect(d.Y[i]!.groups.rate).toBe('slowed');
        expect(x.groups.accent).toBe(d.Y[i]!.groups.accent);
        expect(x.groups.gender).toBe(d.Y[i]!.groups.gender);
      });
      // Slowed speech is longer: the duration confound check must see it. Both groups read the
      // demo's 8 sentences, so it pairs by sentence (df 7), not X[i] with Y[i].
      expect(d.durationCheck).toMatchObject({ test: 'paired-t', unit: 'sentence', units: { x: 8, y: 8 }, df: 7 });
      expect(d.durationCheck!.meanDifference).toBeLessThan(0);
      expect(d.durationCheck!.pValue).toBeLessThan(0.01);
      expect(d.warnings).toEqual([]);
      const again = designSpeatTest(target, { label: 'rate', x: 'natural', y: 'slowed', matchOn: ['accent', 'gender'], perCell: 5, seed: 7 });
      expect(again.X.map((c) => c.id)).toEqual(d.X.map((c) => c.id));

      const attr = listClips(db, ids.get('attribute')!);
      const sets = attributeSets(attr, 4);
      const speakers = new Set(attr.map((c) => c.speaker));
      expect(sets.speakers).toHaveLength(speakers.size);
      expect(sets.A).toHaveLength(4 * speakers.size);
      expect(sets.B).toHaveLength(4 * speakers.size);
      expect(Math.min(...sets.A.map((c) => c.valence!))).toBeGreaterThan(Math.max(...sets.B.map((c) => c.valence!)));
      expect(sets.A.every((c) => c.metadata.polarity === 'positive')).toBe(true);
      expect(sets.B.every((c) => c.metadata.polarity === 'negative')).toBe(true);
    } finally {
      db.close();
    }
  });
});
