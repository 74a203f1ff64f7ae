/**
 * No signed report pretends to be complete: an audit run by the real pipeline in which a
 * planned section fails is refused without confirmation; confirmed, the PDF says
 * "Incomplete audit" on its cover, marks the section "not run" with the reason, and its
 * summary speaks only of the section that ran. An audit where nothing ran is refused.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { savePlan } from '../../../src/main/audits/plans';
import { createAudit, runAudit } from '../../../src/main/audits/run';
import { importDataset } from '../../../src/main/data/import';
import { createEngine, type Engine } from '../../../src/main/engine';
import { createApi } from '../../../src/main/api';
import { createIdentity } from '../../../src/main/identity';
import { inlineContext } from '../../../src/main/jobs/task';
import { buildReportFiles } from '../../../src/main/report/service';
import { completeness } from '../../../src/shared/completeness';
import type { AuditResults } from '../../../src/shared/results';
import { demoSubset } from '../../fixtures/data/demo-subset';

let dir: string;
let engine: Engine;
let projectId: string;
let partial: { id: string; results: AuditResults };
let empty: { id: string; results: AuditResults };
let identityId: string;

const pdftotext = (file: string, page?: number): string =>
  execFileSync('pdftotext', ['-layout', ...(page ? ['-f', String(page), '-l', String(page)] : []), file, '-'], { encoding: 'utf8' });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'equivox-incomplete-'));
  engine = createEngine({ host: 'test', dataDir: join(dir, 'data') });
  const project = engine.store.create('Incomplete', join(dir, 'project'));
  projectId = project.id;
  const db = engine.store.db(project.id);
  const manifest = demoSubset(join(dir, 'own'), 'asr', (r, i) => (r.accent === 'us' || r.accent === 'scotland') && i % 2 === 0).file;
  const ds = await importDataset(db, {
    source: { kind: 'manifest', manifest },
    role: 'asr',
    mapping: { path: 'path', speaker: 'speaker', groups: ['accent'], transcript: 'transcript', hypothesis: 'hypothesis', ignore: [] },
  });
  // FDI from a scores file whose one bad row stops that section (and only it) at run time.
  const scores = join(dir, 'scores.csv');
  writeFileSync(scores, 'group,label,score\na,1,0.9\na,0,0.2\nb,1,0.8\nb,0,abc\n');
  const run = async (config: unknown) => {
    const plan = savePlan(db, { config });
    const audit = createAudit(db, plan.id);
    return { id: audit.id, results: await runAudit({ db, dataDir: engine.dataDir, auditId: audit.id, task: inlineContext(), projectId, projectName: 'Incomplete' }) };
  };
  partial = await run({ title: 'Partial audit', sections: ['wer', 'fdi'], wer: { dataset: ds.datasetId, groupBy: ['accent'], bootstrap: 50, permutations: 100 }, fdi: { source: { kind: 'imported', file: scores }, groupings: [['group']], bootstrap: 10 } });
  empty = await run({ title: 'Empty audit', sections: ['fdi'], fdi: { source: { kind: 'imported', file: scores }, groupings: [['group']], bootstrap: 10 } });
  identityId = (await createIdentity(engine.dataDir, { name: 'Ada Auditor', organisation: 'Fair Speech Lab' })).id;
}, 120_000);

afterAll(async () => engine?.close());

describe('reports of incomplete audits', () => {
  it('the run records which planned section did not run, and why', () => {
    const c = completeness(partial.results);
    expect(c.ran).toEqual(['wer']);
    expect(c.notRun).toEqual([{ section: 'fdi', reason: expect.stringContaining('score "abc" is not a number') }]);
    expect(c.complete).toBe(false);
  });

  it('is refused without confirmation, naming the section and the reason', async () => {
    await expect(buildReportFiles(engine, { project: projectId, auditId: partial.id, out: join(dir, 'r1.pdf'), identityId, allowIncomplete: false })).rejects.toMatchObject({
      code: 'user',
      field: 'allowIncomplete',
      message: expect.stringMatching(/^this audit is incomplete: 1 of 2 sections produced results \(not run: FDI: .*score "abc" is not a number/),
    });
  });

  it('confirmed, says "Incomplete audit" on the cover, "not run" for FDI, and summarises only WER', async () => {
    const built = await buildReportFiles(engine, { project: projectId, auditId: partial.id, out: join(dir, 'r2.pdf'), identityId, allowIncomplete: true });
    const cover = pdftotext(built.path, 1);
    expect(cover).toContain('Incomplete audit');
    expect(cover).toMatch(/1 of 2 sections produced results\. Not run: FDI/);
    // Page 2 is 'About this audit' (system, purpose, data: issue 34.4); the summary follows it.
    expect(pdftotext(built.path, 2)).toContain('About this audit');
    const summary = pdftotext(built.path, 3).replace(/\s+/g, ' ');
    expect(summary).toContain('Executive summary');
    expect(summary).toContain('This summary speaks only of the sections that ran.');
    expect(summary).toContain('What this audit measures: the WER section measures the behaviour of a downstream system: a speech recogniser.');
    expect(summary).not.toMatch(/SpEAT section|SER, WER and FDI/);
    const all = pdftotext(built.path).replace(/\s+/g, ' ');
    expect(all).toMatch(/4\. FDI: fairness disagreement index: not run Not run: .*score "abc" is not a number/);
    expect(all).not.toMatch(/1\. SpEAT|2\. SER propagation/);
  });

  it('an audit where no section ran is refused even when confirmed', async () => {
    expect(completeness(empty.results).ran).toEqual([]);
    await expect(buildReportFiles(engine, { project: projectId, auditId: empty.id, out: join(dir, 'r3.pdf'), identityId, allowIncomplete: true })).rejects.toThrow(
      /^no section of this audit produced results \(FDI: .*\), so there is nothing to report/,
    );
  });
});

describe('opening and downloading recorded reports', () => {
  it('the desktop opens only a report the project recorded, with its own viewer or in its folder; the browser host downloads it', async () => {
    const built = await buildReportFiles(engine, { project: projectId, auditId: partial.id, out: join(dir, 'r4.pdf'), identityId, allowIncomplete: true });
    const calls: string[] = [];
    const desktop = createEngine({ host: 'electron', dataDir: engine.dataDir, shell: { openPath: async (p) => (calls.push(`open ${p}`), ''), showItemInFolder: (p) => void calls.push(`folder ${p}`) } });
    try {
      const api = createApi(desktop);
      await api.invoke('reports.open', { projectId, reportId: built.reportId!, action: 'open' });
      await api.invoke('reports.open', { projectId, reportId: built.reportId!, action: 'folder' });
      expect(calls).toEqual([`open ${built.path}`, `folder ${built.path}`]);
      await expect(api.invoke('reports.open', { projectId, reportId: 'not-a-report', action: 'open' })).rejects.toMatchObject({ code: 'not_found', field: 'reportId' });
    } finally {
      await desktop.close();
    }
    const web = createApi(createEngine({ host: 'web', dataDir: engine.dataDir }));
    try {
      await expect(web.invoke('reports.open', { projectId, reportId: built.reportId!, action: 'open' })).rejects.toThrow('the browser preview cannot open files on this computer; use Download');
      const file = await web.invoke('reports.download', { projectId, reportId: built.reportId! });
      expect(file).toMatchObject({ name: 'r4.pdf', mime: 'application/pdf' });
      expect(Buffer.from(file.base64, 'base64').equals(readFileSync(built.path))).toBe(true);
    } finally {
      await web.engine.close();
    }
  });

  it('the browser host downloads the signed statement and each data file written with the report; no path leaves the report data folder', async () => {
    const built = await buildReportFiles(engine, { project: projectId, auditId: partial.id, out: join(dir, 'r5.pdf'), identityId, allowIncomplete: true });
    const web = createApi(createEngine({ host: 'web', dataDir: engine.dataDir }));
    try {
      const statement = await web.invoke('reports.download', { projectId, reportId: built.reportId!, part: 'statement' });
      expect(statement).toMatchObject({ name: 'r5.statement.json', mime: 'application/json' });
      expect(Buffer.from(statement.base64, 'base64').equals(readFileSync(built.statementPath))).toBe(true);
      expect(built.exports.length).toBeGreaterThan(0);
      for (const f of built.exports) {
        const name = f.slice(f.lastIndexOf('/') + 1);
        const got = await web.invoke('reports.download', { projectId, reportId: built.reportId!, part: `data/${name}` });
        expect(got.name).toBe(name);
        expect(Buffer.from(got.base64, 'base64').equals(readFileSync(f))).toBe(true);
      }
      // A path out of the data folder, the folder above it, a file that is not there.
      await expect(web.invoke('reports.download', { projectId, reportId: built.reportId!, part: 'data/../r4.pdf' })).rejects.toMatchObject({ code: 'validation' });
      await expect(web.invoke('reports.download', { projectId, reportId: built.reportId!, part: 'data/..' })).rejects.toThrow('is not a plain file');
      await expect(web.invoke('reports.download', { projectId, reportId: built.reportId!, part: 'data/missing.csv' })).rejects.toThrow('the data file missing.csv of this report is no longer at');
    } finally {
      await web.engine.close();
    }
  });
});
