import { join } from 'node:path';
import type { Api } from '../api';
import { embedDataset, type EmbedProgress } from '../inference/embed';
import { inlineContext } from '../jobs/task';
import { defaultDataDir } from '../store/data-dir';
import { openDatabase } from '../store/open';
import { PROJECT_FILE } from '../store/projects';
import { PROJECT_DB } from '../store/schema';
import { UsageError, type CliCommand } from './args';
import { projectRef } from './project-ref';

const PROVIDERS = ['auto', 'cuda', 'dml', 'coreml', 'webgpu', 'cpu'] as const;
type ProviderArg = (typeof PROVIDERS)[number];

function providerArg(v: string | undefined): ProviderArg {
  if (v === undefined) return 'auto';
  if (!(PROVIDERS as readonly string[]).includes(v)) throw new UsageError(`--provider must be one of ${PROVIDERS.join(', ')}`);
  return v as ProviderArg;
}

/** Models and embedding commands. */
export function modelCommands(api: () => Api): CliCommand[] {
  return [
    {
      path: ['models', 'list'],
      usage: 'models list',
      run: async (o, _positionals, ctx) => {
        o.assertNoUnknown();
        const models = await api().invoke('models.list', {});
        // The list stays what it was (scripts read it); where models cannot run, stderr says why and what to do.
        const inference = await api().invoke('models.inference', {});
        if (!inference.available) ctx.log(`Speech models cannot run on this computer: ${inference.reason}. ${inference.fix}`);
        return models;
      },
    },
    {
      path: ['models', 'import'],
      usage: 'models import (--file MODEL.onnx [--manifest JSON] | --folder HF_FOLDER) [--name NAME] [--licence L] [--source S]',
      run: async (o) => {
        const input = { file: o.string('file'), folder: o.string('folder'), manifest: o.string('manifest'), name: o.string('name'), licence: o.string('licence'), source: o.string('source'), wait: true };
        o.assertNoUnknown();
        // A job (progress on stderr; Ctrl+C ends it with the command): the answer is the model.
        return (await api().invoke('models.import', input)).model;
      },
    },
    {
      path: ['models', 'layers'],
      usage: 'models layers --id ID|ALIAS   (exposed hidden states and their widths)',
      run: async (o) => {
        const input = { id: o.requireString('id') };
        o.assertNoUnknown();
        return api().invoke('models.layers', input);
      },
    },
    {
      path: ['models', 'catalogue'],
      usage: 'models catalogue   (exports that can be downloaded on request)',
      run: async (o) => {
        o.assertNoUnknown();
        return api().invoke('models.catalogue', {});
      },
    },
    {
      path: ['models', 'download'],
      usage: 'models download --id CATALOGUE_ID --allow-downloads   (the only command that uses the network)',
      run: async (o) => {
        const input = { id: o.requireString('id'), allowDownloads: o.flag('allow-downloads') };
        o.assertNoUnknown();
        return api().invoke('models.download', input);
      },
    },
    {
      path: ['embed'],
      usage: 'embed --project DIR|ID --dataset ID --model ID|ALIAS [--provider auto|cuda|dml|coreml|webgpu|cpu] [--threads N]',
      run: async (o, _positionals, ctx) => {
        const projectArg = o.requireString('project');
        const datasetId = o.requireString('dataset');
        const model = o.requireString('model');
        const provider = providerArg(o.string('provider'));
        const threadsRaw = o.string('threads');
        o.assertNoUnknown();
        const threads = threadsRaw === undefined ? undefined : Number(threadsRaw);
        if (threads !== undefined && (!Number.isInteger(threads) || threads < 1)) throw new UsageError('--threads must be a positive integer');
        // Inline rather than through a worker, so progress can carry throughput and ETA.
        const ref = projectRef(projectArg);
        // Through projects.open for a folder too: a folder from elsewhere is checked (store/db-check.ts) before it is written to.
        const dir = (await (ctx.loadApi ? await ctx.loadApi() : api()).invoke('projects.open', 'dir' in ref ? { path: ref.dir } : { id: ref.id })).path;
        const db = openDatabase(join(dir, PROJECT_FILE), PROJECT_DB);
        let last = 0;
        let lastDone = -1;
        const onProgress = (p: EmbedProgress) => {
          const now = Date.now();
          // A line a second, or for every further 1% of the clips: a fast run still shows
          // its progress (and a supervisor watching for it sees it), a long one stays quiet.
          if (p.done < p.total && now - last < 1000 && p.done - lastDone < Math.max(1, Math.ceil(p.total / 100))) return;
          last = now;
          lastDone = p.done;
          const rate = p.audioSecondsPerSecond !== null ? `, ${p.audioSecondsPerSecond.toFixed(1)} audio s/s` : '';
          const eta = p.etaSeconds !== null && p.done < p.total ? `, about ${Math.ceil(p.etaSeconds)} s left` : '';
          ctx.log(`embedding: ${p.done}/${p.total} clips (${p.cached} cached, ${p.failed} failed${rate}${eta})`);
        };
        let cancelled = false;
        const onSigint = () => {
          cancelled = true;
        };
        process.once('SIGINT', onSigint);
        try {
          return await embedDataset(db, { dataDir: defaultDataDir(), datasetId, model, provider, ...(threads !== undefined ? { threads } : {}) }, inlineContext(() => {}, () => cancelled), onProgress);
        } finally {
          process.off('SIGINT', onSigint);
          db.close();
        }
      },
    },
  ];
}
