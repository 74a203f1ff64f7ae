import type { DatasetRole } from '../../../../shared/api/datasets';
import type { AuditPlanInput } from '../../../../shared/plan';
import { statedContext, type AuditContextInput } from '../../../../shared/audit-context';
import type { Section } from '../../../../shared/results';
import type { PlanDraftInput } from '../../../../shared/requirements';
import { load, save } from '../../lib/storage';

export const STEPS = ['Purpose', 'Data', 'Groups', 'Models', 'Plan', 'Run', 'Results', 'Report'] as const;
export const ALL_SECTIONS: Section[] = ['speat', 'ser', 'wer', 'fdi'];

/**
 * What the Data step should open with, after a fix button elsewhere sent the auditor
 * there: an import for a role, or the column mapping of an imported file again.
 */
export type DataIntent =
  | { kind: 'import'; role: DatasetRole }
  | { kind: 'remap'; datasetId: string; column: 'hypothesis' | 'transcript' | 'valence' | 'speaker' | 'groups' };

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
  intent?: DataIntent | null;
  /** The system, purpose, provenance and independence as typed on the Purpose step; saved into the plan (blank fields dropped). */
  context?: AuditContextInput;
  /** Remedial actions and re-audit date as typed on the Report step; passed to reports.build. */
  followUp?: { remedialActions?: string; reauditDate?: string };
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

/**
 * What the requirement check (plans.check) is asked: the plan so far, with the datasets
 * chosen for each role, before the plan itself is complete.
 */
export function requirementDraft(d: Draft): PlanDraftInput {
  const p = d.plan;
  const ds = d.datasets;
  const fdiSource = p?.fdi?.source;
  return {
    sections: d.sections,
    models: p?.models ?? [],
    speat: {
      ...(ds.target ? { targetDataset: ds.target } : {}),
      ...(ds.attribute ? { attributeDataset: ds.attribute } : {}),
      ...(p?.speat?.attributePerSpeaker !== undefined ? { attributePerSpeaker: p.speat.attributePerSpeaker } : {}),
      tests: (p?.speat?.tests ?? []).map((t) => ({ id: t.id, name: t.name, targetDataset: t.targetDataset, x: t.x, y: t.y })),
    },
    ser: { ...(ds.attribute ? { valenceDataset: ds.attribute } : {}), ...(p?.ser?.split ? { split: p.ser.split } : {}) },
    wer: {
      ...(ds.asr ? { dataset: ds.asr } : {}),
      ...(p?.wer?.hypotheses ? { hypotheses: p.wer.hypotheses.source === 'model' ? { source: 'model' as const, modelId: p.wer.hypotheses.modelId } : { source: 'column' as const, ...(p.wer.hypotheses.recogniser ? { recogniser: p.wer.hypotheses.recogniser } : {}) } } : {}),
      groupBy: p?.wer?.groupBy ?? [],
      ...(p?.wer?.referenceGroup !== undefined ? { referenceGroup: p.wer.referenceGroup } : {}),
    },
    fdi: {
      source:
        fdiSource?.kind === 'imported'
          ? { kind: 'imported', file: fdiSource.file }
          : { kind: 'verification', ...(ds.verification ? { dataset: ds.verification } : {}), modelId: fdiSource?.kind === 'verification' ? fdiSource.modelId : 'acoustic-baseline' },
      groupings: p?.fdi?.groupings ?? [],
      ...(p?.fdi?.references ? { references: p.fdi.references } : {}),
    },
  };
}

/** The plan as it will be saved: only the chosen sections. */
export function effectivePlan(d: Draft): AuditPlanInput | null {
  if (!d.plan) return null;
  const p: AuditPlanInput = { ...d.plan, sections: d.sections };
  for (const s of ALL_SECTIONS) if (!d.sections.includes(s)) delete p[s];
  // What the Purpose step holds replaces the plan's; absent when nothing is stated, so the plan hashes as before these fields.
  const context = d.context !== undefined ? statedContext(d.context) : statedContext(d.plan.context);
  if (context) p.context = context;
  else delete p.context;
  return p;
}
