import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AuditResults } from '../../../src/shared/results';
import { AuditPlan } from '../../../src/shared/plan';
import { METHODS_VERSION } from '../../../src/shared/methods-version';
import { createIdentity, loadSigningIdentity } from '../../../src/main/identity';
import { buildReport } from '../../../src/main/report';
import { checklistRows, effectUncertaintyText, preregistration } from '../../../src/main/report/checklist';
import { BootstrapPlan } from '../../../src/main/stats';
import { buildCommit, buildText, checkoutCommit } from '../../../src/main/report/build-info';
import { VERSION } from '../../../src/main/version';

// Results without these fields (the sample as it is): test/unit/report/report.test.ts › the audit's own fields.
// The sample results, with what a run of a plan holding these statements records (the context as the plan schema stores it).
const sample = JSON.parse(readFileSync(join(__dirname, '../../fixtures/report/results.sample.json'), 'utf8')) as AuditResults;
const context = AuditPlan.parse({
  title: 't',
  sections: ['fdi'],
  fdi: { source: { kind: 'imported', file: 'x.csv' }, groupings: [['accent']] },
  context: {
    system: { name: 'VoiceDesk', version: '4.2', vendor: 'Acme Speech Ltd' },
    purpose: { intended: 'Transcribing customer calls for quality review', outOfScope: 'Hiring decisions' },
    provenance: { source: 'Recorded by the vendor in 2021', consent: 'Written consent for research', labelledBy: 'Self-reported by the speakers', collected: '' },
    independence: '',
  },
}).context!;
// Imported a day before the lock (2026-11-20T10:15Z): locked before the run, not pre-registered.
const importedBefore: AuditResults = { ...sample, methodsVersion: METHODS_VERSION, audit: { ...sample.audit, context }, datasets: sample.datasets.map((d) => ({ ...d, importedAt: '2026-11-19T08:00:00.000Z' })) };

const pdftotext = (file: string): string => execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' }).replace(/\s+/g, ' ');

let text: string;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'equivox-audit-fields-'));
  const info = await createIdentity(join(dir, 'data'), { name: 'Ada Auditor', organisation: 'Fair Speech Lab' });
  const identity = loadSigningIdentity(join(dir, 'data'), info.id);
  const now = new Date('2026-11-29T12:00:00Z');
  const built = await buildReport(importedBefore, { identity, now, followUp: { remedialActions: 'Retrain the recogniser on more Scottish speakers', reauditDate: '2027-06-01' } });
  writeFileSync(join(dir, 'stated.pdf'), built.pdf);
  text = pdftotext(join(dir, 'stated.pdf'));
}, 120_000);

