import { type JSX, useEffect, useState } from 'react';
import type { DatasetFacts, GroupFacts } from '../../../../shared/api/datasets';
import { comparisonName, derivedComparisonName, PLACEHOLDER_COMPARISON_NAME, SPEAT_PRESETS, type AuditPlanInput, type SpeatPreset } from '../../../../shared/plan';
import { asUiError, call, type UiError } from '../../api';
import { ErrorNote } from '../../components/ErrorNote';
import type { Draft } from './draft';
import type { RequirementsProps, StepProps } from './step-props';
import { Term } from '../../components/Term';
import { fdiReferenceFor, type GroupSize, type ReferenceChoiceInput } from '../../../../shared/reference-group';
import { setReferences, sizesFor, type FdiReferences } from './reference-offer';
import { ReferenceChoiceField } from './ReferenceChoiceField';

type SpeatTest = NonNullable<AuditPlanInput['speat']>['tests'][number];

const SMALL = 10;

/** New groups for a comparison; a name that was derived from the old groups follows them, a typed one stays. */
function regroup(t: SpeatTest, patch: Partial<Pick<SpeatTest, 'x' | 'y'>>): SpeatTest {
  const name = t.name?.trim() ?? '';
  const derived = name === '' || PLACEHOLDER_COMPARISON_NAME.test(name) || name === derivedComparisonName(t);
  const next = { ...t, ...patch };
  return derived ? { ...next, name: derivedComparisonName(next) } : next;
}

export function groupsProblem(d: Draft): string | null {
  const p = d.plan;
  if (!p) return 'Go back to Data: the plan is not ready.';
  if (d.sections.includes('speat')) {
    const tests = p.speat?.tests ?? [];
    if (tests.length === 0) return 'Add at least one comparison of two groups.';
    if (tests.some((t) => t.x.label === t.y.label && t.x.value === t.y.value)) return 'Each comparison needs two different groups.';
  }
  if (d.sections.includes('wer') && (p.wer?.groupBy ?? []).length === 0) return 'Choose at least one label to group recognition errors by.';
  if (d.sections.includes('fdi') && (p.fdi?.groupings ?? []).length === 0) return 'Add at least one attribute set for the fairness measures.';
  return null;
}

function labelsOf(facts: DatasetFacts | undefined): string[] {
  return [...new Set((facts?.groups ?? []).map((g) => g.label))];
}

function groupKey(g: { label: string; value: string }): string {
  return `${g.label}=${g.value}`;
}

function SmallGroupWarning({ groups, what }: { groups: GroupFacts[]; what: string }): JSX.Element | null {
  const small = groups.filter((g) => g.clips < SMALL);
  if (small.length === 0) return null;
  return (
    <div className="warn-box" role="note">
      <p>
        <strong>Small groups in {what}:</strong> {small.map((g) => `${g.value} (${g.label}): ${g.clips} recording${g.clips === 1 ? '' : 's'}`).join('; ')}.
      </p>
      <p>
        With fewer than {SMALL} recordings per group the result is very uncertain: in the SpEAT paper the typical spread (standard error) of the effect size was 0.75 with 2 recordings per group, 0.33 with 10 and 0.12 with 60. Treat any difference as a
        hint to collect more data, not as a finding.
      </p>
    </div>
  );
}

