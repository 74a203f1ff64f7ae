import { type JSX, useEffect, useRef, useState } from 'react';
import type { Project } from '../../../../shared/api';
import type { Nav } from '../../App';
import { StepList } from '../../components/StepList';
import { DataStep } from './DataStep';
import { type Draft, loadDraft, neededRoles, saveDraft, STEPS, type WizardEntry } from './draft';
import { GroupsStep, groupsProblem } from './GroupsStep';
import { ModelsStep, modelsProblem } from './ModelsStep';
import { PlanStep } from './PlanStep';
import { PurposeStep, purposeProblem } from './PurposeStep';
import { ReportStep } from './ReportStep';
import { ResultsView } from './ResultsView';
import { RunStep } from './RunStep';

export type { WizardEntry } from './draft';

export interface StepProps {
  project: Project;
  draft: Draft;
  update: (patch: Partial<Draft> | ((d: Draft) => Partial<Draft>)) => void;
}

export function Wizard({ project, entry, nav }: { project: Project; entry: WizardEntry; nav: Nav }): JSX.Element {
  const [draft, setDraft] = useState<Draft>(() => loadDraft(project.id, entry));
  const [runFinished, setRunFinished] = useState(false);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const firstRender = useRef(true);

  useEffect(() => saveDraft(project.id, draft), [project.id, draft]);
  useEffect(() => {
    if (firstRender.current) {
      firstRender.current = false;
      return;
    }
    headingRef.current?.focus();
  }, [draft.step]);

  const update: StepProps['update'] = (patch) => setDraft((d) => ({ ...d, ...(typeof patch === 'function' ? patch(d) : patch) }));
  const go = (step: number) => update((d) => ({ step, reached: Math.max(d.reached, step) }));

  const problem = (): string | null => {
    switch (draft.step) {
      case 0:
        return purposeProblem(draft);
      case 1: {
        const missing = neededRoles(draft.sections).filter((r) => !draft.datasets[r]);
        if (missing.length > 0) return `Import recordings first: still missing ${missing.join(', ')} data.`;
        if (!draft.plan) return 'Preparing the plan from your data…';
        return null;
      }
      case 2:
        return groupsProblem(draft);
      case 3:
        return modelsProblem(draft);
      case 4:
        return draft.lockedSha ? null : 'Lock the plan to go on: a locked plan is recorded before any result is seen.';
      case 5:
        return runFinished ? null : 'The results open once the run has finished.';
      default:
        return null;
    }
  };
  const blocked = problem();
  const props: StepProps = { project, draft, update };
  const stepName = STEPS[draft.step];

  return (
    <div className="wizard">
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <button type="button" className="link" onClick={() => nav.go({ name: 'home' })}>
          Projects
        </button>{' '}
        /{' '}
        <button type="button" className="link" onClick={() => nav.go({ name: 'project', project })}>
          {project.name}
        </button>{' '}
        / <span aria-current="page">New audit</span>
      </nav>
      <div className="wizard-layout">
        <StepList steps={STEPS} current={draft.step} reached={draft.reached} onGo={go} />
        <div className="wizard-body">
          <h1 ref={headingRef} tabIndex={-1}>
            Step {draft.step + 1} of {STEPS.length}: {stepName}
          </h1>
          {draft.step === 0 && <PurposeStep {...props} />}
          {draft.step === 1 && <DataStep {...props} />}
          {draft.step === 2 && <GroupsStep {...props} />}
          {draft.step === 3 && <ModelsStep {...props} />}
          {draft.step === 4 && <PlanStep {...props} />}
          {draft.step === 5 && <RunStep {...props} onFinished={setRunFinished} />}
          {draft.step === 6 && <ResultsView {...props} />}
          {draft.step === 7 && <ReportStep {...props} onDone={() => nav.go({ name: 'project', project })} />}
          <div className="wizard-nav">
            <button type="button" onClick={() => go(draft.step - 1)} disabled={draft.step === 0}>
              Back
            </button>
            {draft.step < STEPS.length - 1 && (
              <button type="button" className="primary" onClick={() => go(draft.step + 1)} disabled={blocked !== null} aria-describedby={blocked ? 'next-blocked' : undefined}>
                Next: {STEPS[draft.step + 1]}
              </button>
            )}
            {blocked && (
              <span id="next-blocked" className="hint">
                {blocked}
              </span>
            )}
          </div>
        </div>
      </div>
    </div>
  );
}
