/**
 * Inference bench: audio-seconds per second for each built-in and fixture model on the
 * demo corpus (resources/demo/target, or generated clips when it is absent), the share of
 * wall time spent outside onnxruntime (decoding waits, front end, aggregation, storage),
 * and the cost of a second, fully cached run.
 *
 *   npx tsx bench/inference.ts [--provider auto|cpu|cuda|…] [--threads N]
 *
 * "Outside ORT" = (total − session set-up − time inside session.run) / (total − set-up).
 * Decoding runs in ffmpeg processes ahead of the model; only the time the model waits for
 * it counts. Prints one JSON document; never used as a timed test.
 */
import '../src/main/security/telemetry-off'; // first: onnxruntime-node's native telemetry off (src/main/security/telemetry.ts)
import { randomUUID, createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { embedDataset, importModel, type ProviderName } from '../src/main/inference';
import { inlineContext } from '../src/main/jobs/task';
import { openDatabase } from '../src/main/store/open';
import { projectMigrations } from '../src/main/store/schema';
import { buildWav2vec2Fixture, buildWhisperFixture } from '../test/fixtures/models/build';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function wav(samples: Float32Array): Buffer {
  const data = Buffer.alloc(samples.length * 2);
  samples.forEach((v, i) => data.writeInt16LE(Math.round(Math.max(-1, Math.min(1, v)) * 32767), i * 2));
  const h = Buffer.alloc(44);
  h.write('RIFF', 0); h.writeUInt32LE(36 + data.length, 4); h.write('WAVE', 8); h.write('fmt ', 12);
  h.writeUInt32LE(16, 16); h.writeUInt16LE(1, 20); h.writeUInt16LE(1, 22); h.writeUInt32LE(16000, 24);
  h.writeUInt32LE(32000, 28); h.writeUInt16LE(2, 32); h.writeUInt16LE(16, 34); h.write('data', 36); h.writeUInt32LE(data.length, 40);
  return Buffer.concat([h, data]);
}

async function main(): Promise<void> {
  const provider = (arg('provider') ?? 'auto') as ProviderName | 'auto';
  const threads = arg('threads') ? Number(arg('threads')) : undefined;
  const work = mkdtempSync(join(tmpdir(), 'equivox-bench-'));
  const home = join(work, 'home');
  let clips: string[];
  const demo = resolve('resources/demo/target');
  if (existsSync(demo)) clips = readdirSync(demo).filter((f) => /\.(opus|wav|flac|mp3)$/.test(f)).sort().map((f) => join(demo, f));
  else {
    mkdirSync(join(work, 'clips'));
    clips = Array.from({ length: 24 }, (_, k) => {
      const f = join(work, 'clips', `c${k}.wav`);
      writeFileSync(f, wav(Float32Array.from({ length: 48000 }, (_, i) => 0.3 * Math.sin((2 * Math.PI * (100 + 10 * k) * i) / 16000))));
      return f;
    });
  }
  const db = openDatabase(join(work, 'project.sqlite'), projectMigrations);
  const now = new Date().toISOString();
  db.prepare('INSERT INTO project (id, name, created_at) VALUES (?, ?, ?)').run(randomUUID(), 'bench', now);
  const datasetId = randomUUID();
  db.prepare(`INSERT INTO datasets (id, name, role, source_kind, source_path, status, created_at, updated_at) VALUES (?, 'bench', 'target', 'folder', ?, 'ready', ?, ?)`).run(datasetId, work, now, now);
  clips.forEach((f, i) =>
    db.prepare('INSERT INTO clips (id, dataset_id, row_index, path, rel_path, sha256) VALUES (?, ?, ?, ?, ?, ?)').run(randomUUID(), datasetId, i + 1, f, f, createHash('sha256').update(readFileSync(f)).digest('hex')),
  );
  const fixtures = join(work, 'fixtures');
  mkdirSync(fixtures);
  const models: { label: string; ref: string }[] = [
    { label: 'acoustic-baseline (built-in)', ref: 'acoustic-baseline' },
    { label: 'speech-embedding (built-in)', ref: 'speech-embedding' },
  ];
  const add = async (label: string, file: string, bytes: Uint8Array) => {
    writeFileSync(join(fixtures, file), bytes);
    models.push({ label, ref: (await importModel(home, { file: join(fixtures, file) })).id });
  };
  await add('tiny wav2vec2 fixture (test size: d32, 3 blocks)', 'tiny-w2v.onnx', buildWav2vec2Fixture());
  await add('wav2vec2 fixture, bench size (d384, 6 blocks, ffn 1536, conv 256)', 'bench-w2v.onnx', buildWav2vec2Fixture({ dim: 384, layers: 6, heads: 6, ffn: 1536, convDim: 256, seed: 7 }));
  await add('tiny Whisper fixture (d32, 2 blocks)', 'tiny-whisper.onnx', buildWhisperFixture());
  const rows = [];
  for (const m of models) {
    const first = await embedDataset(db, { dataDir: home, datasetId, model: m.ref, provider, ...(threads ? { threads } : {}) }, inlineContext());
    const t0 = performance.now();
    const second = await embedDataset(db, { dataDir: home, datasetId, model: m.ref }, inlineContext());
    const secondMs = performance.now() - t0;
    const t = first.timings;
    const net = t.totalMs - t.setupMs;
    rows.push({
      model: m.label,
      clips: first.clips,
      audioSeconds: Number(first.audioSeconds.toFixed(1)),
      audioSecondsPerSecond: Number((first.audioSecondsPerSecond ?? 0).toFixed(1)),
      provider: first.provider,
      shareOutsideOrt: Number(((net - t.ortMs) / net).toFixed(3)),
      breakdownMs: Object.fromEntries(Object.entries(t).map(([k, v]) => [k, Math.round(v)])),
      secondRunMs: Math.round(secondMs),
      secondRunShareOfFirst: Number((secondMs / t.totalMs).toFixed(3)),
      secondRunComputed: second.computed,
    });
    process.stderr.write(`${m.label}: ${rows[rows.length - 1]!.audioSecondsPerSecond} audio s/s, ${(rows[rows.length - 1]!.shareOutsideOrt * 100).toFixed(1)}% outside ORT\n`);
  }
  db.close();
  console.log(JSON.stringify({ corpus: existsSync(demo) ? 'resources/demo/target' : 'generated', rows }, null, 2));
}

void main();
