/**
 * Inference bench (`npm run bench:inference`). Prints figures; asserts nothing.
 *
 * 1. Against eager PyTorch (with --skip-torch, against the bare loop only). A base-size wav2vec2 (12 blocks × 768, random weights,
 *    exported by torch 1.13: test/fixtures/models/export_torch.py --bench), 40 clips of
 *    4 s (16 kHz mono WAV), clip by clip. Interleaved rounds of
 *      - `equivox embed` (node out/cli/equivox.mjs, process start included, default
 *        settings: every physical core, the 13 hidden states and their mean/min/max stored),
 *      - eager PyTorch (bench/inference_torch.py: the same weights, the same threads,
 *        OMP_WAIT_POLICY=PASSIVE, the same 13 states and their mean/min/max),
 *      - onnxruntime alone, as its perf_test measures a graph (a process of its own, the
 *        same graph file equivox sets up and the same session options, inputs prepared
 *        beforehand, a warm-up run, then a bare session.run loop, nothing stored): the
 *        physical reference.
 *    Audio seconds per second of wall time for each; with GNU time, CPU seconds too. Per
 *    round, a timeline of equivox's wall clock beside the bare loop's: outside the job
 *    (process start, modules, database, exit), model setup, session.run, the time the
 *    onnxruntime thread sat idle between runs (decode wait, front end, pooling, store,
 *    the rest), the model's release; and a hash of the stored embeddings (the same before
 *    and after a change that keeps the numbers). Spin-waiting is decided once per round and
 *    given to equivox and the bare loop alike. At the end, issue 36's wall-clock ratios,
 *    the median of the rounds' ratios with the load: equivox / the bare loop (goal ≤ 1.05;
 *    for the whole process and for the job alone, whose model is set up as the bare loop's
 *    is) and PyTorch / equivox (goal ≥ 1.3). Default 3 rounds.
 * 2. Whisper's key/value cache: a whisper-tiny layout (random weights) decoding a 30 s clip
 *    with the cache (merged decoder) and without it; the speed-up and whether the tokens agree.
 * 3. Memory for long recordings: peak RSS of `equivox embed` on a 1-minute and a 1-hour
 *    WAV (the chunking rule streams both in 30 s chunks; the small test encoder from
 *    test/fixtures/models/build.ts keeps the hour quick).
 * 4. With --models: audio seconds per second of each built-in and fixture model on the
 *    demo corpus, the share of time outside onnxruntime, and the cost of a cached re-run.
 *
 *   npx tsx bench/inference.ts [--rounds N] [--clips N] [--skip-torch] [--skip-whisper] [--skip-long] [--models] [--root DIR]
 *
 * --root DIR: `equivox embed` is another checkout's bin (built there first), e.g. main's for a before/after.
 *
 * PyTorch's speed depends on its BLAS. Debian's python3-torch uses whichever libblas.so.3
 * the system selects; the reference (netlib) one is several times slower than OpenBLAS
 * and would make the comparison meaningless. The bench uses OpenBLAS when it is installed
 * (libopenblas0-pthread) or when EQUIVOX_BENCH_BLAS_DIR names a folder holding its
 * libblas.so.3, and says which it used.
 */
import '../src/main/security/telemetry-off'; // first: onnxruntime-node's native telemetry off (src/main/security/telemetry.ts)
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import * as ort from '../src/main/inference/ort';
import { decodeAudio } from '../src/main/audio';
import { pcm16WavHeader } from '../src/main/audio/wav';
import { createRecognizer, embedDataset, importModel, type ProviderName } from '../src/main/inference';
import { normalizeWaveform } from '../src/main/inference/frontends';
import { allowSpinning, createSession, defaultThreads } from '../src/main/inference/providers';
import { runnableGraph } from '../src/main/inference/runnable-graph';
import { inlineContext } from '../src/main/jobs/task';
import { openDatabase } from '../src/main/store/open';
import { projectMigrations } from '../src/main/store/schema';
import { buildWav2vec2Fixture, buildWhisperFixture } from '../test/fixtures/models/build';

const root = resolve(import.meta.dirname, '..');
// --root DIR times another checkout's bin (before/after: a copy of main with node_modules linked).
const cliRoot = resolve(process.argv.includes('--root') ? process.argv[process.argv.indexOf('--root') + 1]! : root);
const cli = join(cliRoot, 'out/cli/equivox.mjs');
const SR = 16000;

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
const flag = (name: string) => process.argv.includes(`--${name}`);

const wavHeader = (samples: number): Buffer => pcm16WavHeader(samples, SR);

