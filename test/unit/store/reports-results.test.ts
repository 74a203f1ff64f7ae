/**
 * The reports and results repositories on their own (the report build and the audit run
 * cover them end to end): a rebuild to the same file finds the newest row of that path,
 * the listing is newest first, and a run's units and assembled results read back as stored.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AuditPlanConfig } from '../../../src/shared/plan';
import { openDatabase } from '../../../src/main/store/open';
import { insertPlan } from '../../../src/main/store/plans';
import { insertReport, latestReportIdAt, recentReports, reportPath, updateReport } from '../../../src/main/store/reports';
import { auditRow, auditStatus, insertAudit, ResultRows, storedResultsJson, updateAuditStatus } from '../../../src/main/store/results';
import { projectMigrations } from '../../../src/main/store/schema';

function projectWithRun() {
  const db = openDatabase(join(mkdtempSync(join(tmpdir(), 'equivox-store-')), 'project.sqlite'), projectMigrations);
  // Only the title is read by the plans repository; the rest of a plan does not matter here.
  const config = { title: 'Store test' } as AuditPlanConfig;
  insertPlan(db, { id: 'p1', version: 1, parentId: null, config, createdAt: '2026-01-01T00:00:00.000Z' });
  insertAudit(db, { id: 'a1', planId: 'p1', planSha256: null, seed: 7, startedAt: '2026-01-01T00:00:01.000Z' });
  return db;
}

describe('store/reports', () => {
  it('records, finds the newest report of a path, updates it and lists newest first', () => {
    const db = projectWithRun();
    const signing = { sha256: 'h1', signer: 'Ada', fingerprint: 'f1' };
    insertReport(db, { id: 'r1', auditId: 'a1', path: '/out/a.pdf', createdAt: '2026-01-02T00:00:00.000Z', ...signing });
    insertReport(db, { id: 'r2', auditId: 'a1', path: '/out/a.pdf', createdAt: '2026-01-03T00:00:00.000Z', ...signing });
    insertReport(db, { id: 'r3', auditId: 'a1', path: '/out/b.pdf', createdAt: '2026-01-04T00:00:00.000Z', ...signing });
    expect(latestReportIdAt(db, 'a1', (p) => p === '/out/a.pdf')).toBe('r2');
    expect(latestReportIdAt(db, 'a1', (p) => p === '/out/c.pdf')).toBeUndefined();
    updateReport(db, 'r2', { sha256: 'h2', signer: 'Grace', fingerprint: 'f2' }, '2026-01-05T00:00:00.000Z');
    expect(reportPath(db, 'r3')).toBe('/out/b.pdf');
    expect(reportPath(db, 'nope')).toBeUndefined();
    const rows = recentReports(db);
    expect(rows.map((r) => r.id)).toEqual(['r2', 'r3', 'r1']);
    expect(rows[0]).toEqual({ id: 'r2', audit_id: 'a1', path: '/out/a.pdf', sha256: 'h2', signer: 'Grace', fingerprint: 'f2', created_at: '2026-01-05T00:00:00.000Z' });
    db.close();
  });
});

describe('store/results', () => {
  it("stores units, reads the assembled 'results.json' unit, and keeps a run's stage when none is given", () => {
    const db = projectWithRun();
    const rows = new ResultRows(db, 'a1');
    expect(rows.get('speat/x')).toBeUndefined();
    expect(storedResultsJson(db, 'a1')).toBeUndefined();
    rows.put('speat/x', 'speat', '{"d":0.5}', '2026-01-02T00:00:00.000Z');
    rows.put('speat/x', 'speat', '{"d":0.25}', '2026-01-02T00:00:01.000Z');
    rows.put('results.json', 'results', '{"ok":true}', '2026-01-02T00:00:02.000Z');
    expect(rows.get('speat/x')).toBe('{"d":0.25}');
    expect(rows.count()).toBe(2);
    expect(storedResultsJson(db, 'a1')).toBe('{"ok":true}');

    expect(auditStatus(db, 'a1')).toBe('pending');
    expect(auditStatus(db, 'nope')).toBeUndefined();
    updateAuditStatus(db, 'a1', 'running', 'speat', null, null);
    updateAuditStatus(db, 'a1', 'failed', null, 'disk full', null);
    expect(auditRow(db, 'a1')).toMatchObject({ id: 'a1', planId: 'p1', seed: 7, status: 'failed', stage: 'speat', error: 'disk full', finishedAt: null });
    db.close();
  });
});
