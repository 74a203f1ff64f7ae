/**
 * How honest is "time left"? In a new data folder, runs the one-click demo job (quick
 * settings) twice, then an own-data audit (two spreadsheets with human column names,
 * imported with the suggested mapping; two models, SpEAT, SER and WER) twice: the first run of each
 * starts from the speeds measured while building Equivox and records this computer's,
 * the second starts from those. From 20 % of each run on, it prints the time left the
 * app showed against the time that was actually left; honest is 0.7–1.5.
 *
 *   npm run bench:eta [-- --runs 2]
 *
 * A mark the bar only reached at the job's end (it jumped from below it to 100 %) is said as
 * such and not counted as a reading. `--samples FILE` writes every progress report as JSON.
 *
 * Figures only; tests never assert timings. State the machine's load beside the figures.
 */
import '../src/main/security/telemetry-off';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JobProgress } from '../src/shared/api';
import type { JobInput, JobKind } from '../src/shared/jobs';
import { savePlan } from '../src/main/audits/plans';
import { createAudit } from '../src/main/audits/run';
import { estimateDemo } from '../src/main/audits/task';
import { importDataset } from '../src/main/data/import';
import { loadManifest } from '../src/main/data/sources';
import { loadRates } from '../src/main/jobs/rates';
import { createEngine } from '../src/main/engine';
import { demoSubset } from '../test/fixtures/data/demo-subset';

const runsArg = process.argv.indexOf('--runs');
const runs = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 2;
const home = mkdtempSync(join(tmpdir(), 'equivox-bench-eta-'));
const engine = createEngine({ host: 'cli', dataDir: home });
const MARKS = [0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];
const ratios: number[] = [];
let jumped = 0;
const samplesArg = process.argv.indexOf('--samples');
/** Every progress report of every run, for a look at where the estimate goes wrong (--samples FILE). */
const dump: { run: string; t: number; stage: string; label?: string; done: number; total: number; fraction?: number; eta: number | null; load: number }[] = [];

/** Run a job, then print shown and actual time left at each mark. */
async function measure<K extends JobKind>(title: string, kind: K, input: JobInput<K>, note: string): Promise<void> {
  // The one-minute load average beside each report: a reading off by other users' work shows it.
  const samples: { t: number; p: JobProgress; load: number }[] = [];
  const start = Date.now();
  const { result } = engine.jobs.start(kind, input, { onProgress: (p) => samples.push({ t: Date.now(), p, load: loadavg()[0]! }) });
  await result;
  const total = (Date.now() - start) / 1000;
  for (const x of samples) dump.push({ run: title, t: (x.t - start) / 1000, stage: x.p.stage, ...(x.p.label ? { label: x.p.label } : {}), done: x.p.done, total: x.p.total, ...(x.p.fraction !== undefined ? { fraction: x.p.fraction } : {}), eta: x.p.etaSeconds, load: x.load });
  console.log(`\n${title}: ${note}, took ${total.toFixed(0)} s (load average ${loadavg()[0]!.toFixed(1)})`);
  console.log('  done   shown left   actually left   shown / actual   load   stage');
  const last = samples[samples.length - 1];
  for (const mark of MARKS) {
    const s = samples.find((x) => (x.p.fraction ?? 0) >= mark && x.p.etaSeconds !== null);
    if (!s) continue;
    // The job's last report is its end, not a time left: a mark the bar first reached there was
    // jumped over (the bar went from below it to 100 %), and its "reading" would be 0 s against
    // the few milliseconds the job took to return. Said as such, not counted as a ratio.
    if (s === last && (s.p.fraction ?? 0) >= 1) {
      const before = samples.filter((x) => x !== last).reduce((a, x) => Math.max(a, x.p.fraction ?? 0), 0);
      jumped += 1;
      console.log(`  ${String(Math.round(mark * 100)).padStart(3)} %   never shown: the bar went from ${Math.round(before * 100)} % to the end`);
      continue;
    }
    const left = (start + total * 1000 - s.t) / 1000;
    const ratio = s.p.etaSeconds! / left;
    ratios.push(ratio);
    console.log(`  ${String(Math.round(mark * 100)).padStart(3)} %   ${s.p.etaSeconds!.toFixed(1).padStart(6)} s   ${left.toFixed(1).padStart(9)} s   ${ratio.toFixed(2).padStart(10)}   ${s.load.toFixed(1).padStart(4)}   ${s.p.stage}${ratio < 0.7 || ratio > 1.5 ? '   outside 0.7–1.5' : ''}`);
  }
}

function rateLine(): string {
  return Object.entries(loadRates(home))
    .map(([k, r]) => `${k} ${r.secondsPerUnit.toPrecision(2)}`)
    .join(', ');
}

