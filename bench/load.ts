/**
 * Load bench (issue 9): "a project with 20,000 clips and 5 models stays responsive".
 *
 *   npx tsx bench/load.ts [--clips 20000] [--embedded 4000] [--layers 13] [--dim 256] [--permutations 1000]
 *
 * Builds a temp project with SQL inserts (no audio, fake SHA-256s): a target dataset and
 * an attribute dataset (valence-rated, 20 clips per speaker) totalling --clips rows, and 5
 * fake models with embeddings for the --embedded clips a SpEAT/SER audit would read (half
 * attribute, half target). Embeddings for every clip × model at wav2vec2-base size (13 ×
 * 768 floats × mean/min/max = 120 kB a row, 12 GB in all) are not feasible in a bench, so
 * the default is 13 layers × 256 dims (40 kB a row, 800 MB for 4,000 clips × 5 models).
 *
 * Prints wall time and the process's peak RSS after each step: listClips, datasetFacts,
 * the `datasets.list` and `datasets.show` API operations (and the size of their JSON), and a
 * SpEAT section over the 5 models. Figures only; tests never assert timings.
 */
import '../src/main/security/telemetry-off'; // first: onnxruntime-node's native telemetry off (src/main/security/telemetry.ts)
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { designTests, runSpeat } from '../src/main/audits/speat-audit';
import { datasetFacts, listClips } from '../src/main/data/repository';
import type { ModelManifest } from '../src/main/inference';
import { buildContext, fakeManifest, insertDataset, type FakeModel, type FixtureClip } from '../test/unit/audits/fixture';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

const CLIPS = arg('clips', 20_000);
const EMBEDDED = arg('embedded', 4_000);
const LAYERS = arg('layers', 13);
const DIM = arg('dim', 256);
const PERMUTATIONS = arg('permutations', 1000);
const MODELS = 5;

const mb = (kib: number) => `${(kib / 1024).toFixed(0)} MB`;
const t0 = performance.now();
let last = t0;
function step(label: string, extra = ''): void {
  const now = performance.now();
  const rss = process.resourceUsage().maxRSS;
  process.stdout.write(`${label.padEnd(48)} ${((now - last) / 1000).toFixed(2).padStart(7)} s   peak RSS ${mb(rss).padStart(7)}${extra ? `   ${extra}` : ''}\n`);
  last = now;
}

/** Deterministic pseudo-random floats (xorshift32). */
function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
}

