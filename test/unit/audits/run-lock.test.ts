/**
 * One run of a plan at a time, and which run `audit run --plan` continues (issue 23.6,
 * 23.8): the lock row refuses a second live caller with the first's run id, a lock left
 * by a dead or silent process is taken over, the latest unfinished run (failed ones
 * included) is resumed, and a run whose data changed is not (it says why).
 * The plan runs WER and FDI on imported scores only, so no model is involved; the
 * multi-process cases (two CLI runs at once, kill -9) are in test/unit/hardening.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { savePlan } from '../../../src/main/audits/plans';
import { createAudit, getAudit, runAudit, startOrResumeRun } from '../../../src/main/audits/run';
import { toErrorShape } from '../../../src/main/error-shape';
import { inlineContext } from '../../../src/main/jobs/task';
import { claimRunLock, readRunLock, releaseRunLock, RUN_LOCK_STALE_MS } from '../../../src/main/store/audit-runs';
import { fixtureProject, insertDataset, tempDir } from './fixture';

const werGolden = JSON.parse(readFileSync('test/golden/audit_wer.json', 'utf8')) as { utterances: { speaker: string; accent: string; reference: string; hypothesis: string }[] };
const fdiGolden = JSON.parse(readFileSync('test/golden/audit_fdi.json', 'utf8')) as { rows: { group: string; label: number; score: number }[] };

function auditFixture() {
  const f = fixtureProject('Lock fixture');
  const ds = insertDataset(f.db, 'asr', werGolden.utterances.map((u) => ({ speaker: u.speaker, groups: { accent: u.accent }, transcript: u.reference, hypothesis: u.hypothesis })));
  const file = join(tempDir('lock-scores'), 'scores.csv');
  writeFileSync(file, ['group,label,score', ...fdiGolden.rows.map((r) => `${r.group},${r.label},${r.score}`)].join('\n') + '\n');
  const plan = savePlan(f.db, {
    config: {
      title: 'Lock fixture',
      sections: ['wer', 'fdi'],
      wer: { dataset: ds.id, hypotheses: { source: 'column', recogniser: { name: 'pocketsphinx_continuous', version: '0.8+5prealpha+1-15', settings: 'en-us acoustic model' } }, groupBy: ['accent'], bootstrap: 200, permutations: 200 },
      fdi: { source: { kind: 'imported', file }, groupings: [['group']], bootstrap: 50 },
    },
  });
  const dataDir = tempDir('lock-data');
  const run = (auditId: string, extra: Partial<Parameters<typeof runAudit>[0]> = {}) =>
    runAudit({ db: f.db, dataDir, auditId, task: inlineContext(), projectId: f.projectId, projectName: 'Lock fixture', ...extra });
  return { ...f, plan, ds, run };
}

function thrown(f: () => unknown) {
  try {
    f();
  } catch (err) {
    return toErrorShape(err);
  }
  throw new Error('expected an error');
}

/** A process id that is certainly not running: a child that has exited. */
function deadPid(): number {
  return Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
}

