import { type JSX, useEffect, useRef, useState } from 'react';
import { Breadcrumb } from '../../components/Breadcrumb';
import type { Project } from '../../../../shared/api';
import { SECTION_SHORT, unmetAt, type RequirementFix, type RequirementStep } from '../../../../shared/requirements';
import type { Nav } from '../../nav';
import { RequirementsPanel } from '../../components/RequirementsPanel';
import { StepList } from '../../components/StepList';
import { useRequirements } from '../../lib/requirements';
import { setProjectFolder } from '../../lib/chooser-start';
import { DataStep } from './DataStep';
import { type Draft, loadDraft, neededRoles, requirementDraft, saveDraft, STEPS, type WizardEntry } from './draft';
import { ROLE_PLAIN } from '../../../../shared/roles';
import { GroupsStep, groupsProblem } from './GroupsStep';
import { ModelsStep, modelsProblem } from './ModelsStep';
import { PlanStep } from './PlanStep';
import { PurposeStep, purposeProblem } from './PurposeStep';
import { offerReferences } from './reference-offer';
import { ReportStep } from './ReportStep';
import { ResultsView } from './ResultsView';
import { RunStep } from './RunStep';
import type { RequirementsProps, StepProps } from './step-props';

export type { WizardEntry } from './draft';

const STEP_OF: Record<RequirementStep, number> = { purpose: 0, data: 1, groups: 2, models: 3, plan: 4 };

/**
 * Requirements that must be met to leave the Groups and Models steps. The Data step only
 * needs a dataset for each ticked section; what is wrong inside one (a column not mapped,
 * too few ratings) is shown there with its fix and refuses the lock on the Plan step.
 */
const BLOCKING: Record<number, RequirementStep[]> = { 2: ['groups'], 3: ['models'] };

export function Wizard({ project, entry, nav }: { project: Project; entry: WizardEntry; nav: Nav }): JSX.Element {
  const [draft, setDraft] = useState<Draft>(() => loadDraft(project.id, entry));
  const [runFinished, setRunFinished] = useState(false);
  const [dataVersion, setDataVersion] = useState(0);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const firstRender = useRef(true);
  const { report, error: reqError } = useRequirements(project.id, requirementDraft(draft), dataVersion);

  useEffect(() => saveDraft(project.id, draft), [project.id, draft]);
  useEffect(() => setProjectFolder(project.path), [project.path]);
  useEffect(() => {
    if (firstRender.current) {
      firstRender.current = false;
      return;
    }
    headingRef.current?.focus();
  }, [draft.step]);

  const update: StepProps['update'] = (patch) => setDraft((d) => ({ ...d, ...(typeof patch === 'function' ? patch(d) : patch) }));
  // The largest group is offered as the reference once the groups are counted, whichever step is open.
  useEffect(() => {
    setDraft((d) => {
      const plan = d.plan && offerReferences(d.plan, d.sections, report);
      return plan ? { ...d, plan, lockedSha: null } : d;
    });
  }, [report]);
  // Leaving the Data step drops a pending "import this / choose that column" request.
  const go = (step: number) => update((d) => ({ step, reached: Math.max(d.reached, step), ...(d.step === 1 && step !== 1 ? { intent: null } : {}) }));

  const fix = (f: RequirementFix) => {
    if (f.kind === 'untick') update((d) => ({ sections: d.sections.filter((s) => !f.sections.includes(s)), lockedSha: null }));
    else if (f.kind === 'setting') update((d) => (d.plan?.speat ? { plan: { ...d.plan, speat: { ...d.plan.speat, attributePerSpeaker: f.value } }, lockedSha: null } : {}));
    else if (f.kind === 'import') {
      update((d) => ({ intent: { kind: 'import', role: f.role }, dataSource: d.dataSource === 'demo' ? 'demo' : 'csv' }));
      go(STEP_OF.data);
    } else if (f.kind === 'map-column') {
      update({ intent: { kind: 'remap', datasetId: f.datasetId, column: f.column }, dataSource: 'csv' });
      go(STEP_OF.data);
    } else go(STEP_OF[f.step]);
  };

  const requirements: RequirementsProps = {
    report,
    error: reqError,
    refresh: () => setDataVersion((v) => v + 1),
    panel: (here) => <RequirementsPanel report={report} error={reqError} here={here} onFix={fix} />,
  };

  const unmetText = (steps: RequirementStep[]): string | null => {
    if (!report) return 'Checking what each section needs…';
    const unmet = unmetAt(report, steps);
    if (unmet.length === 0) return null;
    const sections = [...new Set(unmet.map((r) => SECTION_SHORT[r.section]))];
    return `Still missing for ${sections.join(', ')}: see “What each section needs” above, each with a way to fix it.`;
  };

  const problem = (): string | null => {
    switch (draft.step) {
      case 0:
        return purposeProblem(draft);
      case 1: {
        const missing = neededRoles(draft.sections).filter((r) => !draft.datasets[r]);
        if (missing.length > 0) return `Still needed: ${missing.map((r) => ROLE_PLAIN[r]).join('; ')}. Import them, or leave out the sections that need them (see “What each section needs” above).`;
        return draft.plan ? null : 'Preparing the plan from your data…';
      }
      case 2:
        return groupsProblem(draft) ?? unmetText(BLOCKING[2]!);
      case 3:
        return modelsProblem(draft) ?? unmetText(BLOCKING[3]!);
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
      <Breadcrumb nav={nav} via={[{ label: project.name, route: { name: 'project', project } }]} current="New audit" />
      <div className="wizard-layout">
        <StepList steps={STEPS} current={draft.step} reached={draft.reached} onGo={go} />
        <div className="wizard-body">
          <h1 ref={headingRef} tabIndex={-1}>
            Step {draft.step + 1} of {STEPS.length}: {stepName}
          </h1>
          {draft.step === 0 && <PurposeStep {...props} />}
          {draft.step === 1 && <DataStep {...props} requirements={requirements} onImported={requirements.refresh} />}
          {draft.step === 2 && <GroupsStep {...props} requirements={requirements} />}
          {draft.step === 3 && <ModelsStep {...props} />}
          {draft.step === 4 && <PlanStep {...props} requirements={requirements} />}
          {draft.step === 5 && <RunStep {...props} onFinished={setRunFinished} />}
          {draft.step === 6 && <ResultsView {...props} />}
          {draft.step === 7 && <ReportStep {...props} nav={nav} onDone={() => nav.go({ name: 'project', project })} />}
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