async function main(): Promise<void> {
  const home = mkdtempSync(join(tmpdir(), 'equivox-load-home-'));
  process.env.EQUIVOX_HOME = home;
  // Imported after EQUIVOX_HOME is set: the engine reads it.
  const { createEngine } = await import('../src/main/engine');
  const { createApi } = await import('../src/main/api');
  const engine = createEngine({ host: 'cli' });
  const api = createApi(engine);
  const projectDir = join(mkdtempSync(join(tmpdir(), 'equivox-load-')), 'p');
  const project = await api.invoke('projects.create', { name: 'Load bench', dir: projectDir });
  const db = engine.store.db(project.id);
  process.stdout.write(`project ${projectDir}: ${CLIPS} clips, ${MODELS} models, embeddings ${EMBEDDED} clips × ${LAYERS}×${DIM} floats × 3\n`);
  step('create project');

  // Attribute dataset: 20 rated clips per speaker. Target dataset: the rest; only the first
  // EMBEDDED/2 carry an accent label, so SpEAT reads just the clips that have embeddings.
  const nAttr = Math.min(EMBEDDED / 2, CLIPS / 2);
  const nTarget = CLIPS - nAttr;
  const r = rng(7);
  const attrClips: FixtureClip[] = Array.from({ length: nAttr }, (_, i) => ({
    speaker: `as${Math.floor(i / 20)}`,
    valence: Math.round(r() * 80) / 10 + 1,
    transcript: `attribute sentence ${i}`,
    sha256: createHash('sha256').update(`attr-${i}`).digest('hex'),
    durationS: 1 + r() * 4,
  }));
  const targetClips: FixtureClip[] = Array.from({ length: nTarget }, (_, i) => ({
    speaker: `ts${i % 500}`,
    groups: { gender: i % 2 ? 'female' : 'male', ...(i < EMBEDDED / 2 ? { accent: i % 4 < 2 ? 'north' : 'south' } : {}) },
    transcript: `target sentence number ${i} with a few more words`,
    sha256: createHash('sha256').update(`target-${i}`).digest('hex'),
    durationS: 1 + r() * 6,
  }));
  const attr = db.transaction(() => insertDataset(db, 'attribute', attrClips))();
  const target = db.transaction(() => insertDataset(db, 'target', targetClips))();
  step(`insert ${CLIPS} clip rows (2 datasets)`);

  const models: FakeModel[] = Array.from({ length: MODELS }, (_, k) => ({
    id: createHash('sha256').update(`model-${k}`).digest('hex'),
    settingsKey: 'v1|bench|hf-states|chunk=30s',
    dims: Array.from({ length: LAYERS }, () => DIM),
  }));
  const embedShas = [...attr.shas, ...target.shas.slice(0, EMBEDDED - nAttr)];
  const width = LAYERS * DIM;
  const insert = db.prepare(
    `INSERT INTO embeddings (audio_sha256, model_sha256, settings_key, layer_count, dims_json, frames, mean, min, max, provider, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'bench', ?)`,
  );
  const now = new Date().toISOString();
  const buf = new Float32Array(width);
  for (const [k, m] of models.entries()) {
    const rr = rng(100 + k);
    db.transaction(() => {
      for (const sha of embedShas) {
        for (let j = 0; j < width; j += 1) buf[j] = rr() * 2 - 1;
        const blob = Buffer.from(buf.buffer.slice(0));
        insert.run(sha, m.id, m.settingsKey, LAYERS, JSON.stringify(m.dims), 50, blob, blob, blob, now);
      }
    })();
  }
  step(`insert ${embedShas.length * MODELS} embedding rows`, `${((embedShas.length * MODELS * width * 4 * 3) / 2 ** 20).toFixed(0)} MB of blobs`);

  const all = listClips(db, target.id, { includeExcluded: true });
  step(`listClips(target) → ${all.length} clips`);
  const facts = datasetFacts(db, target.id);
  step(`datasetFacts(target)`, `${facts.groups.length} groups, ${facts.report.length} report rows`);
  const list = await api.invoke('datasets.list', { projectId: project.id });
  step('api datasets.list', `${JSON.stringify(list).length} bytes of JSON`);
  const shown = await api.invoke('datasets.show', { projectId: project.id, datasetId: target.id });
  step('api datasets.show (target, no issues)', `${JSON.stringify(shown).length} bytes of JSON`);
  // Worst case for datasets.show: every clip carries a warning, so the validation report lists all of them.
  db.prepare(`UPDATE clips SET status = 'warning', issues_json = ? WHERE dataset_id = ?`).run(
    JSON.stringify([{ code: 'narrowband', severity: 'warning', message: 'narrowband: recorded at 8000 Hz (telephone bandwidth); differences between groups may reflect the channel rather than the speakers' }]),
    target.id,
  );
  const worst = await api.invoke('datasets.show', { projectId: project.id, datasetId: target.id });
  step(`api datasets.show (every clip warned)`, `${worst.report.length} report rows, ${(JSON.stringify(worst).length / 2 ** 20).toFixed(1)} MB of JSON`);
  db.prepare(`UPDATE clips SET status = 'ok', issues_json = '[]' WHERE dataset_id = ?`).run(target.id);

  const manifests = new Map<string, ModelManifest>(models.map((m, k) => [`m${k}`, fakeManifest(m, `Bench model ${k}`)]));
  const plan = {
    title: 'Load bench',
    sections: ['speat' as const],
    models: [...manifests.keys()],
    speat: {
      attributeDataset: attr.id,
      attributePerSpeaker: 5,
      temporal: 'mean' as const,
      layer: 'last' as const,
      permutations: PERMUTATIONS,
      bootstrap: 0,
      sampleSizes: [8, 16],
      tests: [
        { id: 'accent', name: 'north vs south', targetDataset: target.id, x: { label: 'accent', value: 'north' }, y: { label: 'accent', value: 'south' } },
      ],
    },
  };
  const { ctx } = buildContext(db, plan, manifests);
  const tests = designTests(ctx);
  step('SpEAT design', `X ${tests[0]!.design.X.length}, Y ${tests[0]!.design.Y.length}, A ${tests[0]!.A.length}, B ${tests[0]!.B.length}`);
  const section = await runSpeat(ctx, tests);
  step(`SpEAT section (${MODELS} models, ${PERMUTATIONS} permutations)`, `${section.results.length} results`);

  process.stdout.write(`total ${((performance.now() - t0) / 1000).toFixed(1)} s, peak RSS ${mb(process.resourceUsage().maxRSS)}\n`);
  process.stdout.write(
    'renderer: the dataset list and validation report render with row virtualisation (UI engineer), so a 20,000-row table mounts only the visible rows; ' +
      'the figures above are the engine side the renderer waits for.\n',
  );
  await engine.close();
  rmSync(projectDir, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
}

void main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exitCode = 1;
});

