import type { JSX } from 'react';
import type { Project } from '../../../../shared/api';
import type { RequirementReport, RequirementStep } from '../../../../shared/requirements';
import type { UiError } from '../../api';
import type { Draft } from './draft';

// Apart from Wizard.tsx so that the steps it renders do not import the wizard back.
export interface StepProps {
  project: Project;
  draft: Draft;
  update: (patch: Partial<Draft> | ((d: Draft) => Partial<Draft>)) => void;
}

/** The requirement check's state and what the steps do with it. */
export interface RequirementsProps {
  report: RequirementReport | null;
  error: UiError | null;
  /** Ask again (after an import finished). */
  refresh: () => void;
  /** The panel of present and missing requirements with fix buttons, for a step. */
  panel: (here: RequirementStep) => JSX.Element;
}
