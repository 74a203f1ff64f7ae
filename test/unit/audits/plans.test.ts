import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../src/shared/plan';
import { deviations, getPlan, lockPlan, savePlan } from '../../../src/main/audits/plans';
import { ProjectStore } from '../../../src/main/store/projects';
import { importDataset } from '../../../src/main/data/import';
import { demoSubset } from '../../fixtures/data/demo-subset';

// Locking checks the sections' requirements, so the WER data is real: eight demo recordings.
const data = mkdtempSync(join(tmpdir(), 'equivox-plan-data-'));
const manifest = demoSubset(data, 'asr', (r, i) => (r.accent === 'us' || r.accent === 'uk') && i % 4 === 0).file;
const manifestSha = createHash('sha256').update(readFileSync(manifest)).digest('hex');

async function project() {
  const store = new ProjectStore(mkdtempSync(join(tmpdir(), 'equivox-plan-')));
  const p = store.create('Plans', join(mkdtempSync(join(tmpdir(), 'equivox-plan-p-')), 'p'));
  const db = store.db(p.id);
  await importDataset(
    db,
    { source: { kind: 'manifest', manifest }, role: 'asr', mapping: { path: 'path', speaker: 'speaker', groups: ['accent'], transcript: 'transcript', hypothesis: 'hypothesis', ignore: [] } },
    { datasetId: 'asr1' },
  );
  return { store, db };
}

const werPlan = { title: 'WER only', sections: ['wer'], wer: { dataset: 'asr1', hypotheses: { source: 'column', recogniser: { name: 'pocketsphinx_continuous', version: '0.8+5prealpha+1-15', settings: 'en-us acoustic model' } }, groupBy: ['accent'], referenceGroup: 'us' } };

describe('audit plans', () => {
  it('fills defaults, and canonical JSON sorts keys at every depth', async () => {
    const { db, store } = await project();
    const plan = savePlan(db, { config: werPlan });
    expect(plan.config.seed).toBe(20240601);
    expect(plan.config.wer?.normalize).toBe('basic');
    expect(plan.config.wer?.bootstrap).toBe(1000);
    expect(canonicalJson({ b: 1, a: { d: [3, { f: 1, e: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[3,{"e":2,"f":1}]},"b":1}');
    store.close();
  });

  it('locks a plan with the SHA-256 of its canonical JSON and input hashes', async () => {
    const { db, store } = await project();
    const plan = savePlan(db, { config: werPlan });
    const locked = lockPlan(db, plan.id);
    expect(locked.lockedAt).not.toBeNull();
    expect(locked.inputs).toEqual({ datasets: { asr1: manifestSha }, models: {} });
    const expected = createHash('sha256').update(canonicalJson({ plan: locked.config, inputs: locked.inputs })).digest('hex');
    expect(locked.sha256).toBe(expected);
    store.close();
  });

  it('saves a change to a locked plan as a new version and reports the deviation', async () => {
    const { db, store } = await project();
    const locked = lockPlan(db, savePlan(db, { config: werPlan }).id);
    const changed = savePlan(db, { planId: locked.id, config: { ...werPlan, wer: { ...werPlan.wer, bootstrap: 200 } } });
    expect(changed.id).not.toBe(locked.id);
    expect(changed.version).toBe(2);
    expect(changed.parentId).toBe(locked.id);
    expect(getPlan(db, locked.id).config.wer?.bootstrap).toBe(1000);
    const dev = deviations(db, changed);
    expect(dev.lockedPlan?.id).toBe(locked.id);
    expect(dev.differences).toEqual([{ path: 'wer.bootstrap', locked: 1000, used: 200 }]);
    store.close();
  });

  it('rejects an invalid plan naming the field', async () => {
    const { db, store } = await project();
    expect(() => savePlan(db, { config: { title: 'x', sections: ['speat'] } })).toThrow(/speat/);
    try {
      savePlan(db, { config: { ...werPlan, wer: { ...werPlan.wer, bootstrap: -1 } } });
      expect.unreachable();
    } catch (err) {
      expect((err as { field?: string }).field).toBe('plan.wer.bootstrap');
    }
    store.close();
  });
});