describe('the run lock of a plan', () => {
  it('refuses a second caller while the first holds it, naming the first run, and is free again after release', () => {
    const f = auditFixture();
    const first = startOrResumeRun(f.db, f.plan.id);
    const second = thrown(() => startOrResumeRun(f.db, f.plan.id));
    expect(second.code).toBe('user');
    expect(second.message).toContain(`run ${first.auditId} of this plan is already running`);
    expect(second.message).toContain(`process ${process.pid}`);
    // Refused before any run was made: still one run of the plan.
    expect((f.db.prepare('SELECT COUNT(*) AS n FROM audits').get() as { n: number }).n).toBe(1);
    // A run started for the plan by another route (the app) is refused the same way.
    expect(thrown(() => claimRunLock(f.db, f.plan.id, () => createAudit(f.db, f.plan.id).id)).message).toContain(first.auditId);
    releaseRunLock(f.db, first.lock);
    expect(readRunLock(f.db, f.plan.id)).toBeUndefined();
    const again = startOrResumeRun(f.db, f.plan.id);
    expect(again.auditId).toBe(first.auditId); // pending, never finished: resumed
    f.store.close();
  });

  it('takes over a lock whose process is gone, or that nobody refreshed for RUN_LOCK_STALE_MS, and records it', () => {
    const f = auditFixture();
    const first = startOrResumeRun(f.db, f.plan.id);
    f.db.prepare('UPDATE run_locks SET pid = ? WHERE plan_id = ?').run(deadPid(), f.plan.id);
    const logs: string[] = [];
    const next = startOrResumeRun(f.db, f.plan.id, (m) => logs.push(m));
    expect(next.auditId).toBe(first.auditId);
    expect(next.lock.tookOver).toMatchObject({ auditId: first.auditId });
    expect(logs.join('\n')).toMatch(/no longer running; continuing in its place/);
    expect(logs.join('\n')).toContain(`resuming audit run ${first.auditId}`);
    // Alive (this very process) but silent for longer than the stale limit.
    f.db.prepare('UPDATE run_locks SET heartbeat_at = ? WHERE plan_id = ?').run(new Date(Date.now() - RUN_LOCK_STALE_MS - 1000).toISOString(), f.plan.id);
    expect(startOrResumeRun(f.db, f.plan.id).auditId).toBe(first.auditId);
    const events = (f.db.prepare("SELECT COUNT(*) AS n FROM events WHERE kind = 'audit.lock-taken-over'").get() as { n: number }).n;
    expect(events).toBe(2);
    f.store.close();
  });

  it('runAudit takes the lock itself, refuses while another holds it, and releases it at the end', async () => {
    const f = auditFixture();
    const held = startOrResumeRun(f.db, f.plan.id);
    const other = createAudit(f.db, f.plan.id);
    await expect(f.run(other.id)).rejects.toMatchObject({ code: 'user', message: expect.stringContaining(held.auditId) });
    expect(getAudit(f.db, other.id).status).toBe('pending'); // never started
    await f.run(held.auditId, { lock: held.lock });
    expect(getAudit(f.db, held.auditId).status).toBe('finished');
    expect(readRunLock(f.db, f.plan.id)).toBeUndefined();
    // audit.finished once per run.
    expect((f.db.prepare("SELECT COUNT(*) AS n FROM events WHERE kind = 'audit.finished'").get() as { n: number }).n).toBe(1);
    f.store.close();
  });
});

describe('which run `audit run --plan` continues', () => {
  it('resumes the latest unfinished run, failed ones included, and starts a new one when none is left', async () => {
    const f = auditFixture();
    const a = startOrResumeRun(f.db, f.plan.id);
    releaseRunLock(f.db, a.lock);
    // As after a full disk: the run failed with some units stored.
    f.db.prepare("UPDATE audits SET status = 'failed', stage = 'fdi', error = 'The disk holding … is full' WHERE id = ?").run(a.auditId);
    const logs: string[] = [];
    const b = startOrResumeRun(f.db, f.plan.id, (m) => logs.push(m));
    expect(b.auditId).toBe(a.auditId);
    expect(b.resumed).toMatchObject({ id: a.auditId, status: 'failed' });
    expect(logs.join('\n')).toMatch(/resuming audit run .* which stopped at fdi \(The disk holding … is full\)/);
    await f.run(b.auditId, { lock: b.lock });
    const c = startOrResumeRun(f.db, f.plan.id);
    expect(c.auditId).not.toBe(a.auditId);
    expect(c.resumed).toBeNull();
    f.store.close();
  });

  it('does not resume a run whose data changed since it started, and says why', async () => {
    const f = auditFixture();
    const a = startOrResumeRun(f.db, f.plan.id);
    await f.run(a.auditId, { lock: a.lock });
    // Make it look stopped, then change the data: exclude a recording.
    f.db.prepare("UPDATE audits SET status = 'running', finished_at = NULL WHERE id = ?").run(a.auditId);
    f.db.prepare("DELETE FROM results WHERE audit_id = ? AND unit_key = 'results.json'").run(a.auditId);
    f.db.prepare('UPDATE clips SET excluded_by_user = 1 WHERE dataset_id = ? AND row_index = 1').run(f.ds.id);
    const logs: string[] = [];
    const b = startOrResumeRun(f.db, f.plan.id, (m) => logs.push(m));
    expect(b.auditId).not.toBe(a.auditId);
    expect(logs.join('\n')).toMatch(new RegExp(`not resuming run ${a.auditId}: the recordings or their labels changed since run ${a.auditId} started.*starting a new run`));
    releaseRunLock(f.db, b.lock);
    // Asked by id, it refuses with the same reason.
    await expect(f.run(a.auditId)).rejects.toMatchObject({ code: 'user', message: expect.stringMatching(/cannot be resumed: the recordings or their labels changed/) });
    f.store.close();
  });
});
