/**
 * Issue 23.5: `audit lock` refuses what `audit run` would refuse. FDI thresholds from 0 to
 * 1 in steps of 1e-9 passed the lock and then failed the whole audit with "internal: too
 * many thresholds". The bounds the run enforces on the plan alone (found with
 * `grep -rn "too many\|must be at most\|> MAX" src/main` and the plan checks of
 * speat-audit.ts / speat-design.ts) are now in the plan's schema; the schema's threshold
 * rule is checked against the run's own thresholdRange on a grid of sweeps.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/main/cli';
import { thresholdRange } from '../../../src/main/stats';
import { FdiPlan, MAX_FDI_THRESHOLDS, SpeatTestPlan } from '../../../src/shared/plan';

const dir = mkdtempSync(join(tmpdir(), 'equivox-lock-bounds-'));
process.env.EQUIVOX_HOME = join(dir, 'home');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const fdi = (thresholds: { from: number; to: number; step: number }) => ({ source: { kind: 'imported', file: '/x.csv' }, groupings: [['g']], thresholds });

describe('the schema accepts a threshold sweep exactly when the run can compute it', () => {
  const sweeps: [number, number, number][] = [
    [0, 1, 0.05],
    [0, 1, 1e-9], // the issue's plan
    [0, 99_999, 1], // 100,000 thresholds: the most
    [0, 100_000, 1], // 100,001
    [0, 1, 1e-5], // 100,001 with floating-point steps
    [0, 1, 1.00001e-5],
    [0.5, 0.5, 0.1],
    [1, 0, 0.1], // downwards
    [-3, 3, 6e-5],
    [-3, 3, 5.9999e-5],
    [-1e300, 1e300, 1e295],
    [-1.7e308, 1.7e308, 1],
    [0, 1, 0.3],
  ];
  it.each(sweeps)('from %d to %d step %d', (from, to, step) => {
    let runs: boolean;
    try {
      runs = thresholdRange(from, to, step).length <= MAX_FDI_THRESHOLDS;
    } catch {
      runs = false;
    }
    const parsed = FdiPlan.safeParse(fdi({ from, to, step }));
    expect(parsed.success).toBe(runs);
    if (!parsed.success) expect(parsed.error.issues[0]!.path.join('.')).toMatch(/^thresholds\.(step|to)$/);
  });

  it('the boundary is the run’s 100,000', () => {
    expect(thresholdRange(0, 99_999, 1)).toHaveLength(MAX_FDI_THRESHOLDS);
    expect(() => thresholdRange(0, 100_000, 1)).toThrow('too many thresholds');
  });
});

describe('a SpEAT test the run refuses is refused by the schema, naming the field', () => {
  const test = (x: { label: string; value: string }, y: { label: string; value: string }, matchOn: string[] = []) => ({ id: 't1', name: 'T', targetDataset: 'd', x, y, matchOn });
  it.each([
    [test({ label: 'gender', value: 'f' }, { label: 'accent', value: 'us' }), 'y.label', /X and Y must be values of the same label \(got gender and accent\)/],
    [test({ label: 'gender', value: 'f' }, { label: 'gender', value: 'f' }), 'y.value', /X and Y must be different groups/],
    [test({ label: 'gender', value: 'f' }, { label: 'gender', value: 'm' }, ['gender']), 'matchOn', /cannot match on "gender"/],
  ])('%j', (t, field, message) => {
    const r = SpeatTestPlan.safeParse(t);
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]).toMatchObject({ path: field.split('.'), message: expect.stringMatching(message) });
  });
  it('a well-formed test still passes', () => {
    expect(SpeatTestPlan.safeParse(test({ label: 'gender', value: 'f' }, { label: 'gender', value: 'm' }, ['accent'])).success).toBe(true);
  });
});

describe('audit lock through the CLI', () => {
  async function cli(argv: string[]) {
    let out = '';
    let err = '';
    const code = await runCli(argv, { stdout: (s) => (out += s), stderr: (s) => (err += s) });
    return { code, out, err };
  }

  it('refuses the issue’s plan (FDI thresholds 0 to 1 in steps of 1e-9) with exit 1, naming the field, and locks nothing', async () => {
    const project = join(dir, 'project');
    expect((await cli(['projects', 'create', '--name', 'Bounds', '--dir', project])).code).toBe(0);
    const scores = join(dir, 'scores.csv');
    writeFileSync(scores, 'group,label,score\na,1,0.9\na,0,0.2\nb,1,0.8\nb,0,0.3\n');
    const plan = join(dir, 'plan.json');
    writeFileSync(plan, JSON.stringify({ title: 'Bounds', sections: ['fdi'], fdi: { source: { kind: 'imported', file: scores }, groupings: [['group']], thresholds: { from: 0, to: 1, step: 1e-9 } } }));
    const r = await cli(['audit', 'lock', '--project', project, '--plan', plan]);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out).error).toEqual({
      code: 'user',
      field: 'plan.fdi.thresholds.step',
      message: expect.stringMatching(/^plan fdi.thresholds.step: 1,000,000,000 thresholds from 0 to 1 in steps of 1e-9; at most 100,000: use a larger step/),
    });
    expect(JSON.parse((await cli(['audit', 'list', '--project', project])).out)).toEqual([]);
  });
});
