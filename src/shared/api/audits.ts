import { z } from 'zod';
import type { ColumnMapping, DatasetRole } from './datasets';
import { AuditPlan, type AuditPlanConfig } from '../plan';
import type { AuditResults } from '../results';
import { Id } from './common';
import { PlanDraft, type RequirementReport } from '../requirements';

export interface PlanInfo {
  id: string;
  name: string;
  version: number;
  parentId: string | null;
  config: AuditPlanConfig;
  sha256: string | null;
  lockedAt: string | null;
  inputs: { datasets: Record<string, string | null>; models: Record<string, string>; files?: Record<string, string> } | null;
  createdAt: string;
}

export interface AuditRunInfo {
  id: string;
  planId: string;
  planSha256: string | null;
  seed: number;
  status: 'pending' | 'running' | 'finished' | 'failed' | 'cancelled';
  stage: string | null;
  error: string | null;
  startedAt: string | null;
  finishedAt: string | null;
  /** A job of this process is working on it now. */
  active: boolean;
  /** Stopped before finishing (closed app, crash, cancel): can be resumed. */
  resumable: boolean;
}

export interface DemoInfo {
  description: string;
  synthetic: boolean;
  datasets: { name: string; role: DatasetRole; manifest: string; mapping: ColumnMapping }[];
}

export const auditOperations = {
  'plans.save': {
    input: z.strictObject({ projectId: Id, planId: Id.optional(), config: AuditPlan }),
    paths: ['config.fdi.source.file'],
    result: null as unknown as PlanInfo,
    summary: 'Save an audit plan; a change to a locked plan becomes a new version',
  },
  'plans.list': {
    input: z.strictObject({ projectId: Id }),
    result: null as unknown as PlanInfo[],
    summary: "A project's audit plans, newest first",
  },
  'plans.check': {
    input: z.strictObject({ projectId: Id, plan: PlanDraft }),
    paths: ['plan.fdi.source.file'],
    result: null as unknown as RequirementReport,
    summary: "What each ticked section needs and whether this project's data has it, with a fix for each missing piece",
  },
  'plans.lock': {
    input: z.strictObject({ projectId: Id, planId: Id }),
    result: null as unknown as PlanInfo,
    summary: 'Lock (pre-register) a plan: hash it with its datasets and models; refused, naming each reason, when a section cannot run',
  },
  'plans.demo': {
    input: z.strictObject({ projectId: Id, fast: z.boolean().default(false) }),
    result: null as unknown as AuditPlanConfig,
    summary: "The demo plan over this project's imported demo datasets",
  },
  'audits.start': {
    input: z.strictObject({ projectId: Id, planId: Id }),
    result: null as unknown as { auditId: string; jobId: string },
    summary: 'Run a plan in the background',
  },
  'audits.resume': {
    input: z.strictObject({ projectId: Id, auditId: Id }),
    result: null as unknown as { auditId: string; jobId: string },
    summary: 'Resume a run that stopped; finished units are kept',
  },
  'audits.list': {
    input: z.strictObject({ projectId: Id }),
    result: null as unknown as AuditRunInfo[],
    summary: "A project's audit runs, newest first",
  },
  'audits.results': {
    input: z.strictObject({ projectId: Id, auditId: Id }),
    result: null as unknown as AuditResults,
    summary: 'The results of a finished run',
  },
  'demo.describe': {
    input: z.strictObject({}),
    result: null as unknown as DemoInfo,
    summary: 'The bundled synthetic demo corpus: its datasets and column mappings',
  },
  'demo.start': {
    input: z.strictObject({ projectId: Id, quick: z.boolean().default(true) }),
    result: null as unknown as { jobId: string },
    summary: 'The one-click demo: import the bundled corpus, plan, lock and run the audit in one background job',
  },
  'demo.estimate': {
    input: z.strictObject({ quick: z.boolean().default(true) }),
    result: null as unknown as { seconds: number; measured: boolean },
    summary: "How long the demo takes on this computer, from the speeds measured on it (or, before its first run, on Equivox's build machine)",
  },
  'demo.import': {
    input: z.strictObject({ projectId: Id }),
    result: null as unknown as { jobId: string },
    summary: 'Import the bundled demo corpus into a project (a background job)',
  },
} as const;
