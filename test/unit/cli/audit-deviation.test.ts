import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

function cli(home: string, args: string[]) {
  const r = spawnSync('npx', ['tsx', 'src/main/cli.ts', ...args], { env: { ...process.env, EQUIVOX_HOME: home }, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, json: () => JSON.parse(r.stdout) as Record<string, unknown> };
}

describe('audit CLI: lock, run, deviations', () => {
  it('runs a locked plan with its hash, and reports a later change as a deviation', () => {
    const home = mkdtempSync(join(tmpdir(), 'equivox-dev-'));
    const dir = join(home, 'project');
    expect(cli(home, ['projects', 'create', '--name', 'Deviation', '--dir', dir]).code).toBe(0);
    const imported = cli(home, ['datasets', 'import', '--project', dir, '--manifest', resolve('resources/demo/asr.csv'), '--role', 'asr',
      '--map', 'path=path,speaker=speaker,accent=group,gender=group,transcript=transcript,hypothesis=hypothesis']);
    expect(imported.code, imported.stderr).toBe(0);
    const datasetId = imported.json().datasetId as string;
    const plan = { title: 'WER by accent', sections: ['wer'], seed: 7, wer: { dataset: datasetId, hypotheses: { source: 'column', recogniser: { name: 'pocketsphinx_continuous', version: '0.8+5prealpha+1-15', settings: 'en-us acoustic model' } }, groupBy: ['accent'], referenceGroup: 'us', bootstrap: 200, permutations: 500 } };
    const planFile = join(home, 'plan.json');
    writeFileSync(planFile, JSON.stringify(plan));

    const locked = cli(home, ['audit', 'lock', '--project', dir, '--plan', planFile]);
    expect(locked.code, locked.stderr).toBe(0);
    const lockedPlan = locked.json() as { id: string; sha256: string; lockedAt: string };
    expect(lockedPlan.sha256).toMatch(/^[0-9a-f]{64}$/);

    const first = cli(home, ['audit', 'run', '--project', dir, '--plan', planFile]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.json()).toMatchObject({ planSha256: lockedPlan.sha256, deviations: [], errors: [] });

    writeFileSync(planFile, JSON.stringify({ ...plan, wer: { ...plan.wer, permutations: 300 } }));
    const second = cli(home, ['audit', 'run', '--project', dir, '--plan', planFile]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toMatch(/saved as version 2/);
    const out = second.json() as { planSha256: string; deviations: { path: string; locked: unknown; used: unknown }[]; runId: string };
    expect(out.planSha256).toBe(lockedPlan.sha256);
    expect(out.deviations).toEqual([{ path: 'wer.permutations', locked: 500, used: 300 }]);

    const results = cli(home, ['audit', 'results', '--project', dir, '--run', out.runId]).json() as { audit: { deviations: unknown[]; planVersion: number } };
    expect(results.audit.planVersion).toBe(2);
    expect(results.audit.deviations).toHaveLength(1);
  });
});