/** A speech-like test signal (harmonics, slow envelope, noise), written block by block so an hour never sits in memory. */
function writeClip(file: string, seconds: number, f0: number, seed: number): void {
  const n = Math.round(seconds * SR);
  const fd = openSync(file, 'w');
  writeSync(fd, wavHeader(n));
  let s = seed >>> 0;
  const block = Buffer.alloc(SR * 2 * 10);
  for (let start = 0; start < n; start += SR * 10) {
    const m = Math.min(SR * 10, n - start);
    for (let i = 0; i < m; i += 1) {
      s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
      const t = (start + i) / SR;
      let v = 0;
      for (let h = 1; h <= 5; h += 1) v += Math.sin(2 * Math.PI * f0 * h * t) / h;
      v = 0.2 * v * (0.6 + 0.4 * Math.sin(2 * Math.PI * 3 * t)) + 0.02 * (s / 4294967296 - 0.5);
      block.writeInt16LE(Math.max(-32768, Math.min(32767, Math.round(v * 32767))), i * 2);
    }
    writeSync(fd, block, 0, m * 2);
  }
  closeSync(fd);
}

interface Timed {
  wallS: number;
  cpuS: number | null;
  maxRssMb: number | null;
  stdout: string;
  stderr: string;
  ok: boolean;
}

const gnuTime = existsSync('/usr/bin/time') && spawnSync('/usr/bin/time', ['-f', '%e', 'true']).status === 0;

/** Run a command; with GNU time also its CPU seconds and peak RSS. */
function timed(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env): Timed {
  const statsFile = join(tmpdir(), `equivox-bench-time-${process.pid}`);
  const t0 = performance.now();
  const r = gnuTime
    ? spawnSync('/usr/bin/time', ['-o', statsFile, '-f', '%U %S %M', cmd, ...args], { encoding: 'utf8', env, maxBuffer: 1 << 26 })
    : spawnSync(cmd, args, { encoding: 'utf8', env, maxBuffer: 1 << 26 });
  const wallS = (performance.now() - t0) / 1000;
  let cpuS: number | null = null;
  let maxRssMb: number | null = null;
  if (gnuTime && existsSync(statsFile)) {
    const [u, s, m] = readFileSync(statsFile, 'utf8').trim().split(/\s+/).slice(-3).map(Number);
    cpuS = u! + s!;
    maxRssMb = m! / 1024;
    rmSync(statsFile, { force: true });
  }
  return { wallS, cpuS, maxRssMb, stdout: r.stdout ?? '', stderr: r.stderr ?? '', ok: r.status === 0 };
}

