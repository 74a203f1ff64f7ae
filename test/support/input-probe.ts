/**
 * Every command-line command and API operation that takes a path, given things that are
 * not the file it expects (issue 23.1): a FIFO, a character device (/dev/zero), a folder
 * and a dangling symbolic link, and, where a folder is expected, a folder holding a FIFO
 * where the command reads a file. Run as its own process by
 * test/unit/security/input-files.test.ts, so that a case that hangs hangs this process,
 * which the test kills and names (the line `START <case>` says which case it was on),
 * instead of hanging the test runner. Prints one JSON line per case.
 *
 * Usage: node --import tsx test/support/input-probe.ts WORKDIR   (EQUIVOX_HOME set by the caller)
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createApi } from '../../src/main/api';
import { runCli } from '../../src/main/cli';
import { createEngine } from '../../src/main/engine';
import { PROJECT_FILE } from '../../src/main/store/projects';

const work = process.argv[2]!;
mkdirSync(work, { recursive: true });

/** The four things that are not a regular file. */
const fifo = join(work, 'pipe.fifo');
execFileSync('mkfifo', [fifo]);
const folder = join(work, 'a-folder');
mkdirSync(folder);
const dangling = join(work, 'dangling-link');
symlinkSync(join(work, 'nothing-here'), dangling);
export const BAD = { fifo, device: '/dev/zero', folder, dangling } as const;

/** Folders whose file is a FIFO: the model folder's model.onnx, a job's job.json, a project's database, a folder import's metadata.csv. */
function folderWithFifo(name: string, file: string): string {
  const dir = join(work, name);
  mkdirSync(join(dir, file, '..'), { recursive: true });
  execFileSync('mkfifo', [join(dir, file)]);
  return dir;
}
const modelFolder = folderWithFifo('model-folder', 'onnx/model.onnx');
writeFileSync(join(modelFolder, 'config.json'), JSON.stringify({ model_type: 'wav2vec2' }));
// A Whisper-style export (encoder and decoder present) whose vocab.json, read first, is a FIFO.
const asrFolder = folderWithFifo('asr-folder', 'vocab.json');
mkdirSync(join(asrFolder, 'onnx'));
for (const f of ['encoder_model.onnx', 'decoder_model.onnx']) writeFileSync(join(asrFolder, 'onnx', f), 'not read');
const jobFolder = folderWithFifo('job-folder', 'job.json');
const projectFolder = folderWithFifo('project-folder', PROJECT_FILE);
const audioFolder = folderWithFifo('audio-folder', 'metadata.csv');
mkdirSync(join(audioFolder, 'groupA'));
copyFileSync(join('resources', 'demo', 'demo.json'), join(audioFolder, 'groupA', 'not-audio.wav'));

function line(obj: unknown): void {
  process.stdout.write(`${JSON.stringify(obj)}\n`);
}

