/**
 * Section requirements before lock, on data imported by the real importer from the demo
 * corpus: a WER spreadsheet whose recogniser-output column was not mapped is refused
 * (by checkRequirements, lockPlan and `audit lock` in the CLI, naming the reason), and
 * once the column is mapped the same plan locks and its WER section runs. The SER split
 * sizes the check reports are the ones the trainer uses.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockPlan, savePlan } from '../../../src/main/audits/plans';
import { attributeSets } from '../../../src/main/data/speat-design';
import { isUsable, listClips } from '../../../src/main/data/repository';
import { AuditPlan } from '../../../src/shared/plan';
import { checkRequirements, PlanNotReadyError, serSplitSizes } from '../../../src/main/audits/requirements';
import { createAudit, runAudit } from '../../../src/main/audits/run';
import { splitIndices } from '../../../src/main/stats/ser';
import { importDataset } from '../../../src/main/data/import';
import { inlineContext } from '../../../src/main/jobs/task';
import { ProjectStore } from '../../../src/main/store/projects';
import { demoSubset } from '../../fixtures/data/demo-subset';

let home: string;
let dir: string;
let store: ProjectStore;
let projectId: string;
let projectDir: string;
let clipsId: string;
let ratingsId: string;

// The auditor's spreadsheet: 24 recordings (every other row) of three accents, with transcripts and recogniser output.
const accents = new Set(['us', 'uk', 'scotland']);
const noHypothesis = { path: 'path', speaker: 'speaker', groups: ['accent', 'gender'], transcript: 'transcript', ignore: [] };

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'equivox-req-home-'));
  dir = mkdtempSync(join(tmpdir(), 'equivox-req-'));
  demoSubset(dir, 'asr', (r, i) => accents.has(r.accent!) && i % 2 === 0, { name: 'clips.csv' });
  // 40 valence-rated clips: four speakers with ten each.
  const perSpeaker = new Map<string, number>();
  demoSubset(dir, 'attribute', (r) => {
    const n = perSpeaker.get(r.speaker!) ?? 0;
    if (perSpeaker.size >= 4 && n === 0) return false;
    perSpeaker.set(r.speaker!, n + 1);
    return n < 10;
  }, { name: 'ratings.csv' });
  store = new ProjectStore(home);
  projectDir = join(dir, 'project');
  const p = store.create('Requirements', projectDir);
  projectId = p.id;
  const db = store.db(p.id);
  const clips = await importDataset(db, { source: { kind: 'manifest', manifest: join(dir, 'clips.csv') }, role: 'target', roles: ['target', 'asr'], mapping: noHypothesis });
  clipsId = clips.datasetId;
  const ratings = await importDataset(db, {
    source: { kind: 'manifest', manifest: join(dir, 'ratings.csv') },
    role: 'attribute',
    mapping: { path: 'path', speaker: 'speaker', groups: ['gender', 'accent'], valence: 'valence', ignore: [] },
  });
  ratingsId = ratings.datasetId;
}, 120_000);

afterAll(() => store?.close());

const SPHINX = { name: 'pocketsphinx_continuous', version: '0.8+5prealpha+1-15', settings: 'en-us acoustic model, en-us.lm.bin' };
type Recogniser = { name: string; version: string; settings: string };
const werPlan = (recogniser: Recogniser | null = SPHINX) => ({
  title: 'Own data',
  sections: ['wer'] as const,
  seed: 3,
  wer: { dataset: clipsId, hypotheses: { source: 'column' as const, ...(recogniser ? { recogniser } : {}) }, groupBy: ['accent'], referenceGroup: 'us', bootstrap: 100, permutations: 200 },
});

describe('section requirements before lock', () => {
  it('names the missing recogniser output with its fixes, and lists what is present', () => {
    const r = checkRequirements(store.db(projectId), { ...werPlan(), sections: ['wer'] });
    expect(r.ready).toBe(false);
    expect(r.reasons).toEqual(['WER: “clips.csv” has no recogniser output (hypothesis) for any recording, and no speech-recognition model is chosen to produce it']);
    const reqs = r.sections[0]!.requirements;
    expect(reqs.map((x) => [x.id, x.met])).toEqual([
      ['wer.references', true],
      ['wer.hypotheses', false],
      ['wer.groups', true],
      ['wer.reference', true],
    ]);
    expect(reqs[0]!.detail).toBe('“clips.csv”: 24 recordings with a reference transcript');
    expect(reqs[1]!.fixes.map((f) => f.kind)).toEqual(['map-column', 'step', 'untick']);
    expect(reqs[1]!.fixes[0]).toMatchObject({ datasetId: clipsId, column: 'hypothesis' });
    expect(reqs[2]!.detail).toBe('accent: scotland, uk, us');
    expect(reqs[3]!.detail).toBe('Reference group chosen before the run: us, named by the auditor.');
  });

  it('refuses to lock, one reason per line, through lockPlan and the CLI', () => {
    const db = store.db(projectId);
    const plan = savePlan(db, { config: werPlan() });
    let err: unknown;
    try {
      lockPlan(db, plan.id);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(PlanNotReadyError);
    expect((err as PlanNotReadyError).reasons).toHaveLength(1);
    expect((err as PlanNotReadyError).message.split('\n').slice(1)).toEqual((err as PlanNotReadyError).reasons);

    const planFile = join(dir, 'plan.json');
    writeFileSync(planFile, JSON.stringify(werPlan()));
    const cli = spawnSync(process.execPath, ['--import', 'tsx', 'src/main/cli.ts', 'audit', 'lock', '--project', projectDir, '--plan', planFile], {
      env: { ...process.env, EQUIVOX_HOME: home },
      encoding: 'utf8',
    });
    expect(cli.status, cli.stderr).toBe(1);
    const lines = cli.stderr.trim().split('\n');
    expect(lines[0]).toBe('error: the plan cannot be locked yet: one section cannot run');
    expect(lines.slice(1)).toEqual(['WER: “clips.csv” has no recogniser output (hypothesis) for any recording, and no speech-recognition model is chosen to produce it']);
    expect(JSON.parse(cli.stdout)).toMatchObject({ error: { code: 'user', field: 'plan' } });
  }, 60_000);

  it('after the column is mapped the same plan locks and its WER section runs', async () => {
    const db = store.db(projectId);
    // The fix the wizard offers: import the same spreadsheet again with the column mapped.
    const again = await importDataset(db, { source: { kind: 'manifest', manifest: join(dir, 'clips.csv') }, role: 'asr', mapping: { ...noHypothesis, hypothesis: 'hypothesis' } });
    expect(again.datasetId).toBe(clipsId);
    // Imported hypotheses from an unnamed recogniser do not lock, in the API and the CLI alike.
    const why = 'WER: the recogniser output of “clips.csv” does not say which recogniser wrote it (missing: version, settings); give its name, version and settings on the Models step, or in the plan as wer.hypotheses.recogniser = { "name": …, "version": …, "settings": … }';
    const unnamed = werPlan({ name: 'pocketsphinx', version: ' ', settings: '' });
    expect(checkRequirements(db, unnamed).reasons).toEqual([why]);
    expect(() => lockPlan(db, savePlan(db, { config: unnamed }).id)).toThrow(PlanNotReadyError);
    const planFile = join(dir, 'plan-unnamed.json');
    writeFileSync(planFile, JSON.stringify(unnamed));
    const cli = spawnSync(process.execPath, ['--import', 'tsx', 'src/main/cli.ts', 'audit', 'lock', '--project', projectDir, '--plan', planFile], { env: { ...process.env, EQUIVOX_HOME: home }, encoding: 'utf8' });
    expect(cli.status, cli.stderr).toBe(1);
    expect(cli.stderr.trim().split('\n').slice(1)).toEqual([why]);
    const r = checkRequirements(db, werPlan());
    expect(r.reasons).toEqual([]);
    expect(r.sections[0]!.requirements.find((x) => x.id === 'wer.recogniser')!.detail).toBe('hypotheses written by pocketsphinx_continuous 0.8+5prealpha+1-15 (en-us acoustic model, en-us.lm.bin)');
    expect(r.sections[0]!.requirements.find((x) => x.id === 'wer.groups')!.detail).toBe('accent: scotland, uk, us');
    const locked = lockPlan(db, savePlan(db, { config: werPlan() }).id);
    expect(locked.sha256).toMatch(/^[0-9a-f]{64}$/);
    const audit = createAudit(db, locked.id);
    const results = await runAudit({ db, dataDir: home, auditId: audit.id, task: inlineContext(), projectId, projectName: 'Requirements' });
    expect(results.errors).toEqual([]);
    expect(Object.keys(results.wer!.groups).sort()).toEqual(['scotland', 'uk', 'us']);
    expect(results.wer!.config.asrModel).toBe(`${SPHINX.name} ${SPHINX.version} (${SPHINX.settings})`);
    expect(results.wer!.config.recogniser).toEqual(SPHINX);
  }, 90_000);

  it('checks SpEAT ratings at the plan\'s own default per speaker, and offers the number the data supports', () => {
    const db = store.db(projectId);
    const draft = { sections: ['speat'], models: ['acoustic-baseline'], speat: { attributeDataset: ratingsId, targetDataset: clipsId, tests: [] } };
    // The draft leaves the setting out; the plan it becomes gets the schema's default (the paper's 10).
    const k = AuditPlan.parse({ title: 't', sections: ['speat'], models: ['acoustic-baseline'], speat: { attributeDataset: ratingsId, tests: [{ id: 't1', name: 'n', targetDataset: clipsId, x: { label: 'gender', value: 'female' }, y: { label: 'gender', value: 'male' } }] } }).speat!.attributePerSpeaker;
    expect(k).toBe(10);
    const ratings = checkRequirements(db, draft).sections[0]!.requirements.find((x) => x.id === 'speat.ratings')!;
    expect(ratings.met).toBe(false);
    expect(ratings.detail).toBe('each rated speaker needs at least 20 rated recordings (10 pleasant and 10 unpleasant); none has enough, giving 0 pleasant recordings');
    // Four speakers with ten ratings each: five per side from every speaker is the most the data gives.
    expect(ratings.fixes[0]).toEqual({ kind: 'setting', path: ['speat', 'attributePerSpeaker'], value: 5, label: 'Use 5 pleasant and 5 unpleasant recordings per speaker' });
    expect(ratings.fixes.map((f) => f.kind)).toEqual(['setting', 'import', 'untick']);
    // The pipeline agrees: the attribute sets it would build at 10 are empty, at 5 they are 20 and 20.
    const clips = listClips(db, ratingsId).filter(isUsable);
    expect(attributeSets(clips, k).A).toHaveLength(0);
    expect(attributeSets(clips, 5).A).toHaveLength(20);
    const fixed = checkRequirements(db, { ...draft, speat: { ...draft.speat, attributePerSpeaker: 5 } }).sections[0]!.requirements.find((x) => x.id === 'speat.ratings')!;
    expect(fixed.met).toBe(true);
  });

  it('checks every ticked section: SpEAT and SER on the ratings, FDI names the missing verification recordings', () => {
    const db = store.db(projectId);
    const r = checkRequirements(db, {
      sections: ['speat', 'ser', 'wer', 'fdi'],
      models: ['acoustic-baseline'],
      speat: { targetDataset: clipsId, attributeDataset: ratingsId, attributePerSpeaker: 5, tests: [{ id: 't1', name: 'female vs male', targetDataset: clipsId, x: { label: 'gender', value: 'female' }, y: { label: 'gender', value: 'male' } }] },
      ser: { valenceDataset: ratingsId },
      wer: { dataset: clipsId, hypotheses: { source: 'column', recogniser: SPHINX }, groupBy: ['accent'], referenceGroup: { kind: 'every-pair' } },
      fdi: { source: { kind: 'verification', modelId: 'acoustic-baseline' }, groupings: [['gender']] },
    });
    expect(r.reasons).toEqual(['FDI: no recordings for speaker-verification trials have been imported']);
    const byId = Object.fromEntries(r.sections.flatMap((s) => s.requirements).map((x) => [x.id, x]));
    expect(byId['speat.ratings']!.detail).toBe('“ratings.csv”: 40 rated recordings from 4 speakers give 20 pleasant and 20 unpleasant recordings (5 of each per speaker)');
    expect(byId['ser.ratings']!.detail).toBe('“ratings.csv”: 40 rated recordings: 28 to train, 6 to choose the training speed, 6 to test');
    expect(byId['fdi.recordings']!.fixes.map((f) => f.label)).toEqual(['Import recordings for speaker-verification trials', 'Leave out FDI']);
    // Asking for more rated recordings per speaker than there are is refused before the run, with the rule.
    const strict = checkRequirements(db, { sections: ['speat'], models: ['acoustic-baseline'], speat: { attributeDataset: ratingsId, attributePerSpeaker: 6, targetDataset: clipsId, tests: [] } });
    expect(strict.reasons).toContain('SpEAT: each rated speaker needs at least 12 rated recordings (6 pleasant and 6 unpleasant); none has enough, giving 0 pleasant recordings');
  });

  it('FDI: groups need two speakers; the same spreadsheet serves as verification data when it has them', async () => {
    const db = store.db(projectId);
    await importDataset(db, { source: { kind: 'manifest', manifest: join(dir, 'clips.csv') }, role: 'verification', mapping: { ...noHypothesis, hypothesis: 'hypothesis' } });
    const plan = (groupings: string[][]) => ({ sections: ['fdi'], fdi: { source: { kind: 'verification', dataset: clipsId, modelId: 'acoustic-baseline' }, groupings, references: groupings.map((groupBy) => ({ groupBy, reference: { kind: 'every-pair' } })) } });
    expect(checkRequirements(db, plan([['gender']])).ready).toBe(true);
    // Grouping by speaker leaves one speaker per group: no impostor pairs within a group.
    const bySpeaker = checkRequirements(db, plan([['speaker']]));
    expect(bySpeaker.reasons).toEqual(['FDI: speaker: no group has two speakers, one of them with two or more recordings']);
  });

  it('reports the SER split sizes the trainer actually uses', () => {
    for (const n of [10, 11, 17, 40, 73, 200]) {
      for (const f of [{ train: 0.7, validation: 0.15, test: 0.15 }, { train: 0.6, validation: 0.2, test: 0.2 }, { train: 0.8, validation: 0.1, test: 0.1 }]) {
        const s = splitIndices(n, f, 42);
        expect(serSplitSizes(n, f)).toEqual({ train: s.train.length, validation: s.validation.length, test: s.test.length });
      }
    }
  });
});
