/**
 * Compile-time checks of the typed job map (src/shared/jobs.ts): `npm run typecheck` fails
 * when a call hands a kind the wrong input, names a kind the map lacks, or reads a result
 * field the kind's output does not have; and when the registry lacks a kind or holds a task
 * of the wrong types. Each `@ts-expect-error` line must stay an error: if one of them became
 * valid, TypeScript reports the directive as unused and the typecheck fails. Nothing here runs.
 */
import type { EmbedSummary } from '../../src/shared/api/models';
import type { JobInput, JobKind, JobOutput } from '../../src/shared/jobs';
import type { JobRunner } from '../../src/main/jobs/runner';
import type { TaskRegistry } from '../../src/main/job-registry';
import type { Task } from '../../src/main/jobs/task';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : { error: 'not the same'; a: A; b: B }) : { error: 'not the same'; a: A; b: B };

export const outputs: true[] = [
  true satisfies Same<JobOutput<'inference.embed'>, EmbedSummary>,
  true satisfies Same<JobOutput<'selftest.count'>, { counted: number; threadId: number }>,
  true satisfies Same<JobInput<'audits.run'>, { projectPath: string; dataDir: string; auditId: string }>,
];

export async function calls(runner: JobRunner): Promise<void> {
  const embed = runner.start('inference.embed', { projectPath: '/p', dataDir: '/d', datasetId: 'ds', model: 'acoustic-baseline' });
  const summary: EmbedSummary = await embed.result;
  void summary;
  // @ts-expect-error: an embedding job needs its dataset.
  runner.start('inference.embed', { projectPath: '/p', dataDir: '/d', model: 'acoustic-baseline' });
  // @ts-expect-error: a field of another kind's input.
  runner.start('audits.run', { projectPath: '/p', dataDir: '/d', auditId: 'a', datasetId: 'ds' });
  // @ts-expect-error: a kind the job map does not have.
  runner.start('inference.embedd', {});
  const count = await runner.start('selftest.count', { units: 1, unitMs: 1 }).result;
  // @ts-expect-error: the count job's output has no auditId.
  void count.auditId;
  for (const job of runner.runningOf('audits.run')) {
    const id: string = job.input.auditId;
    void id;
    // @ts-expect-error: an audit's input has no model.
    void job.input.model;
  }
}

declare const registry: TaskRegistry;
export const registryChecks = [
  // The registry's task for a kind takes that kind's input and gives its output.
  registry['inference.embed'] satisfies Task<JobInput<'inference.embed'>, JobOutput<'inference.embed'>>,
] as const;

// @ts-expect-error: a registry missing a kind is not a TaskRegistry.
export const missing: TaskRegistry = { 'selftest.count': registry['selftest.count'] };

const allKinds: Record<JobKind, true> = {
  'selftest.count': true,
  'selftest.sessions': true,
  'selftest.inference': true,
  'datasets.import': true,
  'models.import': true,
  'inference.embed': true,
  'audits.run': true,
  'demo.import': true,
  'cluster.import': true,
  'demo.run': true,
  'reports.render': true,
};
export const kinds = Object.keys(allKinds);