describe('the fields an audit must carry, in the PDF text', () => {
  it('shows what the auditor stated, and "not stated" for what was left empty', () => {
    expect(text).toContain('About this audit: system, purpose and data');
    expect(text).toContain('System under audit VoiceDesk');
    expect(text).toContain('System version 4.2');
    expect(text).toContain('Vendor Acme Speech Ltd');
    expect(text).toContain('Intended purpose Transcribing customer calls for quality review');
    expect(text).toContain('Out-of-scope uses Hiring decisions');
    expect(text).toContain('Data source Recorded by the vendor in 2021');
    expect(text).toContain('Consent basis Written consent for research');
    expect(text).toContain('Group labels assigned by Self-reported by the speakers');
    expect(text).toContain('Collection dates not stated');
    expect(text).toContain('Auditor’s independence not stated');
    expect(text).toContain('Remedial actions Retrain the recogniser on more Scottish speakers');
    expect(text).toContain('Re-audit date 2027-06-01');
    // Before the executive summary: near the front.
    expect(text.indexOf('Intended purpose')).toBeLessThan(text.indexOf('Executive summary'));
  });

  it('the report details name the methods version and the Equivox build with its commit', () => {
    expect(text).toContain(`Methods version ${METHODS_VERSION}`);
    expect(text).toContain(`Equivox build ${buildText(VERSION, buildCommit())}`);
    expect(buildText('0.1.0', null)).toBe('0.1.0; git commit not recorded in this build');
  });

  it('reads the commit a git checkout has checked out, as git itself names it', () => {
    const repo = mkdtempSync(join(tmpdir(), 'equivox-build-git-'));
    const git = (...args: string[]) => execFileSync('git', ['-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@example.org', ...args], { encoding: 'utf8' }).trim();
    expect(checkoutCommit(repo)).toBeNull();
    git('init', '-q', '-b', 'main');
    writeFileSync(join(repo, 'a.txt'), 'a');
    git('add', 'a.txt');
    git('commit', '-q', '-m', 'one');
    expect(checkoutCommit(repo)).toBe(git('rev-parse', 'HEAD'));
    // After git pack-refs the branch lives only in packed-refs.
    git('pack-refs', '--all');
    expect(checkoutCommit(repo)).toBe(git('rev-parse', 'HEAD'));
    // A worktree's .git is a file naming its git directory.
    const wt = join(mkdtempSync(join(tmpdir(), 'equivox-build-wt-')), 'wt');
    git('worktree', 'add', '-q', '-b', 'side', wt);
    writeFileSync(join(wt, 'b.txt'), 'b');
    execFileSync('git', ['-C', wt, '-c', 'user.name=t', '-c', 'user.email=t@example.org', 'add', 'b.txt']);
    execFileSync('git', ['-C', wt, '-c', 'user.name=t', '-c', 'user.email=t@example.org', 'commit', '-q', '-m', 'two']);
    expect(checkoutCommit(wt)).toBe(execFileSync('git', ['-C', wt, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim());
    expect(checkoutCommit(wt)).not.toBe(checkoutCommit(repo));
  });

  it('the checklist says "locked before the run", not pre-registered, for a plan locked after its data were imported', () => {
    expect(text).toContain('locked before the run, not pre-registered: the plan was locked at 2026-11-20T10:15:00.000Z, after its data were imported (2026-11-19T08:00:00.000Z)');
    expect(text).not.toMatch(/yes, pre-registered/);
    // The sample's SER rows predate the speaker-mean comparison: no interval there, so not "yes".
    expect(text).toMatch(/Effect sizes with uncertainty \(SE, CIs\) partly: SpEAT d \(bootstrap SE\); WER per group \(95% CI\); WER rate ratios \(95% CI, mixed model\); FDI \(bootstrap 95% CI\)\. Without: SER Cohen’s d \(no interval\)/);
    expect(text).not.toContain('Effect sizes with uncertainty (SE, CIs) yes');
  });
});

describe('checklist rules', () => {
  const at = (lockedAt: string | null, importedAt: (string | undefined)[], startedAt = '2026-11-21T09:00:00.000Z'): AuditResults => ({
    ...sample,
    audit: { ...sample.audit, lockedAt, planSha256: lockedAt ? sample.audit.planSha256 : null, startedAt },
    datasets: sample.datasets.slice(0, importedAt.length).map((d, i) => ({ ...d, ...(importedAt[i] ? { importedAt: importedAt[i] } : {}) })),
  });
  it('pre-registered only when the lock precedes every dataset’s first import', () => {
    expect(preregistration(at('2026-11-01T00:00:00.000Z', ['2026-11-02T00:00:00.000Z', '2026-11-03T00:00:00.000Z'])).status).toBe('pre-registered');
    expect(preregistration(at('2026-11-02T12:00:00.000Z', ['2026-11-03T00:00:00.000Z', '2026-11-02T00:00:00.000Z'])).status).toBe('locked before the run');
    expect(preregistration(at('2026-11-01T00:00:00.000Z', ['2026-11-02T00:00:00.000Z', undefined])).status).toBe('locked before the run');
    expect(preregistration(at('2026-11-22T00:00:00.000Z', ['2026-11-02T00:00:00.000Z'])).status).toBe('locked after the run started');
    expect(preregistration(at(null, ['2026-11-02T00:00:00.000Z'])).status).toBe('not locked');
    const row = checklistRows(at('2026-11-01T00:00:00.000Z', ['2026-11-02T00:00:00.000Z'])).find(([k]) => k.startsWith('Pre-registration'))!;
    expect(row[1]).toBe('yes, pre-registered: the plan was locked at 2026-11-01T00:00:00.000Z, before its data were first imported (2026-11-02T00:00:00.000Z); hash under Report details');
  });

  it('effect sizes: "yes" only when every section’s effect carries an interval or SE', () => {
    const noSer: AuditResults = { ...sample, ser: undefined };
    expect(effectUncertaintyText(noSer)).toBe('yes: SpEAT d (bootstrap SE); WER per group (95% CI); WER rate ratios (95% CI, mixed model); FDI (bootstrap 95% CI)');
    const noBootstrap: AuditResults = { ...noSer, fdi: { ...sample.fdi!, groupings: sample.fdi!.groupings.map((g) => ({ ...g, fdiCi95: null })) } };
    expect(effectUncertaintyText(noBootstrap)).toMatch(/^partly: .*Without: FDI \(no CI: the plan set no bootstrap\)$/);
    // Results that carry d's CI (ci95AtCompared, here from the bootstrap over each result's associations) name it.
    const ci = (x: { associations: { X: number[]; Y: number[] } }) => new BootstrapPlan(x.associations.X, x.associations.Y, { resamples: 500, seed: 1, design: { kind: 'paired' } }).comparedPoint(500, true).ci95!;
    const withCi: AuditResults = { ...noSer, speat: { ...sample.speat!, results: sample.speat!.results.map((x) => ({ ...x, ci95AtCompared: ci(x) })) } };
    expect(effectUncertaintyText(withCi)).toMatch(/^yes: SpEAT d \(bootstrap 95% CI\); /);
  });
});
