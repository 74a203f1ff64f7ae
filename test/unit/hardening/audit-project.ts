/**
 * A project with a SpEAT audit to run from the CLI, built by the real pipeline: the
 * bundled demo's rated and target recordings imported with the real importer, and a plan
 * file with the built-in acoustic baseline (so a run embeds 120 recordings, one committed
 * row each, then computes the SpEAT units). Used by the storage, lock and report-kill
 * tests, which need a run with many separate writes.
 */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { AuditPlanInput } from '../../../src/shared/plan';
import { importDataset } from '../../../src/main/data/import';
import { ProjectStore } from '../../../src/main/store/projects';

const DEMO = resolve('resources/demo');

export interface AuditProject {
  home: string;
  project: string;
  planFile: string;
  plan: AuditPlanInput;
}

export async function speatProject(home: string, project: string, planDir: string, options: { permutations?: number; bootstrap?: number } = {}): Promise<AuditProject> {
  const store = new ProjectStore(home);
  try {
    const p = store.create('Storage test', project);
    const db = store.db(p.id);
    const attribute = await importDataset(db, {
      source: { kind: 'manifest', manifest: join(DEMO, 'attribute.csv') },
      role: 'attribute',
      mapping: { path: 'path', speaker: 'speaker', groups: ['gender', 'accent'], valence: 'valence', transcript: 'transcript', ignore: [] },
    });
    const target = await importDataset(db, {
      source: { kind: 'manifest', manifest: join(DEMO, 'target.csv') },
      role: 'target',
      mapping: { path: 'path', speaker: 'speaker', groups: ['accent', 'gender', 'rate'], transcript: 'transcript', ignore: [] },
    });
    const plan: AuditPlanInput = {
      title: 'Storage test audit',
      seed: 7,
      sections: ['speat'],
      models: ['acoustic-baseline'],
      speat: {
        attributeDataset: attribute.datasetId,
        attributePerSpeaker: 5,
        tests: [
          { id: 'gender', name: 'Female vs male', targetDataset: target.datasetId, x: { label: 'gender', value: 'female' }, y: { label: 'gender', value: 'male' }, matchOn: [] },
          { id: 'accent', name: 'US vs UK', targetDataset: target.datasetId, x: { label: 'accent', value: 'us' }, y: { label: 'accent', value: 'uk' }, matchOn: [] },
        ],
        permutations: options.permutations ?? 2000,
        bootstrap: options.bootstrap ?? 100,
        sampleSizes: [2, 4],
      },
    };
    const planFile = join(planDir, 'plan.json');
    writeFileSync(planFile, `${JSON.stringify(plan, null, 2)}\n`);
    return { home, project, planFile, plan };
  } finally {
    store.close();
  }
}
