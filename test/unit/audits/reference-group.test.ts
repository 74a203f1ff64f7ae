/**
 * The reference group is part of the plan (issue 32.3; METHODS.md § The unit of inference):
 * old plans without one still parse as drafts, a plan without one does not lock (the reason
 * names the section), the lock hashes it, and a re-run on changed data keeps it, whichever
 * group the new data favour. Data: demo recordings imported by the real importer, with
 * unequal groups (uk 4 speakers, us and scotland 3).
 */
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockPlan, savePlan } from '../../../src/main/audits/plans';
import { checkRequirements, PlanNotReadyError } from '../../../src/main/audits/requirements';
import { createAudit, runAudit } from '../../../src/main/audits/run';
import { importDataset } from '../../../src/main/data/import';
import { toCsv } from '../../../src/main/data/csv';
import { inlineContext } from '../../../src/main/jobs/task';
import { ProjectStore } from '../../../src/main/store/projects';
import { AuditPlan, canonicalJson } from '../../../src/shared/plan';
import { defaultReference, largestGroup, referenceSentence, type ReferenceChoiceInput } from '../../../src/shared/reference-group';
import { demoSubset } from '../../fixtures/data/demo-subset';

let home: string;
let dir: string;
let projectDir: string;
let store: ProjectStore;
let projectId: string;
let datasetId: string;
let rows: Record<string, string>[];
let header: string[];

const SPHINX = { name: 'pocketsphinx_continuous', version: '0.8+5prealpha+1-15', settings: 'en-us acoustic model, en-us.lm.bin' };
const mapping = { path: 'path', speaker: 'speaker', groups: ['accent', 'gender'], transcript: 'transcript', hypothesis: 'hypothesis', ignore: [] };
// Every uk speaker, three us and three scotland speakers: uk is the largest group.
const dropped = new Set<string>();

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'equivox-ref-home-'));
  dir = mkdtempSync(join(tmpdir(), 'equivox-ref-'));
  const seen = new Map<string, Set<string>>();
  const subset = demoSubset(dir, 'asr', (r) => {
    if (!['us', 'uk', 'scotland'].includes(r.accent!)) return false;
    const speakers = seen.get(r.accent!) ?? new Set<string>();
    seen.set(r.accent!, speakers);
    if (!speakers.has(r.speaker!) && r.accent !== 'uk' && speakers.size >= 3) {
      dropped.add(r.speaker!);
      return false;
    }
    if (dropped.has(r.speaker!)) return false;
    speakers.add(r.speaker!);
    return true;
  }, { name: 'clips.csv' });
  rows = subset.rows;
  header = Object.keys(rows[0]!);
  store = new ProjectStore(home);
  projectDir = join(dir, 'project');
  const p = store.create('Reference groups', projectDir);
  projectId = p.id;
  datasetId = (await importDataset(store.db(p.id), { source: { kind: 'manifest', manifest: subset.file }, role: 'asr', roles: ['asr', 'verification'], mapping })).datasetId;
}, 120_000);

afterAll(() => store?.close());

const werPlan = (referenceGroup?: ReferenceChoiceInput) => ({
  title: 'Reference groups',
  sections: ['wer'] as ['wer'],
  seed: 4,
  wer: { dataset: datasetId, hypotheses: { source: 'column' as const, recogniser: SPHINX }, groupBy: ['accent'], ...(referenceGroup !== undefined ? { referenceGroup } : {}), bootstrap: 50, permutations: 200, mdeSimulations: 0 },
});

/** Speakers and utterances per accent, counted from the spreadsheet's rows here. */
function countsByAccent(list: Record<string, string>[]): Map<string, { speakers: number; utterances: number }> {
  const m = new Map<string, { speakers: Set<string>; utterances: number }>();
  for (const r of list) {
    const g = m.get(r.accent!) ?? { speakers: new Set<string>(), utterances: 0 };
    g.speakers.add(r.speaker!);
    g.utterances += 1;
    m.set(r.accent!, g);
  }
  return new Map([...m].map(([k, v]) => [k, { speakers: v.speakers.size, utterances: v.utterances }]));
}

