/**
 * A report of a run from a locked plan carries the locked plan: the attachment is exactly
 * the bytes that were hashed at locking (report/service.ts finds the plan by that hash).
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { lockPlan, savePlan } from '../../../src/main/audits/plans';
import { createAudit, runAudit } from '../../../src/main/audits/run';
import { importDataset } from '../../../src/main/data/import';
import { createEngine, type Engine } from '../../../src/main/engine';
import { createIdentity } from '../../../src/main/identity';
import { inlineContext } from '../../../src/main/jobs/task';
import { LOCKED_PLAN_ATTACHMENT } from '../../../src/main/report';
import { buildReportFiles } from '../../../src/main/report/service';
import { extractAttachments } from '../../../src/main/report/verify';
import { demoSubset } from '../../fixtures/data/demo-subset';

let engine: Engine | undefined;
afterAll(async () => engine?.close());

describe('the locked plan in a report', () => {
  it('is attached with the bytes whose SHA-256 the results name', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'equivox-locked-plan-'));
    engine = createEngine({ host: 'test', dataDir: join(dir, 'data') });
    const project = engine.store.create('Locked', join(dir, 'project'));
    const db = engine.store.db(project.id);
    const manifest = demoSubset(join(dir, 'own'), 'asr', (r, i) => (r.accent === 'us' || r.accent === 'scotland') && i % 2 === 0).file;
    const ds = await importDataset(db, {
      source: { kind: 'manifest', manifest },
      role: 'asr',
      mapping: { path: 'path', speaker: 'speaker', groups: ['accent'], transcript: 'transcript', hypothesis: 'hypothesis', ignore: [] },
    });
    const plan = savePlan(db, { config: { title: 'Locked audit', sections: ['wer'], wer: { dataset: ds.datasetId, hypotheses: { source: 'column', recogniser: { name: 'fixture', version: '1', settings: 'none' } }, groupBy: ['accent'], referenceGroup: 'us', bootstrap: 50, permutations: 100 } } });
    // A second, unlocked plan, so the report has to pick the locked one by its hash.
    savePlan(db, { config: { title: 'Draft', sections: ['wer'], wer: { dataset: ds.datasetId, groupBy: ['accent'] } } });
    const locked = lockPlan(db, plan.id);
    const audit = createAudit(db, locked.id);
    const results = await runAudit({ db, dataDir: engine.dataDir, auditId: audit.id, task: inlineContext(), projectId: project.id, projectName: 'Locked' });
    expect(results.audit.planSha256).toBe(locked.sha256);
    const identityId = (await createIdentity(engine.dataDir, { name: 'Ada Auditor', organisation: 'Fair Speech Lab' })).id;
    const built = await buildReportFiles(engine, { project: project.id, auditId: audit.id, out: join(dir, 'r.pdf'), identityId, allowIncomplete: false });
    const attached = extractAttachments(readFileSync(built.path)).find((a) => a.name === LOCKED_PLAN_ATTACHMENT);
    expect(attached).toBeDefined();
    expect(createHash('sha256').update(attached!.data).digest('hex')).toBe(locked.sha256);
    expect(JSON.parse(attached!.data.toString('utf8'))).toEqual({ plan: locked.config, inputs: locked.inputs });
  }, 120_000);
});
