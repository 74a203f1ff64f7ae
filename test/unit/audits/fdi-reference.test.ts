/**
 * FDI holds a reference group per attribute set, chosen before the run (issue 32.3; the
 * impact ratios of issue 34 will be taken against it): the run records the plan's choice
 * with each grouping, leaves every number as it was, and refuses a group the scores do not
 * have, naming it and the file. Scores: test/golden/audit_fdi.json (groups a, b, c, d).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runFdi } from '../../../src/main/audits/fdi-audit';
import { UserError } from '../../../src/shared/errors';
import type { ReferenceChoiceInput } from '../../../src/shared/reference-group';
import { buildContext, fixtureProject, tempDir } from './fixture';

const golden = JSON.parse(readFileSync('test/golden/audit_fdi.json', 'utf8')) as { rows: { group: string; label: number; score: number }[] };
// The golden scores twice over: by group, and by a second label that splits a+b from c+d.
function scoresCsv(): string {
  const file = join(tempDir('fdi-ref'), 'scores.csv');
  writeFileSync(file, ['group,half,label,score', ...golden.rows.map((r) => `${r.group},${r.group < 'c' ? 'low' : 'high'},${r.label},${r.score}`)].join('\n') + '\n');
  return file;
}

const plan = (file: string, references?: { groupBy: string[]; reference: ReferenceChoiceInput }[]) => ({
  title: 'FDI references',
  sections: ['fdi' as const],
  fdi: { source: { kind: 'imported' as const, file }, groupings: [['group'], ['half']], threshold: 0.5, bootstrap: 0, nullPermutations: 0, ...(references ? { references } : {}) },
});

describe('FDI reference groups', () => {
  it('records the plan’s choice with each attribute set and changes no number', async () => {
    const file = scoresCsv();
    const { db, store } = fixtureProject('FDI references');
    const chosen = await runFdi(buildContext(db, plan(file, [{ groupBy: ['half'], reference: { kind: 'every-pair' } }, { groupBy: ['group'], reference: { kind: 'group', group: 'c', chosen: 'largest', by: 'utterances' } }])).ctx);
    expect(chosen.groupings.map((g) => g.reference)).toEqual([{ kind: 'group', group: 'c', chosen: 'largest', by: 'utterances' }, { kind: 'every-pair' }]);
    const none = buildContext(db, plan(file));
    const unplanned = await runFdi(none.ctx);
    expect(unplanned.groupings.map((g) => g.reference)).toEqual([{ kind: 'every-pair', unplanned: true }, { kind: 'every-pair', unplanned: true }]);
    expect(none.warnings).toContain('FDI (group): the plan names no reference group, so every pair of groups is compared; a plan names one, or every pair, before it can be locked.');
    // The index and the rates do not depend on the reference.
    const strip = (gs: typeof chosen.groupings) => gs.map(({ reference: _r, ...rest }) => rest);
    expect(strip(chosen.groupings)).toEqual(strip(unplanned.groupings));
    store.close();
  });

  it('a reference group the scores do not have is the auditor’s error, naming the group and the file', async () => {
    const file = scoresCsv();
    const { db, store } = fixtureProject('FDI references');
    const b = buildContext(db, plan(file, [{ groupBy: ['group'], reference: 'e' }, { groupBy: ['half'], reference: 'low' }]));
    const err = await runFdi(b.ctx).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserError);
    expect((err as UserError).message).toBe(`FDI: the reference group “e” does not occur in ${file} grouped by group (groups: a, b, c, d); choose one of these as the reference on the Groups step, or compare every pair`);
    expect((err as UserError).field).toBe('plan.fdi.references');
    store.close();
  });
});
