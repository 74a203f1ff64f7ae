/**
 * What each section of an audit needs before it can run, checked before a plan is
 * locked (src/main/audits/requirements.ts) and shown by the wizard's Data, Groups and
 * Plan steps with a fix for each missing piece. The same check refuses the lock in the
 * API and in `audit lock`, one plain-language reason per line.
 *
 * The check takes a plan draft: the plan with every part optional, so the wizard can ask
 * before all data is there. A complete plan (src/shared/plan.ts) is a valid draft.
 */
import { z } from 'zod';
import type { DatasetRole } from './api/datasets';
import type { Section } from './results';
import { ReferenceChoice, type GroupSize } from './reference-group';

const Id = z.string().min(1).max(100);
const Label = z.string().trim().min(1).max(100);
const GroupRef = z.object({ label: Label, value: z.string().min(1).max(200) });
const SectionName = z.enum(['speat', 'ser', 'wer', 'fdi']);

/** A plan with every part optional; unknown keys (the rest of a full plan) are ignored. */
export const PlanDraft = z.object({
  sections: z.array(SectionName).max(4),
  models: z.array(Id).max(50).default([]),
  speat: z
    .object({
      /** The target recordings before any comparison names them (the wizard's Data step). */
      targetDataset: Id.optional(),
      attributeDataset: Id.optional(),
      attributePerSpeaker: z.number().int().min(1).max(1000).optional(),
      tests: z
        .array(
          z.object({
            id: z.string().min(1).max(60),
            name: z.string().max(200).optional(),
            targetDataset: Id.optional(),
            x: GroupRef.optional(),
            y: GroupRef.optional(),
          }),
        )
        .max(50)
        .default([]),
    })
    .optional(),
  ser: z
    .object({
      valenceDataset: Id.optional(),
      split: z.object({ train: z.number().min(0.1).max(1), validation: z.number().min(0.05).max(1), test: z.number().min(0.05).max(1) }).optional(),
    })
    .optional(),
  wer: z
    .object({
      dataset: Id.optional(),
      hypotheses: z.object({ source: z.enum(['column', 'model']), modelId: Id.optional(), recogniser: z.object({ name: z.string().max(200).optional(), version: z.string().max(100).optional(), settings: z.string().max(2000).optional() }).optional() }).optional(),
      groupBy: z.array(Label).max(4).default([]),
      referenceGroup: ReferenceChoice.optional(),
    })
    .optional(),
  fdi: z
    .object({
      source: z
        .object({
          kind: z.enum(['verification', 'imported']),
          dataset: Id.optional(),
          modelId: Id.optional(),
          file: z.string().min(1).max(4096).optional(),
        })
        .optional(),
      groupings: z.array(z.array(Label).max(4)).max(10).default([]),
      references: z.array(z.object({ groupBy: z.array(Label).max(4), reference: ReferenceChoice })).max(10).optional(),
    })
    .optional(),
});
export type PlanDraftInput = z.input<typeof PlanDraft>;
export type PlanDraftConfig = z.output<typeof PlanDraft>;

/** Where in the wizard a requirement is met. */
export type RequirementStep = 'purpose' | 'data' | 'groups' | 'models' | 'plan';

/** One way to meet a missing requirement, offered as a button. `label` is the button text. */
export type RequirementFix =
  | { kind: 'import'; role: DatasetRole; label: string }
  | { kind: 'map-column'; datasetId: string; column: 'hypothesis' | 'transcript' | 'valence' | 'speaker' | 'groups'; label: string }
  | { kind: 'untick'; sections: Section[]; label: string }
  /** Change one plan setting to a value the data supports (e.g. fewer rated recordings per speaker). */
  | { kind: 'setting'; path: ['speat', 'attributePerSpeaker']; value: number; label: string }
  | { kind: 'step'; step: RequirementStep; label: string };

export interface Requirement {
  /** Stable key, e.g. "wer.hypotheses". */
  id: string;
  section: Section;
  /** What is needed, in plain words. */
  need: string;
  met: boolean;
  /** What is there (when met) or what is missing and why (when not). */
  detail: string;
  step: RequirementStep;
  fixes: RequirementFix[];
}

export interface SectionReadiness {
  section: Section;
  name: string;
  ready: boolean;
  requirements: Requirement[];
}

export interface RequirementReport {
  /** Every ticked section can run. */
  ready: boolean;
  sections: SectionReadiness[];
  /** One line per unmet requirement, "WER: …": what `audit lock` prints. */
  reasons: string[];
  /**
   * Each group's size, per WER grouping and FDI attribute set the draft names, counted as
   * the lock checks the reference group: what the Groups step offers the largest of.
   */
  groupSizes?: { section: 'wer' | 'fdi'; groupBy: string[]; sizes: GroupSize[] }[];
}

/** The sections in plain words, with the short name the reports use in brackets. */
export const SECTION_PLAIN: Record<Section, string> = {
  speat: 'Association in the model (SpEAT)',
  ser: 'Carry-over into emotion recognition (SER)',
  wer: 'Speech recognition errors (WER)',
  fdi: 'Do fairness measures agree? (FDI)',
};

export const SECTION_SHORT: Record<Section, string> = { speat: 'SpEAT', ser: 'SER', wer: 'WER', fdi: 'FDI' };

export const SECTION_ORDER: readonly Section[] = ['speat', 'ser', 'wer', 'fdi'];

/** Requirements that block leaving a wizard step (later steps' requirements do not). */
export function unmetAt(report: RequirementReport | null, steps: readonly RequirementStep[]): Requirement[] {
  if (!report) return [];
  return report.sections.flatMap((s) => s.requirements.filter((r) => !r.met && steps.includes(r.step)));
}