describe('the plan holds the reference group', () => {
  it('old plans without one still parse as drafts; the short form and both choices parse unchanged', () => {
    const old = AuditPlan.parse(werPlan());
    expect(old.wer!.referenceGroup).toBeUndefined();
    expect(AuditPlan.parse(werPlan('us')).wer!.referenceGroup).toBe('us');
    const offered = { kind: 'group', group: 'uk', chosen: 'largest', by: 'speakers' } as const;
    expect(AuditPlan.parse(werPlan(offered)).wer!.referenceGroup).toEqual(offered);
    expect(AuditPlan.parse(werPlan({ kind: 'every-pair' })).wer!.referenceGroup).toEqual({ kind: 'every-pair' });
    // "Largest" must say what was counted; an unknown kind is refused.
    expect(AuditPlan.safeParse(werPlan({ kind: 'group', group: 'uk', chosen: 'largest' })).success).toBe(false);
    const best = AuditPlan.safeParse({ ...werPlan(), wer: { ...werPlan().wer, referenceGroup: { kind: 'best' } } });
    expect(best.success).toBe(false);
    expect(best.error!.issues[0]!.message).toBe('the reference group is a group name, { "kind": "group", "group": …, "chosen": "auditor" or "largest", "by": "speakers" or "utterances" }, or { "kind": "every-pair" }');
    // FDI: one reference per attribute set the plan groups by.
    const fdi = (references: unknown) => AuditPlan.safeParse({ title: 't', sections: ['fdi'], fdi: { source: { kind: 'imported', file: 'x.csv' }, groupings: [['gender']], references } });
    expect(fdi([{ groupBy: ['gender'], reference: 'female' }]).success).toBe(true);
    const stray = fdi([{ groupBy: ['accent'], reference: 'us' }]);
    expect(stray.success).toBe(false);
    expect(stray.error!.issues[0]!.message).toBe('a reference group is given for the attribute set accent, which the plan does not group by');
    expect(fdi([{ groupBy: ['gender'], reference: 'female' }, { groupBy: ['gender'], reference: { kind: 'every-pair' } }]).success).toBe(false);
  });

  it('the largest group goes by speakers, then utterances, then the name; never by error rate', () => {
    expect(largestGroup([{ group: 'b', speakers: 3, utterances: 40 }, { group: 'a', speakers: 4, utterances: 10 }])).toEqual({ group: 'a', by: 'speakers', size: 4, tiedWith: [] });
    expect(largestGroup([{ group: 'b', speakers: 4, utterances: 12 }, { group: 'a', speakers: 4, utterances: 10 }])!.group).toBe('b');
    expect(largestGroup([{ group: 'b', speakers: 4, utterances: 10 }, { group: 'a', speakers: 4, utterances: 10 }])).toEqual({ group: 'a', by: 'speakers', size: 4, tiedWith: ['b'] });
    // A group without speaker ids: everything is counted by utterances.
    expect(largestGroup([{ group: 'b', speakers: null, utterances: 12 }, { group: 'a', speakers: 9, utterances: 10 }])).toEqual({ group: 'b', by: 'utterances', size: 12, tiedWith: [] });
    expect(largestGroup([])).toBeNull();
  });

  it('counts the groups the way the spreadsheet has them, and offers the largest', () => {
    const r = checkRequirements(store.db(projectId), werPlan());
    const sizes = r.groupSizes!.find((g) => g.section === 'wer')!;
    expect(sizes.groupBy).toEqual(['accent']);
    const expected = countsByAccent(rows);
    expect(sizes.sizes).toEqual([...expected].sort(([a], [b]) => (a < b ? -1 : 1)).map(([group, c]) => ({ group, ...c })));
    expect(expected.get('uk')!.speakers).toBe(4);
    expect(defaultReference(sizes.sizes)).toEqual({ kind: 'group', group: 'uk', chosen: 'largest', by: 'speakers' });
  });

  it('a plan without a reference does not lock, in the API and the CLI, the reason naming the section', () => {
    const db = store.db(projectId);
    const reason = 'WER: no reference group is chosen: choose one before the run (the largest group is offered) or compare every pair; on the Groups step, or in the plan as wer.referenceGroup';
    expect(checkRequirements(db, werPlan()).reasons).toEqual([reason]);
    let err: unknown;
    try {
      lockPlan(db, savePlan(db, { config: werPlan() }).id);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(PlanNotReadyError);
    expect((err as PlanNotReadyError).reasons).toEqual([reason]);
    const planFile = join(dir, 'no-reference.json');
    writeFileSync(planFile, JSON.stringify(werPlan()));
    const cli = spawnSync(process.execPath, ['--import', 'tsx', 'src/main/cli.ts', 'audit', 'lock', '--project', projectDir, '--plan', planFile], { env: { ...process.env, EQUIVOX_HOME: home }, encoding: 'utf8' });
    expect(cli.status, cli.stderr).toBe(1);
    expect(cli.stderr.trim().split('\n')).toEqual(['error: the plan cannot be locked yet: one section cannot run', reason]);
  }, 60_000);

  it('refuses a reference group that is not in the data, and one offered as the largest that is not', () => {
    const db = store.db(projectId);
    expect(checkRequirements(db, werPlan('caribbean')).reasons).toEqual(['WER: the reference group “caribbean” is not among the groups of “clips.csv” grouped by accent (scotland, uk, us); on the Groups step, or in the plan as wer.referenceGroup']);
    expect(checkRequirements(db, werPlan({ kind: 'group', group: 'us', chosen: 'largest', by: 'speakers' })).reasons).toEqual([
      'WER: the plan offered us as the largest group, but uk is larger now (4 speakers against 3): choose the reference again; on the Groups step, or in the plan as wer.referenceGroup',
    ]);
    for (const ok of ['us', { kind: 'every-pair' } as const, { kind: 'group', group: 'uk', chosen: 'largest', by: 'speakers' } as const]) expect(checkRequirements(db, werPlan(ok)).reasons).toEqual([]);
    // FDI: each attribute set needs its own.
    const fdi = { sections: ['fdi'], fdi: { source: { kind: 'verification', dataset: datasetId, modelId: 'acoustic-baseline' }, groupings: [['gender'], ['accent']], references: [{ groupBy: ['accent'], reference: 'uk' }] } };
    expect(checkRequirements(db, fdi).reasons).toEqual(['FDI: gender: no reference group is chosen: choose one before the run (the largest group is offered) or compare every pair; on the Groups step, or in the plan as fdi.references']);
    const fdiReady = checkRequirements(db, { ...fdi, fdi: { ...fdi.fdi, references: [...fdi.fdi.references, { groupBy: ['gender'], reference: { kind: 'every-pair' } }] } });
    expect(fdiReady.reasons).toEqual([]);
    expect(fdiReady.sections[0]!.requirements.find((x) => x.id === 'fdi.reference')!.detail).toBe('gender: Every pair of groups compared, chosen before the run. accent: Reference group chosen before the run: uk, named by the auditor.');
  });

  it('the lock records it in the hashed plan; a re-run on changed data keeps it, whichever group the data now favour', async () => {
    const db = store.db(projectId);
    // The auditor takes the default the Groups step offers: the largest group.
    const offered = defaultReference(checkRequirements(db, werPlan()).groupSizes!.find((g) => g.section === 'wer')!.sizes)!;
    const locked = lockPlan(db, savePlan(db, { config: werPlan(offered) }).id);
    expect(locked.config.wer!.referenceGroup).toEqual({ kind: 'group', group: 'uk', chosen: 'largest', by: 'speakers' });
    expect(locked.sha256).toBe(createHash('sha256').update(canonicalJson({ plan: locked.config, inputs: locked.inputs })).digest('hex'));
    expect(canonicalJson(locked.config)).toContain('"referenceGroup":{"by":"speakers","chosen":"largest","group":"uk","kind":"group"}');
    const run = async () => {
      const audit = createAudit(db, locked.id);
      return runAudit({ db, dataDir: home, auditId: audit.id, task: inlineContext(), projectId, projectName: 'Reference groups' });
    };
    const first = await run();
    expect(first.errors).toEqual([]);
    expect(first.wer!.config.referenceGroup).toBe('uk');
    expect(first.wer!.config.reference).toEqual(offered);
    expect(first.wer!.comparisons.map((c) => [c.group, c.referenceGroup])).toEqual([['scotland', 'uk'], ['us', 'uk']]);

    // New data: two uk speakers only (now the smallest group), and scotland transcribed perfectly (now the best).
    const ukKept = [...new Set(rows.filter((r) => r.accent === 'uk').map((r) => r.speaker!))].slice(0, 2);
    const changed = rows.filter((r) => r.accent !== 'uk' || ukKept.includes(r.speaker!)).map((r) => (r.accent === 'scotland' ? { ...r, hypothesis: r.transcript! } : r));
    writeFileSync(join(dir, 'clips.csv'), toCsv(header, changed.map((r) => header.map((h) => r[h] ?? ''))));
    expect((await importDataset(db, { source: { kind: 'manifest', manifest: join(dir, 'clips.csv') }, role: 'asr', mapping })).datasetId).toBe(datasetId);
    const second = await run();
    expect(second.errors).toEqual([]);
    const wer = second.wer!;
    const best = Object.entries(wer.groups).sort((a, b) => a[1].wer! - b[1].wer!)[0]![0];
    expect(best).toBe('scotland');
    expect(wer.groups.scotland!.wer).toBe(0);
    expect(wer.groups.uk!.speakers).toBe(2);
    expect(wer.config.referenceGroup).toBe('uk');
    expect(wer.comparisons.map((c) => [c.group, c.referenceGroup])).toEqual([['scotland', 'uk'], ['us', 'uk']]);
    expect(wer.config.reference).toEqual(offered);
    expect(second.audit.planSha256).toBe(locked.sha256);
    expect(referenceSentence(wer.config.reference!, { holm: true })).toBe('Reference group chosen before the run: uk, the largest group by speakers, offered by default.');
  }, 120_000);

  it('a run whose reference group is not in the data stops the section with an error naming the group and the dataset', async () => {
    const db = store.db(projectId);
    const plan = savePlan(db, { config: { ...werPlan('caribbean'), title: 'Missing reference' } });
    const audit = createAudit(db, plan.id);
    const results = await runAudit({ db, dataDir: home, auditId: audit.id, task: inlineContext(), projectId, projectName: 'Reference groups' });
    expect(results.wer).toBeUndefined();
    expect(results.errors).toEqual([
      {
        section: 'wer',
        message: 'WER: the reference group “caribbean” does not occur in “clips.csv” grouped by accent (groups: scotland, uk, us); choose one of these as the reference on the Groups step, or compare every pair',
      },
    ]);
  }, 60_000);

  it('a draft run without a reference compares every pair and says so', async () => {
    const db = store.db(projectId);
    const plan = savePlan(db, { config: { ...werPlan(), title: 'Draft without reference' } });
    const audit = createAudit(db, plan.id);
    const results = await runAudit({ db, dataDir: home, auditId: audit.id, task: inlineContext(), projectId, projectName: 'Reference groups' });
    expect(results.wer!.config.referenceGroup).toBeNull();
    expect(results.wer!.config.reference).toEqual({ kind: 'every-pair', unplanned: true });
    expect(results.wer!.comparisons.map((c) => [c.group, c.referenceGroup])).toEqual([['uk', 'scotland'], ['us', 'scotland'], ['us', 'uk']]);
    expect(results.warnings).toContain('WER: the plan names no reference group, so every pair of groups was compared (Holm over all pairs); a plan names one, or every pair, before it can be locked.');
  }, 60_000);
});