async function main(): Promise<void> {
  // A project for the commands that need one.
  let created = '';
  await runCli(['projects', 'create', '--name', 'Probe', '--dir', join(work, 'project')], { stdout: (s) => (created += s), stderr: () => {} });
  const project = join(work, 'project');
  const projectId = (JSON.parse(created) as { id: string }).id;

  /** name → argv (with BAD.x spliced in by the caller). */
  const cliCases: Record<string, (p: string) => string[]> = {
    'report verify FILE': (p) => ['report', 'verify', p],
    'models import --file': (p) => ['models', 'import', '--file', p],
    'models import --manifest': (p) => ['models', 'import', '--folder', modelFolder, '--manifest', p],
    'identity trust --cert': (p) => ['identity', 'trust', '--cert', p],
    'identity import --p12': (p) => ['identity', 'import', '--p12', p],
    'audit lock --plan': (p) => ['audit', 'lock', '--project', project, '--plan', p],
    'audit run --plan': (p) => ['audit', 'run', '--project', project, '--plan', p],
    'stats speat --input': (p) => ['stats', 'speat', '--input', p],
    'stats wer --input': (p) => ['stats', 'wer', '--input', p],
    'stats fdi --input': (p) => ['stats', 'fdi', '--input', p, '--threshold', '0.5'],
    'stats ser --input': (p) => ['stats', 'ser', '--input', p],
    'datasets preview --manifest': (p) => ['datasets', 'preview', '--manifest', p],
    'datasets import --manifest': (p) => ['datasets', 'import', '--project', project, '--manifest', p],
    'report build --results': (p) => ['report', 'build', '--results', p, '--out', join(work, 'out.pdf')],
  };
  /** Commands that take a folder: given each bad thing that is not a folder (the folder case is the folder holding a FIFO). */
  const folderCases: Record<string, { argv: (p: string) => string[]; withFifo: string }> = {
    'models import --folder': { argv: (p) => ['models', 'import', '--folder', p], withFifo: modelFolder },
    'models import --folder (ASR)': { argv: (p) => ['models', 'import', '--folder', p], withFifo: asrFolder },
    'cluster status --job': { argv: (p) => ['cluster', 'status', '--job', p], withFifo: jobFolder },
    'cluster import --job': { argv: (p) => ['cluster', 'import', '--project', project, '--job', p], withFifo: jobFolder },
    'cluster run-shard --job': { argv: (p) => ['cluster', 'run-shard', '--job', p, '--shard', '0'], withFifo: jobFolder },
    'projects open --dir': { argv: (p) => ['projects', 'open', '--dir', p], withFifo: projectFolder },
    'embed --project': { argv: (p) => ['embed', '--project', p, '--dataset', 'x', '--model', 'speech-embedding'], withFifo: projectFolder },
    'datasets import --folder': { argv: (p) => ['datasets', 'import', '--project', project, '--folder', p], withFifo: audioFolder },
    'datasets import --common-voice': { argv: (p) => ['datasets', 'import', '--project', project, '--common-voice', p], withFifo: folderWithFifo('cv-folder', 'validated.tsv') },
  };

  async function cliCase(name: string, bad: string, argv: string[]): Promise<void> {
    process.stdout.write(`START cli ${name} ${bad}\n`);
    let out = '';
    let err = '';
    const t0 = performance.now();
    const code = await runCli(argv, { stdout: (s) => (out += s), stderr: (s) => (err += s) });
    const ms = Math.round(performance.now() - t0);
    let error: { code?: string; message?: string } = {};
    try {
      error = (JSON.parse(out) as { error?: typeof error }).error ?? {};
    } catch {
      // stdout was not the error JSON: recorded as it is.
    }
    line({ host: 'cli', name, bad, exit: code, ms, errorCode: error.code ?? null, message: error.message ?? out.slice(0, 300), stderr: err.split('\n')[0] });
  }

  for (const [name, argv] of Object.entries(cliCases)) {
    for (const [bad, p] of Object.entries(BAD)) await cliCase(name, bad, argv(p));
  }
  for (const [name, c] of Object.entries(folderCases)) {
    for (const [bad, p] of Object.entries({ fifo, device: '/dev/zero', dangling, 'folder holding a FIFO': c.withFifo })) await cliCase(name, bad, c.argv(p));
  }

  // The API, as the app and the web host call it (here with the CLI's path policy: the
  // web host's grants are checked in the web-host test and path-policy.test.ts).
  const engine = createEngine({ host: 'cli' });
  const api = createApi(engine);
  const plan = (file: string) => ({ title: 'Probe', sections: ['fdi'], fdi: { source: { kind: 'imported', file }, groupings: [['group']], references: [{ groupBy: ['group'], reference: { kind: 'every-pair' } }] } });
  const apiCases: Record<string, (p: string) => [string, unknown]> = {
    'reports.verify path': (p) => ['reports.verify', { path: p }],
    'identities.trust certPath': (p) => ['identities.trust', { certPath: p }],
    'identities.import p12Path': (p) => ['identities.import', { p12Path: p }],
    'reports.build resultsPath': (p) => ['reports.build', { resultsPath: p, out: join(work, 'api-out.pdf') }],
    'models.import file': (p) => ['models.import', { file: p, wait: true }],
    'models.import manifest': (p) => ['models.import', { folder: modelFolder, manifest: p, wait: true }],
    'datasets.preview manifest': (p) => ['datasets.preview', { manifest: p }],
    'datasets.import source.manifest': (p) => ['datasets.import', { projectId, source: { kind: 'manifest', manifest: p }, role: 'target' }],
    'plans.save config.fdi.source.file, then plans.lock': (p) => ['plans.lock', { projectId, config: plan(p) }],
  };
  const apiFolderCases: Record<string, { op: (p: string) => [string, unknown]; withFifo: string }> = {
    'models.import folder': { op: (p) => ['models.import', { folder: p, wait: true }], withFifo: modelFolder },
    'datasets.import source.folder': { op: (p) => ['datasets.import', { projectId, source: { kind: 'folder', folder: p }, role: 'target' }], withFifo: audioFolder },
    'cluster.status jobDir': { op: (p) => ['cluster.status', { jobDir: p }], withFifo: jobFolder },
    'cluster.import jobDir': { op: (p) => ['cluster.import', { projectId, jobDir: p, wait: true }], withFifo: jobFolder },
    'projects.open path': { op: (p) => ['projects.open', { path: p }], withFifo: projectFolder },
  };
  async function apiCase(name: string, bad: string, [op, input]: [string, unknown]): Promise<void> {
    process.stdout.write(`START api ${name} ${bad}\n`);
    const t0 = performance.now();
    try {
      // plans.lock takes a saved plan: save it first (plans.save checks the file too).
      if (op === 'plans.lock') {
        const saved = await api.invoke('plans.save', input);
        await api.invoke('plans.lock', { projectId, planId: (saved as { id: string }).id });
      } else await api.invoke(op, input);
      line({ host: 'api', name, bad, ms: Math.round(performance.now() - t0), errorCode: null, message: 'succeeded' });
    } catch (err) {
      const e = err as { code?: string; message?: string };
      line({ host: 'api', name, bad, ms: Math.round(performance.now() - t0), errorCode: e.code ?? 'thrown', message: String(e.message).slice(0, 400) });
    }
  }
  for (const [name, f] of Object.entries(apiCases)) {
    for (const [bad, p] of Object.entries(BAD)) await apiCase(name, bad, f(p));
  }
  for (const [name, c] of Object.entries(apiFolderCases)) {
    for (const [bad, p] of Object.entries({ fifo, device: '/dev/zero', dangling, 'folder holding a FIFO': c.withFifo })) await apiCase(name, bad, c.op(p));
  }
  await engine.close();
  process.stdout.write('DONE\n');
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`${(err as Error).stack}\n`);
    process.exit(1);
  },
);
