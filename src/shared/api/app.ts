import { z } from 'zod';
import type { JobInfo } from './common';

export interface AppInfo {
  name: string;
  version: string;
  dataDir: string;
  host: 'electron' | 'cli' | 'web' | 'test';
  /** The engine's operating system (Node's process.platform): which GPU back ends it can use. */
  platform: string;
  ffmpeg: { path: string | null; source: string | null; error: string | null };
}

export const appOperations = {
  'app.info': {
    input: z.strictObject({}),
    result: null as unknown as AppInfo,
    summary: 'Version, data folder and the tools the engine found',
  },
  'jobs.list': {
    input: z.strictObject({}),
    result: null as unknown as JobInfo[],
    summary: 'Jobs started in this session',
  },
  'jobs.cancel': {
    input: z.strictObject({ jobId: z.string().min(1) }),
    result: null as unknown as { jobId: string; cancelled: boolean },
    summary: 'Ask a running job to stop',
  },
  'jobs.selfTest': {
    input: z.strictObject({ units: z.number().int().min(1).max(1_000_000).default(200), unitMs: z.number().int().min(0).max(1000).default(10) }),
    result: null as unknown as { jobId: string },
    summary: 'Start a CPU job off the main thread that counts units (a check that jobs, progress and cancel work)',
  },
} as const;