/** An auditor's own project: spreadsheets with human column names, the suggested mapping, a plan with SpEAT, SER and WER. */
async function ownDataAudit(run: number): Promise<{ projectPath: string; auditId: string }> {
  const own = join(home, `own-${run}`);
  const accents = new Set(['us', 'uk', 'scotland']);
  const human = { path: 'File', speaker: 'Speaker ID', accent: 'Accent', gender: 'Gender', transcript: 'What was said', hypothesis: 'Recogniser output' };
  const clips = demoSubset(own, 'asr', (r, i) => accents.has(r.accent!) && i % 2 === 0, { name: 'clips.csv', drop: ['voice'], rename: human }).file;
  const perSpeaker = new Map<string, number>();
  const ratings = demoSubset(
    own,
    'attribute',
    (r) => {
      const n = perSpeaker.get(r.speaker!) ?? 0;
      if (perSpeaker.size >= 4 && n === 0) return false;
      perSpeaker.set(r.speaker!, n + 1);
      return n < 10;
    },
    { name: 'ratings.csv', drop: ['polarity', 'pitch_shift', 'rate_shift', 'engine'], rename: { path: 'File', speaker: 'Talker', gender: 'Gender', accent: 'Accent', valence: 'Valence rating (1-9)', transcript: 'What was said' } },
  ).file;
  const project = engine.store.create(`ETA own data ${run}`, join(home, `own-project-${run}`));
  const db = engine.store.db(project.id);
  const mapping = (file: string) => loadManifest(file).defaultMapping!;
  const target = await importDataset(db, { source: { kind: 'manifest', manifest: clips }, role: 'target', roles: ['target', 'asr'], mapping: mapping(clips) });
  const attribute = await importDataset(db, { source: { kind: 'manifest', manifest: ratings }, role: 'attribute', mapping: mapping(ratings) });
  const plan = savePlan(db, {
    config: {
      title: 'ETA own data',
      sections: ['speat', 'ser', 'wer'],
      models: ['acoustic-baseline', 'speech-embedding'],
      // Tens of seconds of tracked work, as an auditor's run is (with one model and the demo's
      // small settings the audit itself lasted 3–4 s after 2–3 s of start-up: its readings were
      // tenths of a second against each other, rounding rather than estimation).
      speat: { attributeDataset: attribute.datasetId, attributePerSpeaker: 5, permutations: 200_000, bootstrap: 10_000, tests: [{ id: 't1', name: 'female vs male', targetDataset: target.datasetId, x: { label: 'Gender', value: 'female' }, y: { label: 'Gender', value: 'male' } }] },
      ser: { valenceDataset: attribute.datasetId, maxSteps: 10_000 },
      wer: { dataset: target.datasetId, groupBy: ['Accent'], referenceGroup: 'us', bootstrap: 5000, permutations: 20_000 },
    },
  });
  return { projectPath: project.path, auditId: createAudit(db, plan.id).id };
}

try {
  console.log(`load average at start: ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  for (let run = 1; run <= runs; run += 1) {
    const estimate = await estimateDemo(home, true);
    const estimated = estimate.importSeconds.reduce((a, b) => a + b, 0) + estimate.auditSeconds;
    const project = engine.store.create(`ETA bench ${run}`, join(home, `project-${run}`));
    await measure(`demo run ${run}`, 'demo.run', { projectPath: project.path, dataDir: home, quick: true }, `estimated before the start ${estimated.toFixed(0)} s (${estimate.measured ? 'from speeds measured here' : 'from the build machine’s speeds'})`);
    console.log(`  speeds measured here by now (s per unit): ${rateLine()}`);
  }
  for (let run = 1; run <= runs; run += 1) {
    const { projectPath, auditId } = await ownDataAudit(run);
    await measure(`own-data run ${run}`, 'audits.run', { projectPath, dataDir: home, auditId }, run === 1 ? 'audit speeds as recorded by the demo runs' : 'speeds recorded by the run before');
  }
  console.log(`\nspeeds measured here at the end (s per unit): ${rateLine()}`);
  const outside = ratios.filter((r) => r < 0.7 || r > 1.5).length;
  console.log(`\nshown / actual from 20 % on: ${ratios.length} readings, min ${Math.min(...ratios).toFixed(2)}, max ${Math.max(...ratios).toFixed(2)}, ${outside} outside 0.7–1.5${jumped ? `; ${jumped} mark(s) never shown before the end (the bar jumped to 100 %)` : ''}`);
  console.log(`load average at end: ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  if (samplesArg > 0) writeFileSync(process.argv[samplesArg + 1]!, `${JSON.stringify(dump, null, 1)}\n`);
} finally {
  await engine.close();
  rmSync(home, { recursive: true, force: true });
}
