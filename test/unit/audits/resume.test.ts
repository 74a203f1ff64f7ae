/**
 * Resumability below the CLI: UnitStore.once semantics, and runAudit on an audit whose
 * units are partly stored (as after a kill) reproducing the uninterrupted results. The
 * plan runs WER and FDI on imported scores only, so no model or inference is involved.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { savePlan } from '../../../src/main/audits/plans';
import { createAudit, getAudit, runAudit, storedResults } from '../../../src/main/audits/run';
import { UnitStore, unitSeed } from '../../../src/main/audits/units';
import { inlineContext } from '../../../src/main/jobs/task';
import { fixtureProject, insertDataset, tempDir } from './fixture';

const werGolden = JSON.parse(readFileSync('test/golden/audit_wer.json', 'utf8')) as { utterances: { speaker: string; accent: string; reference: string; hypothesis: string }[] };
const fdiGolden = JSON.parse(readFileSync('test/golden/audit_fdi.json', 'utf8')) as { rows: { group: string; label: number; score: number }[] };

function auditFixture() {
  const f = fixtureProject('Resume fixture');
  const ds = insertDataset(f.db, 'asr', werGolden.utterances.map((u) => ({ speaker: u.speaker, groups: { accent: u.accent }, transcript: u.reference, hypothesis: u.hypothesis })));
  const file = join(tempDir('resume-scores'), 'scores.csv');
  writeFileSync(file, ['group,label,score', ...fdiGolden.rows.map((r) => `${r.group},${r.label},${r.score}`)].join('\n') + '\n');
  const plan = savePlan(f.db, {
    config: {
      title: 'Resume fixture',
      sections: ['wer', 'fdi'],
      wer: { dataset: ds.id, groupBy: ['accent'], bootstrap: 300, permutations: 300 },
      fdi: { source: { kind: 'imported', file }, groupings: [['group']], bootstrap: 100 },
    },
  });
  const run = (auditId: string) => runAudit({ db: f.db, dataDir: tempDir('resume-data'), auditId, task: inlineContext(), projectId: f.projectId, projectName: 'Resume fixture' });
  return { ...f, plan, run };
}

describe('UnitStore', () => {
  it('computes a unit once and returns the stored JSON, doubles bit-identical', async () => {
    const { db, store } = fixtureProject('Units');
    const plan = savePlan(db, { config: { title: 'u', sections: ['wer'], wer: { dataset: 'x', groupBy: ['a'] } } });
    const units = new UnitStore(db, createAudit(db, plan.id).id);
    const value = { a: 0.1 + 0.2, b: Math.PI / 3, c: 1e-300, d: -123456.789e-5, e: [Math.SQRT2, 5e-324, Number.MAX_VALUE] };
    let calls = 0;
    const first = await units.once('k', 's', () => {
      calls += 1;
      return value;
    });
    const second = await units.once<typeof value>('k', 's', () => {
      calls += 1;
      return { a: 0, b: 0, c: 0, d: 0, e: [] };
    });
    expect(calls).toBe(1);
    expect(first).toBe(value);
    expect(second).toEqual(value);
    const bits = (x: number) => Buffer.from(Float64Array.of(x).buffer).toString('hex');
    expect([second.a, second.b, second.c, second.d, ...second.e].map(bits)).toEqual([value.a, value.b, value.c, value.d, ...value.e].map(bits));
    expect(units.count()).toBe(1);
    // A failed computation stores nothing.
    await expect(units.once('bad', 's', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(units.get('bad')).toBeUndefined();
    store.close();
  });

  it('derives unit seeds from the audit seed and the key only', () => {
    expect(unitSeed(1, 'speat/m/t')).toBe(unitSeed(1, 'speat/m/t'));
    expect(unitSeed(1, 'speat/m/t')).not.toBe(unitSeed(2, 'speat/m/t'));
    expect(unitSeed(1, 'speat/m/t')).not.toBe(unitSeed(1, 'speat/m/u'));
  });
});

describe('runAudit resume', () => {
  it('finishes an audit whose units are partly stored with the same results as an uninterrupted run', async () => {
    const f = auditFixture();
    const audit = createAudit(f.db, f.plan.id);
    const full = JSON.parse(JSON.stringify(await f.run(audit.id))) as Record<string, unknown>;
    expect(getAudit(f.db, audit.id).status).toBe('finished');
    const keys = (f.db.prepare('SELECT unit_key FROM results WHERE audit_id = ? ORDER BY unit_key').all(audit.id) as { unit_key: string }[]).map((r) => r.unit_key);
    expect(keys).toEqual(['fdi/group', 'results.json', expect.stringMatching(/^wer\//)]);

    // As after a kill during FDI: WER stored, FDI and results.json not, status still running.
    f.db.prepare("DELETE FROM results WHERE audit_id = ? AND unit_key IN ('fdi/group', 'results.json')").run(audit.id);
    f.db.prepare("UPDATE audits SET status = 'running', stage = 'fdi', finished_at = NULL WHERE id = ?").run(audit.id);
    // Tamper with nothing else; the stored WER unit must be reused as it is.
    const werBefore = f.db.prepare("SELECT result_json, created_at FROM results WHERE audit_id = ? AND unit_key LIKE 'wer/%'").get(audit.id);
    const resumed = JSON.parse(JSON.stringify(await f.run(audit.id))) as typeof full;
    expect(f.db.prepare("SELECT result_json, created_at FROM results WHERE audit_id = ? AND unit_key LIKE 'wer/%'").get(audit.id)).toEqual(werBefore);
    const strip = (r: typeof full) => ({ ...r, audit: { ...(r.audit as object), finishedAt: null } });
    expect(strip(resumed)).toEqual(strip(full));
    expect(JSON.stringify(strip(storedResults(f.db, audit.id) as unknown as typeof full))).toBe(JSON.stringify(strip(full)));

    // A fresh audit of the same plan (all units recomputed) gives the same numbers too.
    const other = JSON.parse(JSON.stringify(await f.run(createAudit(f.db, f.plan.id).id))) as typeof full;
    expect(other.wer).toEqual(full.wer);
    expect(other.fdi).toEqual(full.fdi);

    // A finished audit is returned from the store without running again.
    expect(await f.run(audit.id)).toEqual(storedResults(f.db, audit.id));
    f.store.close();
  });

  it('gives the same numbers for the same data and seed in another project (seeds do not depend on random ids)', async () => {
    const a = auditFixture();
    const b = auditFixture();
    const ra = (await a.run(createAudit(a.db, a.plan.id).id)) as unknown as { wer: unknown; fdi: { groupings: unknown } };
    const rb = (await b.run(createAudit(b.db, b.plan.id).id)) as unknown as typeof ra;
    expect((rb.wer as { groups: unknown }).groups).toEqual((ra.wer as { groups: unknown }).groups);
    expect((rb.wer as { comparisons: unknown }).comparisons).toEqual((ra.wer as { comparisons: unknown }).comparisons);
    expect(rb.fdi.groupings).toEqual(ra.fdi.groupings);
    a.store.close();
    b.store.close();
  });
});
