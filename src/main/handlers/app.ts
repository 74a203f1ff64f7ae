import { createRequire } from 'node:module';
import { findFfmpeg } from '../ffmpeg';
import type { HandlerMap } from './types';

const require = createRequire(import.meta.url);
const pkg = require('../../../package.json') as { version: string };

export const VERSION = pkg.version;

export const appHandlers: HandlerMap<'app.info' | 'jobs.list' | 'jobs.cancel' | 'jobs.selfTest'> = {
  'app.info': (_input, engine) => ({ name: 'Equivox', version: VERSION, dataDir: engine.dataDir, host: engine.host, ffmpeg: findFfmpeg() }),
  'jobs.list': (_input, { jobs }) => jobs.list(),
  'jobs.cancel': ({ jobId }, { jobs }) => ({ jobId, cancelled: jobs.cancel(jobId) }),
  'jobs.selfTest': ({ units, unitMs }, { jobs }) => {
    const { jobId } = jobs.start('selftest.count', { units, unitMs });
    return { jobId };
  },
};