export function GroupsStep({ project, draft, update, requirements }: StepProps & { requirements: RequirementsProps }): JSX.Element {
  const [facts, setFacts] = useState<Record<string, DatasetFacts>>({});
  const [error, setError] = useState<UiError | null>(null);
  const plan = draft.plan;
  const targetId = draft.datasets.target;
  const asrId = draft.datasets.asr;
  const verId = draft.datasets.verification;

  useEffect(() => {
    const ids = [targetId, asrId, verId].filter((x): x is string => Boolean(x));
    Promise.all(ids.map((id) => call('datasets.show', { projectId: project.id, datasetId: id })))
      .then((list) => setFacts(Object.fromEntries(list.map((f) => [f.dataset.id, f]))))
      .catch((err: unknown) => setError(asUiError(err)));
  }, [project.id, targetId, asrId, verId]);

  const setPlan = (fn: (p: AuditPlanInput) => AuditPlanInput) => update((d) => (d.plan ? { plan: fn(d.plan), lockedSha: null } : {}));

  const target = targetId ? facts[targetId] : undefined;
  const asr = asrId ? facts[asrId] : undefined;
  const ver = verId ? facts[verId] : undefined;

  // Suggest a starting point for own data: the first label with two groups.
  useEffect(() => {
    if (!plan) return;
    if (draft.sections.includes('speat') && target && plan.speat && plan.speat.tests.length === 0) {
      const label = labelsOf(target).find((l) => target.groups.filter((g) => g.label === l).length >= 2);
      if (label) {
        const [a, b] = target.groups.filter((g) => g.label === label);
        setPlan((p) => ({ ...p, speat: { ...p.speat!, tests: [{ id: 't1', name: derivedComparisonName({ x: a, y: b }), targetDataset: targetId!, x: { label, value: a.value }, y: { label, value: b.value }, matchOn: [] }] } }));
      }
    }
    if (draft.sections.includes('wer') && asr && plan.wer && plan.wer.groupBy.length === 0 && labelsOf(asr)[0]) setPlan((p) => ({ ...p, wer: { ...p.wer!, groupBy: [labelsOf(asr)[0]] } }));
    if (draft.sections.includes('fdi') && ver && plan.fdi && plan.fdi.groupings.length === 0 && labelsOf(ver)[0]) setPlan((p) => ({ ...p, fdi: { ...p.fdi!, groupings: [[labelsOf(ver)[0]]] } }));
    // Only once the facts have arrived.
  }, [target, asr, ver]);

  const report = requirements.report;
  if (!plan) return <p>Go back to the Data step: the plan is not ready yet.</p>;
  const tests = plan.speat?.tests ?? [];
  const setTest = (i: number, t: SpeatTest) => setPlan((p) => ({ ...p, speat: { ...p.speat!, tests: p.speat!.tests.map((x, j) => (j === i ? t : x)) } }));
  const targetGroups = target?.groups ?? [];
  const parse = (key: string) => {
    const i = key.indexOf('=');
    return { label: key.slice(0, i), value: key.slice(i + 1) };
  };

  return (
    <div>
      <p className="lead">Which groups of speakers should be compared? Groups come from the labels in your data (for example gender or accent).</p>
      <ErrorNote error={error} what="Could not read the groups in your data:" next="Go back to Data and check the datasets, then return here." />

      {draft.sections.includes('speat') && (
        <section className="card" aria-labelledby="speat-groups-heading">
          <h2 id="speat-groups-heading">Comparisons for the association test (SpEAT)</h2>
          <p className="hint">
            Each comparison asks whether recordings of group X sit closer to pleasant speech than recordings of group Y inside the model (its <Term k="embedding">embeddings</Term>). <strong>Matching</strong> picks equal numbers from each combination of the chosen labels, so that, for example, an accent
            comparison is not really a gender comparison.
          </p>
          {tests.map((t, i) => {
            const xGroup = targetGroups.find((g) => groupKey(g) === groupKey(t.x));
            const yGroup = targetGroups.find((g) => groupKey(g) === groupKey(t.y));
            const others = labelsOf(target).filter((l) => l !== t.x.label && l !== t.y.label);
            return (
              <fieldset key={t.id} className="test-card">
                <legend>
                  Comparison {i + 1}: {comparisonName(t)}
                </legend>
                <div className="grid3">
                  <div className="field">
                    <label htmlFor={`test-${i}-name`}>Name</label>
                    <input id={`test-${i}-name`} value={t.name ?? ''} placeholder={derivedComparisonName(t)} aria-describedby={`test-${i}-name-hint`} onChange={(e) => setTest(i, { ...t, name: e.target.value })} />
                    <span className="hint" id={`test-${i}-name-hint`}>
                      Left empty, the comparison is named after its groups.
                    </span>
                  </div>
                  <div className="field">
                    <label htmlFor={`test-${i}-x`}>Group X (tested for closeness to pleasant)</label>
                    <select id={`test-${i}-x`} value={groupKey(t.x)} onChange={(e) => setTest(i, regroup(t, { x: parse(e.target.value) }))}>
                      {targetGroups.map((g) => (
                        <option key={groupKey(g)} value={groupKey(g)}>
                          {g.label}: {g.value} ({g.clips})
                        </option>
                      ))}
                    </select>
                  </div>
                  <div className="field">
                    <label htmlFor={`test-${i}-y`}>Group Y (compared with)</label>
                    <select id={`test-${i}-y`} value={groupKey(t.y)} onChange={(e) => setTest(i, regroup(t, { y: parse(e.target.value) }))}>
                      {targetGroups.map((g) => (
                        <option key={groupKey(g)} value={groupKey(g)}>
                          {g.label}: {g.value} ({g.clips})
                        </option>
                      ))}
                    </select>
                  </div>
                </div>
                <div className="row">
                  <span className="label-like" id={`test-${i}-match`}>
                    Match on:
                  </span>
                  {others.length === 0 && <span className="muted">no other labels</span>}
                  {others.map((l) => (
                    <span key={l} className="check">
                      <input
                        type="checkbox"
                        id={`test-${i}-match-${l}`}
                        checked={(t.matchOn ?? []).includes(l)}
                        onChange={(e) => setTest(i, { ...t, matchOn: e.target.checked ? [...(t.matchOn ?? []), l] : (t.matchOn ?? []).filter((m) => m !== l) })}
                      />
                      <label htmlFor={`test-${i}-match-${l}`}>{l}</label>
                    </span>
                  ))}
                </div>
                <div className="field">
                  <label htmlFor={`test-${i}-preset`}>Compare with a human result</label>
                  <span className="hint">
                    The <Term k="iat">human IAT D</Term> of the SpEAT paper's matching test, shown beside the model's.
                  </span>
                  <select
                    id={`test-${i}-preset`}
                    value={t.preset ?? ''}
                    onChange={(e) => {
                      const { preset: _old, ...rest } = t;
                      setTest(i, e.target.value ? { ...rest, preset: e.target.value as SpeatPreset } : rest);
                    }}
                  >
                    <option value="">none</option>
                    {Object.entries(SPEAT_PRESETS).map(([k, v]) => (
                      <option key={k} value={k}>
                        {v.name} (people: {v.humanIatD})
                      </option>
                    ))}
                  </select>
                </div>
                {xGroup && yGroup && <SmallGroupWarning groups={[xGroup, yGroup]} what={`“${t.name}”`} />}
                {(t.matchOn ?? []).length > 0 && <p className="hint">Matching may leave fewer recordings than the counts above; the results show the numbers actually used.</p>}
                <button type="button" onClick={() => setPlan((p) => ({ ...p, speat: { ...p.speat!, tests: p.speat!.tests.filter((_, j) => j !== i) } }))}>
                  Remove comparison {i + 1}
                </button>
              </fieldset>
            );
          })}
          {targetGroups.length >= 2 && (
            <button
              type="button"
              onClick={() =>
                setPlan((p) => {
                  const used = new Set(p.speat!.tests.map((t) => t.id));
                  let n = p.speat!.tests.length + 1;
                  while (used.has(`t${n}`)) n++;
                  const [a, b] = targetGroups;
                  return { ...p, speat: { ...p.speat!, tests: [...p.speat!.tests, { id: `t${n}`, name: derivedComparisonName({ x: a, y: b }), targetDataset: targetId!, x: { label: a.label, value: a.value }, y: { label: b.label, value: b.value }, matchOn: [] }] } };
                })
              }
            >
              Add a comparison
            </button>
          )}
        </section>
      )}

      {draft.sections.includes('wer') && plan.wer && (
        <section className="card" aria-labelledby="wer-groups-heading">
          <h2 id="wer-groups-heading">Groups for recognition errors (WER)</h2>
          <p className="hint">Error rates are compared between the groups of the chosen labels; choosing two labels compares their combinations (for example women with a Scottish accent).</p>
          <fieldset>
            <legend>Group recognition errors by</legend>
            <div className="row">
              {labelsOf(asr).map((l) => (
                <span key={l} className="check">
                  <input
                    type="checkbox"
                    id={`wer-by-${l}`}
                    checked={plan.wer!.groupBy.includes(l)}
                    onChange={(e) =>
                      setPlan((p) => {
                        // New groups: a named reference group is offered again; every pair stays.
                        const { referenceGroup, ...rest } = p.wer!;
                        const keep = typeof referenceGroup === 'object' && referenceGroup.kind === 'every-pair';
                        return { ...p, wer: { ...rest, ...(keep ? { referenceGroup } : {}), groupBy: e.target.checked ? [...p.wer!.groupBy, l] : p.wer!.groupBy.filter((x) => x !== l) } };
                      })
                    }
                  />
                  <label htmlFor={`wer-by-${l}`}>{l}</label>
                </span>
              ))}
            </div>
          </fieldset>
          {asr && <SmallGroupWarning groups={asr.groups.filter((g) => plan.wer!.groupBy.includes(g.label))} what="the recognition data" />}
          {plan.wer.groupBy.length > 0 && (
            <ReferenceChoiceField
              id="wer-reference"
              title="Compare the error rates with"
              sizes={sizesFor(report, 'wer', plan.wer.groupBy)}
              value={plan.wer.referenceGroup}
              holm
              onChange={(referenceGroup) => setPlan((p) => ({ ...p, wer: { ...p.wer!, referenceGroup } }))}
            />
          )}
        </section>
      )}

      {draft.sections.includes('fdi') && plan.fdi && (
        <FdiGroupings
          labels={labelsOf(ver)}
          groupings={plan.fdi.groupings}
          groups={ver?.groups ?? []}
          references={plan.fdi.references}
          sizes={(by) => sizesFor(report, 'fdi', by)}
          onChange={(groupings) =>
            setPlan((p) => {
              // A removed attribute set takes its reference with it.
              const kept = (p.fdi!.references ?? []).filter((r) => groupings.some((g) => JSON.stringify(g) === JSON.stringify(r.groupBy)));
              return { ...p, fdi: { ...p.fdi!, groupings, references: kept } };
            })
          }
          onReference={(groupBy, reference) => setPlan((p) => ({ ...p, fdi: { ...p.fdi!, references: setReferences(p.fdi!.references, [{ groupBy, reference }]) } }))}
        />
      )}
      {requirements.panel('groups')}
    </div>
  );
}

