import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AuditPlan, canonicalJson } from '../../../src/shared/plan';
import { contextValue, FollowUp, withContextValue } from '../../../src/shared/audit-context';
import { lockPlan, savePlan } from '../../../src/main/audits/plans';
import { ProjectStore } from '../../../src/main/store/projects';
import { importDataset } from '../../../src/main/data/import';
import { demoSubset } from '../../fixtures/data/demo-subset';

const werPlan = { title: 'WER only', sections: ['wer'], wer: { dataset: 'asr1', hypotheses: { source: 'column', recogniser: { name: 'pocketsphinx_continuous', version: '0.8+5prealpha+1-15', settings: 'en-us acoustic model' } }, groupBy: ['accent'], referenceGroup: 'us' } } as const;
const sha = (v: unknown) => createHash('sha256').update(canonicalJson(v)).digest('hex');

describe('the plan’s audit context (system, purpose, provenance, independence)', () => {
  it('a plan without it parses as before, and blank fields leave its canonical JSON and hash unchanged', () => {
    const old = AuditPlan.parse(werPlan);
    expect('context' in old && old.context !== undefined).toBe(false);
    // The canonical JSON of a plan written before the fields existed (keys sorted, defaults filled): no "context" in it.
    expect(canonicalJson(old)).not.toContain('context');
    for (const blank of [{}, { system: {}, purpose: { intended: '   ' }, provenance: { source: '', consent: '' }, independence: '' }]) {
      expect(sha(AuditPlan.parse({ ...werPlan, context: blank }))).toBe(sha(old));
    }
  });

  it('keeps what the auditor stated, trimmed, drops blank fields, and changes the hash', () => {
    const plan = AuditPlan.parse({
      ...werPlan,
      context: { system: { name: ' VoiceDesk ', version: '4.2', vendor: '' }, purpose: { intended: 'Call-centre transcription', outOfScope: '' }, provenance: { source: 'Recorded by the vendor', collected: '2021-03 to 2022-01' }, independence: 'Independent; paid a fixed fee' },
    });
    expect(plan.context).toEqual({
      system: { name: 'VoiceDesk', version: '4.2' },
      purpose: { intended: 'Call-centre transcription' },
      provenance: { source: 'Recorded by the vendor', collected: '2021-03 to 2022-01' },
      independence: 'Independent; paid a fixed fee',
    });
    expect(contextValue(plan.context, 'system.vendor')).toBeUndefined();
    expect(contextValue(plan.context, 'purpose.intended')).toBe('Call-centre transcription');
    expect(sha(plan)).not.toBe(sha(AuditPlan.parse(werPlan)));
  });

  it('rejects unknown fields and over-long text, naming the field', () => {
    const unknown = AuditPlan.safeParse({ ...werPlan, context: { purpose: { intended: 'x', audience: 'y' } } });
    expect(unknown.success).toBe(false);
    expect(unknown.error!.issues[0]!.path).toEqual(['context', 'purpose']);
    const long = AuditPlan.safeParse({ ...werPlan, context: { independence: 'x'.repeat(2001) } });
    expect(long.success).toBe(false);
    expect(long.error!.issues[0]!.path).toEqual(['context', 'independence']);
  });

  it('withContextValue sets one field without touching the others (the Purpose step’s edits)', () => {
    let c = withContextValue(undefined, 'system.name', 'VoiceDesk');
    c = withContextValue(c, 'system.version', '4.2');
    c = withContextValue(c, 'independence', 'Employee of the vendor');
    expect(c).toEqual({ system: { name: 'VoiceDesk', version: '4.2' }, independence: 'Employee of the vendor' });
  });

  it('the Report step’s re-audit date must be a calendar date', () => {
    expect(FollowUp.safeParse({ reauditDate: '2027-06-01' }).success).toBe(true);
    expect(FollowUp.safeParse({ reauditDate: '2027-02-30' }).success).toBe(false);
    expect(FollowUp.safeParse({ reauditDate: '1 June 2027' }).success).toBe(false);
  });

  it('a locked plan carries the context, and its hash covers it', async () => {
    const data = mkdtempSync(join(tmpdir(), 'equivox-ctx-data-'));
    const manifest = demoSubset(data, 'asr', (r, i) => (r.accent === 'us' || r.accent === 'uk') && i % 4 === 0).file;
    const store = new ProjectStore(mkdtempSync(join(tmpdir(), 'equivox-ctx-')));
    const p = store.create('Context', join(mkdtempSync(join(tmpdir(), 'equivox-ctx-p-')), 'p'));
    const db = store.db(p.id);
    await importDataset(db, { source: { kind: 'manifest', manifest }, role: 'asr', mapping: { path: 'path', speaker: 'speaker', groups: ['accent'], transcript: 'transcript', hypothesis: 'hypothesis', ignore: [] } }, { datasetId: 'asr1' });
    const context = { purpose: { intended: 'Dictation for clinicians' }, independence: 'Independent' };
    const locked = lockPlan(db, savePlan(db, { config: { ...werPlan, context } }).id);
    expect(locked.config.context).toEqual(context);
    const manifestSha = createHash('sha256').update(readFileSync(manifest)).digest('hex');
    expect(locked.sha256).toBe(sha({ plan: locked.config, inputs: { datasets: { asr1: manifestSha }, models: {} } }));
    store.close();
  });
});
