/**
 * Equivox where onnxruntime-node cannot load (test/support/no-onnxruntime.cjs preloaded):
 * run by test/unit/inference/no-onnxruntime.test.ts in its own process. Prints one JSON
 * line per step: what worked and what each refusal said.
 *
 * Usage: node --require ./test/support/no-onnxruntime.cjs --import tsx test/support/no-onnxruntime-probe.ts WORKDIR MODEL.onnx
 */
import '../../src/main/security/telemetry-off';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createApi } from '../../src/main/api';
import { createEngine } from '../../src/main/engine';
import { waitForImport } from '../../src/main/handlers/datasets';
import { runCli } from '../../src/main/cli';
import { demoSubset } from '../fixtures/data/demo-subset';

const [work, model] = process.argv.slice(2) as [string, string];
const line = (o: unknown) => process.stdout.write(`${JSON.stringify(o)}\n`);
const step = async (name: string, fn: () => Promise<unknown>) => {
  try {
    line({ step: name, ok: true, result: await fn() });
  } catch (err) {
    const e = err as { code?: string; message?: string };
    line({ step: name, ok: false, code: e.code ?? null, message: e.message ?? String(err) });
  }
};

// The command line, in this process.
let out = '';
let err = '';
const code = await runCli(['models', 'list'], { stdout: (s) => (out += s), stderr: (s) => (err += s) });
line({ step: 'cli models list', ok: code === 0, result: { code, aliases: (JSON.parse(out) as { alias: string | null }[]).map((m) => m.alias), stderr: err.trim() } });

// The engine as the app's hosts run it: jobs in worker threads and job processes.
const engine = createEngine({ host: 'web', dataDir: join(work, 'data') });
const api = createApi(engine);
await step('models.inference', () => api.invoke('models.inference', {}));
await step('models.list', async () => ((await api.invoke('models.list', {})) as { alias: string | null }[]).map((m) => m.alias));
const project = (await api.invoke('projects.create', { name: 'Without inference', dir: join(work, 'project') })) as { id: string };
const manifest = demoSubset(join(work, 'own'), 'asr', (r, i) => (r.accent === 'us' || r.accent === 'scotland') && i % 2 === 0).file;
await step('datasets.import', async () => {
  const { jobId, datasetId } = (await api.invoke('datasets.import', {
    projectId: project.id,
    source: { kind: 'manifest', manifest },
    role: 'asr',
    mapping: { path: 'path', speaker: 'speaker', groups: ['accent'], transcript: 'transcript', hypothesis: 'hypothesis', ignore: [] },
  })) as { jobId: string; datasetId: string };
  const r = await waitForImport(jobId);
  return { datasetId, imported: r.imported };
});
await step('models.import', () => api.invoke('models.import', { file: model, wait: true }));
const datasets = (await api.invoke('datasets.list', { projectId: project.id })) as { id: string }[];
const scores = join(work, 'scores.csv');
writeFileSync(scores, 'group,label,score\na,1,0.9\na,0,0.2\na,1,0.7\na,0,0.4\nb,1,0.8\nb,0,0.3\nb,1,0.6\nb,0,0.1\n');
let auditId = '';
await step('audit (WER from the spreadsheet, FDI from a scores file)', async () => {
  const plan = (await api.invoke('plans.save', {
    projectId: project.id,
    config: { title: 'No model', sections: ['wer', 'fdi'], wer: { dataset: datasets[0]!.id, groupBy: ['accent'], referenceGroup: 'us', bootstrap: 50, permutations: 100, hypotheses: { source: 'column', recogniser: { name: 'pocketsphinx', version: '5prealpha', settings: 'en-us' } } }, fdi: { source: { kind: 'imported', file: scores }, groupings: [['group']], references: [{ groupBy: ['group'], reference: { kind: 'every-pair' } }], bootstrap: 10 } },
  })) as { id: string };
  await api.invoke('plans.lock', { projectId: project.id, planId: plan.id });
  const started = (await api.invoke('audits.start', { projectId: project.id, planId: plan.id })) as { auditId: string; jobId: string };
  auditId = started.auditId;
  for (;;) {
    const job = engine.jobs.list().find((j) => j.jobId === started.jobId);
    if (job && job.state !== 'running') {
      if (job.state !== 'finished') throw new Error(`audit ${job.state}: ${job.error}`);
      break;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const results = (await api.invoke('audits.results', { projectId: project.id, auditId })) as { wer?: unknown; fdi?: unknown; environment?: { onnxruntime?: string } };
  return { wer: results.wer !== undefined, fdi: results.fdi !== undefined, onnxruntime: results.environment?.onnxruntime };
});
await step('reports.build', async () => {
  const identity = (await api.invoke('identities.create', { name: 'Ada Auditor', organisation: 'Fair Speech Lab' })) as { id: string };
  const built = (await api.invoke('reports.build', { project: project.id, auditId, out: join(work, 'report.pdf'), identityId: identity.id })) as { path: string };
  return { path: built.path };
});
await engine.close();
process.stdout.write('DONE\n');
process.exit(0);
