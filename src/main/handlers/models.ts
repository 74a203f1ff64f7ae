import type { ModelInfo, ModelLayers } from '../../shared/api/models';
import type { InferenceStatus } from '../../shared/jobs';
import { asrCapabilities } from '../inference/asr/store';
import { CATALOGUE, downloadModel } from '../inference/download';
import type { EmbedTaskInput } from '../inference/embed';
import type { ModelManifest } from '../inference/manifest';
import { resolve } from 'node:path';
import { NotFoundError } from '../../shared/errors';
import { ensureModel, listModels, precheckImport } from '../inference/models';
import { inferenceStatus } from '../inference/ort';
import type { HandlerMap } from './types';

export function modelInfo(m: ModelManifest): ModelInfo {
  return {
    id: m.id,
    alias: m.alias,
    name: m.name,
    family: m.family,
    frontEnd: m.frontEnd.kind,
    builtin: m.builtin,
    blocks: m.blocks,
    layers: m.dims.length,
    dims: m.dims,
    exposure: { status: m.exposure.status, message: m.exposure.message },
    settingsKey: m.settingsKey,
    licence: m.licence,
    source: m.source,
    task: m.task ?? 'embedding',
    asr: asrCapabilities(m),
  };
}

export function modelLayers(m: ModelManifest): ModelLayers {
  return {
    id: m.id,
    name: m.name,
    stateDefinition: m.stateDefinition,
    states: m.states,
    layerAggregation: m.layerAggregation,
    exposure: { status: m.exposure.status, message: m.exposure.message, maxAbsDiff: m.exposure.maxAbsDiff, verified: m.exposure.verified ?? null },
  };
}

/** Model imports started in this engine, by job id: what models.importResult waits for. */
const imports = new Map<string, Promise<ModelInfo>>();
/** How long a finished import's answer stays for a caller that asks late. */
const IMPORT_RESULT_KEPT_MS = 10 * 60_000;

/** Whether onnxruntime loads where models run: asked of a job worker once per engine (the engine itself never loads it). */
let inference: Promise<InferenceStatus> | undefined;

export const modelHandlers: HandlerMap<
  'models.list' | 'models.import' | 'models.importResult' | 'models.inference' | 'models.layers' | 'models.embed' | 'models.verifierQuality' | 'models.catalogue' | 'models.download'
> = {
  'models.list': async (_input, { dataDir }) => (await listModels(dataDir)).map(modelInfo),
  'models.import': async ({ wait, ...input }, { dataDir, jobs }) => {
    // Resolved here, against the caller's working directory (the CLI's shell): the job
    // process starts in an empty folder of its own. What can be refused without reading the
    // model is refused now, as the answer (a FIFO, a missing file, a file given as a folder).
    const file = input.file === undefined ? undefined : resolve(input.file);
    const folder = input.folder === undefined ? undefined : resolve(input.folder);
    const manifest = input.manifest === undefined ? undefined : resolve(input.manifest);
    precheckImport({ file, folder, manifest });
    const { jobId, result } = jobs.start('models.import', { dataDir, file, folder, manifest, name: input.name, licence: input.licence, source: input.source });
    const model = result.then(async ({ modelId }) => modelInfo((await ensureModel(dataDir, modelId)).manifest));
    model.catch(() => undefined);
    imports.set(jobId, model);
    const forget = () => setTimeout(() => imports.delete(jobId), IMPORT_RESULT_KEPT_MS).unref();
    model.then(forget, forget);
    return { jobId, model: wait ? await model : null };
  },
  'models.inference': (_input, { jobs, host }) => {
    // The command line runs everything in its own process (a native crash ends one command):
    // it loads the library here rather than start a job process to ask.
    if (host === 'cli') {
      const s = inferenceStatus();
      return s.available ? { available: true, reason: null, fix: null } : s;
    }
    inference ??= jobs.start('selftest.inference', {}).result.catch((err: unknown): InferenceStatus => {
      // The worker itself died loading it (a native crash): that is the answer too.
      inference = undefined;
      return { available: false, reason: `the onnxruntime library stopped the process that loaded it (${err instanceof Error ? err.message : String(err)})`, fix: 'Reinstall Equivox, then start it again. Importing recordings, results from files and reports still work.' };
    });
    return inference;
  },
  'models.importResult': ({ jobId }) => {
    const model = imports.get(jobId);
    if (!model) throw new NotFoundError(`no model import ${jobId} in this engine (an import's answer is kept 10 minutes after it ends)`, 'jobId');
    return model;
  },
  'models.layers': async ({ id }, { dataDir }) => modelLayers((await ensureModel(dataDir, id)).manifest),
  'models.embed': async ({ projectId, datasetId, modelId, provider, threads, wait }, { dataDir, store, jobs }) => {
    const project = store.get(projectId);
    const input: EmbedTaskInput = { projectPath: project.path, datasetId, model: modelId, dataDir, provider, ...(threads !== undefined ? { threads } : {}) };
    const { jobId, result } = jobs.start('inference.embed', input);
    return { jobId, summary: wait ? await result : null };
  },
  'models.verifierQuality': async ({ projectId, datasetId, modelId, groupBy, trialsPerGroup, seed }, { dataDir, store }) => {
    const m = (await ensureModel(dataDir, modelId)).manifest;
    // Loaded on use: the audit module pulls in the inference stack, which a CLI start need not pay for.
    const { verifierQualityFromEmbeddings } = await import('../audits/fdi-audit');
    const q = verifierQualityFromEmbeddings(store.db(projectId), m, { datasetId, groupBy, ...(trialsPerGroup !== undefined ? { trialsPerGroup } : {}), ...(seed !== undefined ? { seed } : {}) });
    return q ? { auc: q.auc, aucCi: q.aucCi, eer: q.eer, informative: q.informative, genuine: q.genuine, impostor: q.impostor, warnings: q.warnings } : null;
  },
  'models.catalogue': () => CATALOGUE.map((e) => ({ id: e.id, name: e.name, repository: e.repository, licence: e.licence, approxMB: e.approxMB, files: e.files.map((f) => f.path) })),
  'models.download': async ({ id, allowDownloads }, { dataDir }) => modelInfo(await downloadModel(dataDir, id, { allowDownloads })),
};