function FdiGroupings({
  labels,
  groupings,
  groups,
  references,
  sizes,
  onChange,
  onReference,
}: {
  labels: string[];
  groupings: string[][];
  groups: GroupFacts[];
  references: FdiReferences | undefined;
  sizes: (groupBy: string[]) => GroupSize[] | undefined;
  onChange: (g: string[][]) => void;
  onReference: (groupBy: string[], reference: ReferenceChoiceInput) => void;
}): JSX.Element {
  const [pick, setPick] = useState<string[]>([]);
  return (
    <section className="card" aria-labelledby="fdi-groups-heading">
      <h2 id="fdi-groups-heading">Attribute sets for the fairness measures (FDI)</h2>
      <p className="hint">Each attribute set is one way of splitting speakers into groups; the fairness measures are compared within each set.</p>
      <ul className="item-list" aria-label="Attribute sets">
        {groupings.map((g, i) => (
          <li key={g.join('+')}>
            <div className="row spread">
              <span>{g.join(' × ')}</span>
              <button type="button" onClick={() => onChange(groupings.filter((_, j) => j !== i))}>
                Remove<span className="visually-hidden"> attribute set {g.join(' × ')}</span>
              </button>
            </div>
            <ReferenceChoiceField
              id={`fdi-reference-${i}`}
              title={`Reference group for ${g.join(' × ')}`}
              sizes={sizes(g)}
              value={fdiReferenceFor(references, g)}
              holm={false}
              onChange={(r) => onReference(g, r)}
            />
          </li>
        ))}
      </ul>
      <fieldset>
        <legend>New attribute set</legend>
        <div className="row">
          {labels.map((l) => (
            <span key={l} className="check">
              <input type="checkbox" id={`fdi-new-${l}`} checked={pick.includes(l)} onChange={(e) => setPick(e.target.checked ? [...pick, l] : pick.filter((x) => x !== l))} />
              <label htmlFor={`fdi-new-${l}`}>{l}</label>
            </span>
          ))}
          <button
            type="button"
            disabled={pick.length === 0 || groupings.some((g) => g.join('+') === pick.join('+'))}
            onClick={() => {
              onChange([...groupings, pick]);
              setPick([]);
            }}
          >
            Add attribute set
          </button>
        </div>
      </fieldset>
      <SmallGroupWarning groups={groups.filter((g) => groupings.some((set) => set.includes(g.label)))} what="the verification data" />
    </section>
  );
}