function cliJson<T>(home: string, args: string[]): T {
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', env: { ...process.env, EQUIVOX_HOME: home }, maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`equivox ${args.join(' ')} failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

/** The bench model, exported once and cached by the export script's hash. */
function benchModel(): string | null {
  const script = join(root, 'test/fixtures/models/export_torch.py');
  const hash = createHash('sha256').update(readFileSync(script)).digest('hex').slice(0, 16);
  const dir = join(root, 'test/fixtures/models/.torch-export', `bench-${hash}`);
  if (existsSync(join(dir, 'index.json'))) return dir;
  const py = process.env.EQUIVOX_TORCH_PYTHON ?? '/usr/bin/python3';
  process.stderr.write(`exporting the base-size wav2vec2 with ${py} (once; cached in ${dir})\n`);
  const tmp = `${dir}.tmp-${process.pid}`;
  const r = spawnSync(py, [script, '--bench', tmp], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (r.status !== 0) return null;
  mkdirSync(join(root, 'test/fixtures/models/.torch-export'), { recursive: true });
  renameSync(tmp, dir);
  return dir;
}

/** LD_LIBRARY_PATH for an OpenBLAS libblas.so.3, and words for the report. */
function blasFor(): { env: NodeJS.ProcessEnv; note: string } {
  const candidates = [process.env.EQUIVOX_BENCH_BLAS_DIR, '/usr/lib/x86_64-linux-gnu/openblas-pthread', '/usr/lib/aarch64-linux-gnu/openblas-pthread'].filter((d): d is string => !!d);
  const dir = candidates.find((d) => existsSync(join(d, 'libblas.so.3')));
  if (dir) return { env: { LD_LIBRARY_PATH: [dir, process.env.LD_LIBRARY_PATH].filter(Boolean).join(':') }, note: `OpenBLAS (${dir}/libblas.so.3)` };
  let selected = 'unknown';
  try {
    selected = realpathSync('/usr/lib/x86_64-linux-gnu/libblas.so.3');
  } catch {
    // not Debian-like
  }
  return {
    env: {},
    note: `the system libblas.so.3 (${selected})${/\/blas\/libblas/.test(selected) ? ' — the reference BLAS, several times slower than OpenBLAS: install libopenblas0-pthread or set EQUIVOX_BENCH_BLAS_DIR for a fair baseline' : ''}`,
  };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/**
 * The physical reference, as onnxruntime's perf_test measures a graph: the same graph and
 * session options, inputs prepared beforehand (decoded and normalised), one warm-up run
 * untimed, then a bare loop of session.run over the same clips, nothing stored.
 */
async function ortAlone(modelFile: string, inputName: string, outputs: string[], clips: string[], threads: number): Promise<{ wallS: number; audioS: number; cpuS: number; setupS: number; warmS: number; stateMb: number }> {
  const audio = await Promise.all(clips.map(async (c) => normalizeWaveform((await decodeAudio(c)).samples)));
  const ts = performance.now();
  const { session } = await createSession(modelFile, { provider: 'cpu', threads });
  const setupS = (performance.now() - ts) / 1000;
  const tw = performance.now();
  const warm = await session.run({ [inputName]: new ort.Tensor('float32', audio[0]!, [1, audio[0]!.length]) }, outputs);
  const warmS = (performance.now() - tw) / 1000;
  // What the binding copies out of onnxruntime per clip (every requested state, as in equivox).
  const stateMb = Object.values(warm).reduce((a, t) => a + (t.data as Float32Array).byteLength, 0) / 2 ** 20;
  for (const k of Object.keys(warm)) warm[k]!.dispose?.();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  let audioS = 0;
  for (const x of audio) {
    const r = await session.run({ [inputName]: new ort.Tensor('float32', x, [1, x.length]) }, outputs);
    for (const k of Object.keys(r)) r[k]!.dispose?.();
    audioS += x.length / SR;
  }
  const wallS = (performance.now() - t0) / 1000;
  const c = process.cpuUsage(c0);
  await session.release();
  return { wallS, audioS, cpuS: (c.user + c.system) / 1e6, setupS, warmS, stateMb };
}

/** ortAlone in a fresh process (this script with --bare-loop, under the same loader), with this process's environment: the round's spin-waiting included. */
function bareLoop(a: { model: string; inputName: string; outputs: string[]; clips: string[]; threads: number }): Awaited<ReturnType<typeof ortAlone>> {
  const r = spawnSync(process.execPath, [...process.execArgv, import.meta.filename, '--bare-loop', JSON.stringify(a)], { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (r.status !== 0) throw new Error(`the bare onnxruntime loop failed: ${r.stderr.slice(-2000)}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Awaited<ReturnType<typeof ortAlone>>;
}

async function torchComparison(work: string): Promise<void> {
  const modelDir = benchModel();
  if (!modelDir) {
    console.log('PyTorch comparison: skipped (the base-size wav2vec2 could not be exported: is python3-torch installed?)');
    return;
  }
  const nClips = Number(arg('clips') ?? 40);
  const rounds = Number(arg('rounds') ?? 3);
  const threads = defaultThreads();
  const clipsDir = join(work, 'clips');
  mkdirSync(clipsDir);
  const clips = Array.from({ length: nClips }, (_, k) => {
    const f = join(clipsDir, `c${String(k).padStart(2, '0')}.wav`);
    writeClip(f, 4, 100 + 5 * k, k + 1);
    return f;
  });
  const home = join(work, 'home');
  const project = join(work, 'project');
  process.stderr.write('importing the base-size model (verification included; once)\n');
  cliJson(home, ['projects', 'create', '--name', 'bench', '--dir', project]);
  const ds = { id: cliJson<{ datasetId: string }>(home, ['datasets', 'import', '--project', project, '--folder', clipsDir, '--role', 'target']).datasetId };
  const model = cliJson<{ id: string }>(home, ['models', 'import', '--folder', modelDir]);
  const manifest = JSON.parse(readFileSync(join(home, 'models', model.id, 'manifest.json'), 'utf8')) as { states: { output: string }[]; inputName: string };
  const derivedFile = join(home, 'models', model.id, 'derived.onnx');
  const blas = blasFor();
  const torchEnv = { ...process.env, ...blas.env, OMP_WAIT_POLICY: 'PASSIVE', OMP_NUM_THREADS: String(threads), OPENBLAS_NUM_THREADS: String(threads) };
  const py = process.env.EQUIVOX_TORCH_PYTHON ?? '/usr/bin/python3';
  const rows: {
    round: number;
    load: string;
    equivox: number;
    equivoxJob: number;
    equivoxCpuPerAudioS: number | null;
    torchLoop: number;
    torchWhole: number;
    torchCpuPerAudioS: number | null;
    ortAlone: number;
    ortCpuPerAudioS: number;
    /** Wall seconds: equivox's process, its job after model setup, PyTorch's clip loop and process, the bare loop. */
    wall: { equivox: number; equivoxJob: number; torchLoop: number; torchWhole: number; bare: number; bareWithSetup: number };
  }[] = [];
  const spinAsked = process.env.EQUIVOX_ORT_SPIN;
  for (let round = 1; round <= rounds; round += 1) {
    const load = loadNow();
    // Spin-waiting is decided once per round, as equivox would decide it now, and given to
    // equivox and the bare loop alike: deciding it separately, a load average crossing the
    // core count between the two would compare a spinning session with a sleeping one.
    const spin = allowSpinning() ? '1' : '0';
    process.env.EQUIVOX_ORT_SPIN = spin;
    // Forget the previous round's embeddings so embed computes every clip again.
    const db = openDatabase(join(project, 'project.sqlite'), projectMigrations);
    db.prepare('DELETE FROM embeddings').run();
    db.close();
    const eq = timed(process.execPath, [cli, 'embed', '--project', project, '--dataset', ds.id, '--model', model.id], { ...process.env, EQUIVOX_HOME: home, EQUIVOX_ORT_SPIN: spin });
    if (!eq.ok) throw new Error(`equivox embed failed: ${eq.stderr}`);
    const summary = JSON.parse(eq.stdout) as { audioSeconds: number; computed: number; provider: string; timings: Record<string, number> };
    const stored = storedHash(join(project, 'project.sqlite'));
    // --skip-torch: equivox against the bare loop only (PyTorch's side reads NaN).
    const th = flag('skip-torch') ? { ok: true, wallS: NaN, cpuS: NaN, stdout: '{"audioSeconds":NaN,"loopSeconds":NaN}', stderr: '' } : timed(py, [join(root, 'bench/inference_torch.py'), modelDir, String(threads), ...clips], torchEnv);
    if (!th.ok) throw new Error(`PyTorch baseline failed: ${th.stderr.slice(-2000)}`);
    const t = (flag('skip-torch') ? { audioSeconds: NaN, loopSeconds: NaN } : JSON.parse(th.stdout.trim().split('\n').pop()!)) as { audioSeconds: number; loopSeconds: number };
    // The graph equivox sets up: the stored graph's runnable form where it exists (inference/runnable-graph.ts).
    const alone = bareLoop({ model: runnableGraph(derivedFile) ?? derivedFile, inputName: manifest.inputName, outputs: manifest.states.map((s) => s.output), clips, threads });
    if (spinAsked === undefined) delete process.env.EQUIVOX_ORT_SPIN;
    else process.env.EQUIVOX_ORT_SPIN = spinAsked;
    const jobS = (summary.timings.totalMs! - (summary.timings.setupMs ?? 0)) / 1000;
    const row = {
      round,
      load: `${load}, spin-waiting ${spin === '1' ? 'on' : 'off'}`,
      wall: { equivox: eq.wallS, equivoxJob: jobS, torchLoop: t.loopSeconds, torchWhole: th.wallS, bare: alone.wallS, bareWithSetup: alone.setupS + alone.warmS + alone.wallS },
      equivox: summary.audioSeconds / eq.wallS,
      // The embedding job alone (model setup excluded, as the bare loop excludes it): decode, front end, onnxruntime, aggregation, storing.
      equivoxJob: summary.audioSeconds / jobS,
      equivoxCpuPerAudioS: eq.cpuS !== null ? eq.cpuS / summary.audioSeconds : null,
      torchLoop: t.audioSeconds / t.loopSeconds,
      torchWhole: t.audioSeconds / th.wallS,
      torchCpuPerAudioS: th.cpuS !== null ? th.cpuS / t.audioSeconds : null,
      ortAlone: alone.audioS / alone.wallS,
      ortCpuPerAudioS: alone.cpuS / alone.audioS,
    };
    rows.push(row);
    process.stderr.write(
      `round ${round}: equivox embed ${row.equivox.toFixed(2)} audio s/s (${summary.computed} clips, ${summary.provider}; stored embeddings sha256 ${stored}); ` +
        `PyTorch ${row.torchLoop.toFixed(2)} (clip loop) / ${row.torchWhole.toFixed(2)} (process start included); onnxruntime alone ${row.ortAlone.toFixed(2)}\n` +
        `  equivox: ${eq.wallS.toFixed(2)} s wall, of which before the job ${(eq.wallS - summary.timings.totalMs! / 1000).toFixed(2)} s (process start, modules, database); ` +
        `job ${Object.entries(summary.timings).map(([k, v]) => `${k.replace(/Ms$/, '')} ${(v / 1000).toFixed(2)}`).join(', ')} s\n` +
        timeline(eq.wallS, eq.cpuS, summary.timings, summary.computed, alone, row.load),
    );
  }
  const setup = await setupComparison(derivedFile, manifest.inputName, manifest.states.map((s) => s.output), clips[0]!, threads);
  const load = loadNow();
  const eqM = median(rows.map((r) => r.equivox));
  const tM = median(rows.map((r) => r.torchLoop));
  console.log(`PyTorch comparison: base-size wav2vec2 (12 × 768, random weights, exported by torch ${JSON.parse(readFileSync(join(modelDir, 'index.json'), 'utf8')).torch ?? '?'}), ${nClips} clips of 4 s, ${threads} thread(s) each side, ${rounds} interleaved round(s); load average now ${load}`);
  console.log(`  session setup, the same session options: ${setup}`);
  console.log(`  PyTorch BLAS: ${blas.note}; spin-waiting in onnxruntime (decided per run from the load average) would now be ${allowSpinning() ? 'on' : 'off'}`);
  console.log(`  equivox embed (process start included, default settings): ${rows.map((r) => r.equivox.toFixed(2)).join(', ')} audio s/s`);
  console.log(`  eager PyTorch, clip loop only:                         ${rows.map((r) => r.torchLoop.toFixed(2)).join(', ')} audio s/s`);
  console.log(`  eager PyTorch, process start included:                 ${rows.map((r) => r.torchWhole.toFixed(2)).join(', ')} audio s/s`);
  console.log(`  onnxruntime alone (pre-decoded clips, nothing stored): ${rows.map((r) => r.ortAlone.toFixed(2)).join(', ')} audio s/s`);
  if (rows.every((r) => r.equivoxCpuPerAudioS !== null)) {
    console.log(
      `  CPU seconds per audio second (less sensitive to other load): equivox ${rows.map((r) => r.equivoxCpuPerAudioS!.toFixed(3)).join(', ')} (process start included); ` +
        `PyTorch ${rows.map((r) => r.torchCpuPerAudioS!.toFixed(3)).join(', ')} (process start included); onnxruntime alone ${rows.map((r) => r.ortCpuPerAudioS.toFixed(3)).join(', ')}`,
    );
    const cpuRatio = median(rows.map((r) => r.torchCpuPerAudioS!)) / median(rows.map((r) => r.equivoxCpuPerAudioS!));
    console.log(`  ratio of CPU cost, PyTorch / equivox (medians): ${cpuRatio.toFixed(2)}`);
  }
  console.log(`  ratio equivox / PyTorch clip loop (medians): ${(eqM / tM).toFixed(2)} (required ≥ 1.0, goal 1.3); per round: ${rows.map((r) => (r.equivox / r.torchLoop).toFixed(2)).join(', ')}`);
  const oM = median(rows.map((r) => r.ortAlone));
  const jM = median(rows.map((r) => r.equivoxJob));
  console.log(`  equivox embedding job alone (model setup excluded): ${rows.map((r) => r.equivoxJob.toFixed(2)).join(', ')} audio s/s`);
  console.log(
    `  ratio equivox / bare onnxruntime loop (medians): ${(eqM / oM).toFixed(2)} with process start and model setup, ${(jM / oM).toFixed(2)} for the job alone (goal: within 10%, ≥ 0.90); per round: ${rows.map((r) => (r.equivox / r.ortAlone).toFixed(2)).join(', ')}`,
  );
  // Issue 36's two goals, on the wall clock, median of the rounds' ratios (each round's figures
  // were taken back to back, so a ratio compares like with like under that round's load).
  const perRound = (f: (w: (typeof rows)[0]['wall']) => number) => rows.map((r) => f(r.wall));
  const show = (xs: number[]) => `${median(xs).toFixed(3)} (rounds: ${xs.map((x) => x.toFixed(3)).join(', ')})`;
  console.log(`  wall-clock ratios, median of ${rows.length} round(s) at load ${rows.map((r) => r.load.split(' ')[0]).join(', ')}:`);
  // Like with like: both without the model's setup, or both with it (equivox's side also
  // counts Node's start, its modules and the project's checks, the bare loop's nothing of that).
  console.log(`    equivox embedding job (model set up, as the bare loop's is) / bare onnxruntime loop: ${show(perRound((w) => w.equivoxJob / w.bare))}  goal ≤ 1.05`);
  console.log(`    equivox embed whole process / bare loop with its session setup and warm-up run:    ${show(perRound((w) => w.equivox / w.bareWithSetup))}  goal ≤ 1.05`);
  console.log(`    (equivox embed whole process / bare loop without its setup: ${show(perRound((w) => w.equivox / w.bare))}; unlike things: process start and model setup on one side only)`);
  console.log(`    eager PyTorch (OpenBLAS or as above) clip loop / equivox embed whole process:    ${show(perRound((w) => w.torchLoop / w.equivox))}  goal ≥ 1.3`);
  console.log(`    eager PyTorch whole process / equivox embed whole process:                     ${show(perRound((w) => w.torchWhole / w.equivox))}`);
}

/**
 * Session setup from the stored derived graph against its runnable form (weights in a
 * mapped file beside the graph, inference/runnable-graph.ts), alternating, 2 each, and
 * whether one clip's outputs are the same bytes from both.
 */
async function setupComparison(derivedFile: string, inputName: string, outputs: string[], clip: string, threads: number): Promise<string> {
  const runnable = runnableGraph(derivedFile);
  if (!runnable) return 'no runnable form in the store (the import did not write one)';
  const x = normalizeWaveform((await decodeAudio(clip)).samples);
  const times: Record<string, number[]> = { derived: [], runnable: [] };
  const hashes: Record<string, string> = {};
  for (let k = 0; k < 2; k += 1) {
    for (const [label, file] of [['derived', derivedFile], ['runnable', runnable]] as const) {
      const t0 = performance.now();
      const { session } = await createSession(file, { provider: 'cpu', threads });
      times[label]!.push((performance.now() - t0) / 1000);
      const r = await session.run({ [inputName]: new ort.Tensor('float32', x, [1, x.length]) }, outputs);
      const h = createHash('sha256');
      for (const o of outputs) h.update(r[o]!.data as Float32Array);
      hashes[label] = h.digest('hex').slice(0, 16);
      await session.release();
    }
  }
  const mb = (f: string) => (statSync(f).size / 2 ** 20).toFixed(0);
  return (
    `derived.onnx (${mb(derivedFile)} MB, weights inside) ${times.derived!.map((t) => t.toFixed(2)).join(', ')} s; ` +
    `runnable form (${mb(runnable)} MB graph + mapped weights) ${times.runnable!.map((t) => t.toFixed(2)).join(', ')} s; ` +
    `one clip's ${outputs.length} states ${hashes.derived === hashes.runnable ? `byte-identical (sha256 ${hashes.derived})` : `DIFFER (${hashes.derived} vs ${hashes.runnable})`}`
  );
}

/** SHA-256 of every stored embedding (clip hash, frames, mean, min, max bytes, in clip-hash order): the same from run to run and before/after a change that keeps the numbers. */
function storedHash(dbFile: string): string {
  const db = openDatabase(dbFile, projectMigrations);
  try {
    const h = createHash('sha256');
    const rows = db.prepare('SELECT audio_sha256, frames, dims_json, mean, min, max FROM embeddings ORDER BY audio_sha256').all() as { audio_sha256: string; frames: number; dims_json: string; mean: Buffer; min: Buffer; max: Buffer }[];
    for (const r of rows) h.update(`${r.audio_sha256} ${r.frames} ${r.dims_json}\n`).update(r.mean).update(r.min).update(r.max);
    return `${h.digest('hex').slice(0, 16)} (${rows.length} rows)`;
  } finally {
    db.close();
  }
}

function loadNow(): string {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {
    return 'unknown';
  }
}

/**
 * Where equivox's wall clock went in one round, beside the bare loop's: the process before
 * the job, the model's setup, onnxruntime's time in session.run, and the time the
 * onnxruntime thread sat idle between clips, by what the engine was doing (waiting for a
 * decode, the front end, pooling the states, storing them, the rest: progress, checks, GC).
 */
function timeline(
  wallS: number,
  cpuS: number | null,
  t: Record<string, number>,
  clips: number,
  alone: { wallS: number; cpuS: number; setupS: number; warmS: number; stateMb: number },
  load: string,
): string {
  const ms = (k: string) => t[k] ?? 0;
  const jobMs = ms('totalMs') - ms('setupMs') - ms('releaseMs');
  const idleMs = jobMs - ms('ortMs');
  const named = ms('decodeWaitMs') + ms('frontEndMs') + ms('aggregateMs') + ms('storeMs');
  const s = (x: number) => (x / 1000).toFixed(3);
  const per = (x: number) => (clips > 0 ? `${(x / clips).toFixed(1)} ms/clip` : '');
  return (
    `  timeline (load ${load}): equivox ${wallS.toFixed(3)} s wall${cpuS !== null ? ` (${cpuS.toFixed(2)} s CPU)` : ''} = ` +
    `outside the job (process start, modules, database, exit) ${(wallS - ms('totalMs') / 1000).toFixed(3)} + model setup ${s(ms('setupMs'))} + session.run ${s(ms('ortMs'))} (${per(ms('ortMs'))}) + onnxruntime idle between runs ${s(idleMs)} (${per(idleMs)}: ` +
    `decode wait ${s(ms('decodeWaitMs'))}, front end ${s(ms('frontEndMs'))}, pooling ${s(ms('aggregateMs'))}, store ${s(ms('storeMs'))}, other ${s(idleMs - named)}) + model release ${s(ms('releaseMs'))}\n` +
    `            bare loop ${alone.wallS.toFixed(3)} s wall (${alone.cpuS.toFixed(2)} s CPU; not counted: session setup ${alone.setupS.toFixed(3)} s, warm-up run ${alone.warmS.toFixed(3)} s); ` +
    `equivox's session.run total − bare loop ${(ms('ortMs') / 1000 - alone.wallS).toFixed(3)} s (its first run warms the session up); ` +
    `states copied out of onnxruntime per clip ${alone.stateMb.toFixed(1)} MB in both\n`
  );
}

async function longRecording(work: string): Promise<void> {
  const home = join(work, 'home-long');
  const modelFile = join(work, 'tiny-w2v.onnx');
  writeFileSync(modelFile, buildWav2vec2Fixture());
  const model = cliJson<{ id: string }>(home, ['models', 'import', '--file', modelFile]);
  const out: string[] = [];
  for (const [label, seconds] of [['1 minute', 60], ['1 hour', 3600]] as const) {
    const dir = join(work, `long-${seconds}`);
    mkdirSync(dir);
    writeClip(join(dir, 'long.wav'), seconds, 120, 9);
    const project = join(work, `project-long-${seconds}`);
    cliJson(home, ['projects', 'create', '--name', 'long', '--dir', project]);
    const ds = { id: cliJson<{ datasetId: string }>(home, ['datasets', 'import', '--project', project, '--folder', dir, '--role', 'target', '--max-duration', '4000']).datasetId };
    const r = timed(process.execPath, [cli, 'embed', '--project', project, '--dataset', ds.id, '--model', model.id], { ...process.env, EQUIVOX_HOME: home });
    if (!r.ok) throw new Error(`embed of the ${label} file failed: ${r.stderr}`);
    const s = JSON.parse(r.stdout) as { audioSeconds: number; computed: number };
    if (s.computed !== 1) throw new Error(`the ${label} file was not embedded: ${r.stdout.slice(0, 400)}`);
    out.push(`${label} (${(s.audioSeconds / 60).toFixed(0)} min of audio, ${(s.audioSeconds / r.wallS).toFixed(0)} audio s/s): peak RSS ${r.maxRssMb !== null ? `${r.maxRssMb.toFixed(0)} MB` : 'unknown (no GNU time)'}`);
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`Long recordings through \`equivox embed\` (small test encoder, 30 s chunks streamed from the file): ${out.join('; ')}`);
}

/**
 * Whisper with and without the key/value cache: a whisper-tiny layout (random weights,
 * exported with the bench model) decoding one 30 s clip greedily to its token limit, the
 * merged decoder with its cache against decoder_model.onnx re-run on the whole sequence.
 */
async function whisperCache(work: string): Promise<void> {
  const modelDir = benchModel();
  const folder = modelDir ? join(modelDir, 'whisper-tiny-layout') : null;
  if (!folder || !existsSync(folder)) {
    console.log('Whisper key/value cache: skipped (no exported whisper-tiny layout: is python3-torch installed?)');
    return;
  }
  const home = join(work, 'home-whisper');
  const model = await importModel(home, { folder });
  const clip = join(work, 'whisper-30s.wav');
  writeClip(clip, 30, 140, 5);
  const audio = (await decodeAudio(clip)).samples;
  const rows: { label: string; seconds: number; tokens: number; ids: string }[] = [];
  for (const [label, noCache] of [['with the cache (merged decoder)', false], ['without (decoder_model.onnx on the whole sequence)', true]] as const) {
    const rec = await createRecognizer(model, { provider: 'cpu', threads: defaultThreads() }, { language: 'en', noCache });
    await rec.transcribe(audio.subarray(0, 16000)); // warm-up
    const t0 = performance.now();
    const t = await rec.transcribe(audio);
    rows.push({ label, seconds: (performance.now() - t0) / 1000, tokens: t.tokens, ids: JSON.stringify(t.ids) });
    await rec.release();
  }
  const [cache, plain] = rows as [(typeof rows)[0], (typeof rows)[0]];
  console.log(
    `Whisper key/value cache (whisper-tiny layout, random weights, one 30 s clip, ${cache.tokens} tokens, greedy): ` +
      `${cache.label} ${cache.seconds.toFixed(2)} s; ${plain.label} ${plain.seconds.toFixed(2)} s; speed-up ${(plain.seconds / cache.seconds).toFixed(1)}× (goal ≥ 3); same tokens: ${cache.ids === plain.ids ? 'yes' : 'NO'}`,
  );
}

/** Section 3 (--models): every model's throughput on the demo corpus, the old table. */
async function perModel(work: string, provider: ProviderName | 'auto', threads: number | undefined): Promise<void> {
  const home = join(work, 'home-models');
  let clips: string[];
  const demo = resolve(root, 'resources/demo/target');
  if (existsSync(demo)) clips = (await import('node:fs')).readdirSync(demo).filter((f) => /\.(opus|wav|flac|mp3)$/.test(f)).sort().map((f) => join(demo, f));
  else {
    mkdirSync(join(work, 'demo-clips'));
    clips = Array.from({ length: 24 }, (_, k) => {
      const f = join(work, 'demo-clips', `c${k}.wav`);
      writeClip(f, 3, 100 + 10 * k, k);
      return f;
    });
  }
  const db = openDatabase(join(work, 'models.sqlite'), projectMigrations);
  const now = new Date().toISOString();
  db.prepare('INSERT INTO project (id, name, created_at) VALUES (?, ?, ?)').run('bench', 'bench', now);
  db.prepare(`INSERT INTO datasets (id, name, role, source_kind, source_path, status, created_at, updated_at) VALUES ('d', 'bench', 'target', 'folder', ?, 'ready', ?, ?)`).run(work, now, now);
  clips.forEach((f, i) =>
    db.prepare('INSERT INTO clips (id, dataset_id, row_index, path, rel_path, sha256) VALUES (?, ?, ?, ?, ?, ?)').run(`c${i}`, 'd', i + 1, f, f, createHash('sha256').update(readFileSync(f)).digest('hex')),
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
  await add('tiny wav2vec2 fixture (d32, 3 blocks)', 'tiny-w2v.onnx', buildWav2vec2Fixture());
  await add('wav2vec2 fixture (d384, 6 blocks)', 'bench-w2v.onnx', buildWav2vec2Fixture({ dim: 384, layers: 6, heads: 6, ffn: 1536, convDim: 256, seed: 7 }));
  await add('tiny Whisper fixture (d32, 2 blocks)', 'tiny-whisper.onnx', buildWhisperFixture());
  const rows = [];
  for (const m of models) {
    const first = await embedDataset(db, { dataDir: home, datasetId: 'd', model: m.ref, provider, ...(threads ? { threads } : {}) }, inlineContext());
    const t0 = performance.now();
    const second = await embedDataset(db, { dataDir: home, datasetId: 'd', model: m.ref }, inlineContext());
    const t = first.timings;
    const net = t.totalMs - t.setupMs;
    rows.push({
      model: m.label,
      audioSecondsPerSecond: Number((first.audioSecondsPerSecond ?? 0).toFixed(1)),
      provider: first.provider,
      shareOutsideOrt: Number(((net - t.ortMs) / net).toFixed(3)),
      breakdownMs: Object.fromEntries(Object.entries(t).map(([k, v]) => [k, Math.round(v)])),
      secondRunMs: Math.round(performance.now() - t0),
      secondRunComputed: second.computed,
    });
  }
  db.close();
  console.log(JSON.stringify({ corpus: existsSync(demo) ? 'resources/demo/target' : 'generated', rows }, null, 2));
}

async function main(): Promise<void> {
  // Always rebuilt: a bin left from an earlier checkout would time the old code.
  spawnSync(process.execPath, [join(cliRoot, 'scripts/build-cli.mjs')], { cwd: cliRoot, stdio: 'inherit' });
  const work = mkdtempSync(join(tmpdir(), 'equivox-bench-inference-'));
  try {
    console.log(`node ${process.version}, onnxruntime-node ${ort.onnxruntimeVersion()}, ${process.platform}/${process.arch}, default threads ${defaultThreads()}`);
    await torchComparison(work);
    if (!flag('skip-whisper')) await whisperCache(work);
    if (!flag('skip-long')) await longRecording(work);
    if (flag('models')) await perModel(work, (arg('provider') ?? 'auto') as ProviderName | 'auto', arg('threads') ? Number(arg('threads')) : undefined);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

// The bare loop runs in a process of its own, as `equivox embed` and perf_test do: in the
// bench's process it ran in a heap that had set up and released the sessions of the rounds
// before, and equivox's session.run total differed from its loop by −17% to +7% by round.
if (flag('bare-loop')) {
  const a = JSON.parse(arg('bare-loop')!) as { model: string; inputName: string; outputs: string[]; clips: string[]; threads: number };
  process.stdout.write(`${JSON.stringify(await ortAlone(a.model, a.inputName, a.outputs, a.clips, a.threads))}\n`);
} else {
  await main();
}
