import type { DatasetRole } from '../../../../shared/api/datasets';
import type { AuditPlanInput } from '../../../../shared/plan';
import type { Section } from '../../../../shared/results';
import { load, save } from '../../lib/storage';

export const STEPS = ['Purpose', 'Data', 'Groups', 'Models', 'Plan', 'Run', 'Results', 'Report'] as const;
export const ALL_SECTIONS: Section[] = ['speat', 'ser', 'wer', 'fdi'];

/** Everything the auditor entered in the wizard; saved on every change so nothing is lost. */
export interface Draft {
  step: number;
  reached: number;
  sections: Section[];
  dataSource: 'demo' | 'csv' | null;
  quick: boolean;
  datasets: Partial<Record<DatasetRole, string>>;
  plan: AuditPlanInput | null;
  planId: string | null;
  lockedSha: string | null;
  auditId: string | null;
  jobId: string | null;
}

export interface WizardEntry {
  demo?: boolean;
  auditId?: string;
  jobId?: string;
  step?: number;
}

export function emptyDraft(): Draft {
  return { step: 0, reached: 0, sections: [...ALL_SECTIONS], dataSource: null, quick: false, datasets: {}, plan: null, planId: null, lockedSha: null, auditId: null, jobId: null };
}

const key = (projectId: string) => `equivox.wizard.${projectId}`;

export function loadDraft(projectId: string, entry: WizardEntry): Draft {
  const stored = load<Draft | null>(key(projectId), null);
  let d: Draft = stored ?? emptyDraft();
  if (entry.auditId) {
    // Opening a run (resume, results): keep the draft when it is about that run.
    if (d.auditId !== entry.auditId) d = { ...emptyDraft(), auditId: entry.auditId };
    if (entry.jobId) d = { ...d, jobId: entry.jobId };
    const step = entry.step ?? 5;
    d = { ...d, step, reached: Math.max(d.reached, step) };
  } else if (!stored || stored.auditId) {
    // A new audit.
    d = emptyDraft();
  }
  if (entry.demo && !d.dataSource) d = { ...d, dataSource: 'demo', step: 1, reached: 1 };
  return d;
}

export function saveDraft(projectId: string, d: Draft): void {
  save(key(projectId), d);
}

/** Which dataset roles the chosen sections need. */
export function neededRoles(sections: Section[]): DatasetRole[] {
  const roles = new Set<DatasetRole>();
  if (sections.includes('speat')) {
    roles.add('target');
    roles.add('attribute');
  }
  if (sections.includes('ser')) roles.add('attribute');
  if (sections.includes('wer')) roles.add('asr');
  if (sections.includes('fdi')) roles.add('verification');
  return [...roles];
}

/** The plan as it will be saved: only the chosen sections. */
export function effectivePlan(d: Draft): AuditPlanInput | null {
  if (!d.plan) return null;
  const p: AuditPlanInput = { ...d.plan, sections: d.sections };
  for (const s of ALL_SECTIONS) if (!d.sections.includes(s)) delete p[s];
  return p;
}
