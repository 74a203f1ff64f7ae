import { findFfmpeg } from '../ffmpeg';
import { VERSION } from '../version';
import type { HandlerMap } from './types';

export const appHandlers: HandlerMap<'app.info' | 'jobs.list' | 'jobs.cancel' | 'jobs.selfTest'> = {
  'app.info': (_input, engine) => ({ name: 'Equivox', version: VERSION, dataDir: engine.dataDir, host: engine.host, platform: process.platform, ffmpeg: findFfmpeg() }),
  'jobs.list': (_input, { jobs }) => jobs.list(),
  'jobs.cancel': ({ jobId }, { jobs }) => ({ jobId, cancelled: jobs.cancel(jobId) }),
  'jobs.selfTest': ({ units, unitMs }, { jobs }) => {
    const { jobId } = jobs.start('selftest.count', { units, unitMs });
    return { jobId };
  },
};
