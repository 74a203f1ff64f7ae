/**
 * The demo: the bundled synthetic corpus (resources/demo), the two built-in models and
 * a plan that runs all four sections in a few minutes on a laptop.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { resourceDir, type ResourceLookup } from '../packaged-path';
import type { ColumnMapping, DatasetRole } from '../../shared/api/datasets';
import type { AuditPlanInput } from '../../shared/plan';

export interface DemoDataset {
  name: string;
  role: DatasetRole;
  manifest: string;
  mapping: ColumnMapping;
  speatTests?: { name: string; groupColumn: string; x: string; y: string; matchOn?: string[] }[];
  /** The recogniser that wrote the hypothesis column (asr datasets): the plan must name it to lock. */
  recogniser?: { name: string; version: string; settings: string };
}

export interface DemoDescription {
  version: number;
  synthetic: boolean;
  description: string;
  datasets: DemoDataset[];
}

/**
 * resources/demo from source, from the bundle, or in a packaged app: always the copy on
 * disk (app.asar.unpacked), since its clips are handed to ffmpeg, which cannot read the archive.
 */
export function demoDir(lookup?: ResourceLookup): string {
  return resourceDir('demo', 'demo.json', lookup);
}

export function loadDemoDescription(dir = demoDir()): DemoDescription {
  return JSON.parse(readFileSync(join(dir, 'demo.json'), 'utf8')) as DemoDescription;
}

export const DEMO_MODELS = ['acoustic-baseline', 'speech-embedding'];

/**
 * The demo's datasets as the app and the report name them. demo.json's own names say
 * which tools made the recordings, which the auditor does not need to know.
 */
const DEMO_NAMES: Record<DatasetRole, string> = {
  target: 'Demo: speakers by accent, gender and speaking rate',
  attribute: 'Demo: speech rated pleasant or unpleasant',
  asr: "Demo: transcripts and a speech recogniser's output",
  verification: 'Demo: speaker-verification recordings',
};

export function demoDatasetName(ds: Pick<DemoDataset, 'role' | 'name'>): string {
  return DEMO_NAMES[ds.role] ?? ds.name;
}

export const DEMO_PLAIN_DESCRIPTION = 'A small set of recordings made with speech synthesisers, not real people: the numbers show how an audit works, not how any model treats real speakers.';

/** The demo plan over imported dataset ids (by role). */
export function demoPlan(desc: DemoDescription, ids: Partial<Record<DatasetRole, string>>, options: { seed?: number; fast?: boolean } = {}): AuditPlanInput {
  const target = desc.datasets.find((d) => d.role === 'target')!;
  const asr = desc.datasets.find((d) => d.role === 'asr');
  const tests = (target.speatTests ?? []).map((t, i) => ({
    id: `t${i + 1}-${t.groupColumn}`,
    name: t.name,
    ...(t.groupColumn === 'gender' ? { preset: 'female-male' as const } : t.groupColumn === 'accent' ? { preset: 'us-foreign-accent' as const } : {}),
    targetDataset: ids.target!,
    x: { label: t.groupColumn, value: t.x },
    y: { label: t.groupColumn, value: t.y },
    matchOn: t.matchOn ?? [],
  }));
  return {
    title: 'Equivox demo audit (synthetic speech)',
    seed: options.seed ?? 20240601,
    sections: ['speat', 'ser', 'wer', 'fdi'],
    models: DEMO_MODELS,
    speat: {
      attributeDataset: ids.attribute!,
      attributePerSpeaker: 5,
      tests,
      permutations: options.fast ? 2000 : 10_000,
      bootstrap: options.fast ? 200 : 1000,
      sampleSizes: [2, 4, 6, 8, 10, 12],
      grid: true,
    },
    ser: { valenceDataset: ids.attribute!, maxSteps: options.fast ? 300 : 2000 },
    // Whisper's English normaliser beside basic: the numbers other studies publish, and its rule counts per accent.
    // The reference is part of the plan (METHODS.md § The unit of inference): every accent has 4 speakers, so
    // none is the largest; us is named as the accent the recogniser's acoustic model was trained on.
    wer: { dataset: ids.asr!, hypotheses: { source: 'column', ...(asr?.recogniser ? { recogniser: asr.recogniser } : {}) }, groupBy: ['accent'], referenceGroup: { kind: 'group', group: 'us', chosen: 'auditor' }, secondaryNormalize: 'whisper-english', bootstrap: options.fast ? 200 : 1000, permutations: options.fast ? 1000 : 10_000, ...(options.fast ? { mdeSimulations: 50 } : {}) },
    fdi: {
      source: { kind: 'verification', dataset: ids.verification!, modelId: 'speech-embedding', trialsPerGroup: 200 },
      groupings: [['gender'], ['accent'], ['gender', 'accent']],
      // Equal groups throughout: us as for WER, every pair where no group stands for the others.
      references: [
        { groupBy: ['gender'], reference: { kind: 'every-pair' } },
        { groupBy: ['accent'], reference: { kind: 'group', group: 'us', chosen: 'auditor' } },
        { groupBy: ['gender', 'accent'], reference: { kind: 'every-pair' } },
      ],
      bootstrap: options.fast ? 100 : 500,
    },
  };
}
