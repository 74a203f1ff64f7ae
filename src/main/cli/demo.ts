import { resolve } from 'node:path';
import type { Api } from '../api';
import { runDemo } from '../audits/demo';
import type { CliCommand } from './args';
import { cliTaskContext } from './task-context';

/** `npm run demo`: the headless main job. */
export function demoCommands(api: () => Api): CliCommand[] {
  return [
    {
      path: ['demo'],
      usage: 'demo [--out DIR] [--seed N] [--fast]   (demo project, all four audits, results in DIR, default ./demo-output)',
      run: async (o, _positionals, ctx) => {
        const out = resolve(o.string('out') ?? 'demo-output');
        const seedRaw = o.string('seed');
        const fast = o.flag('fast');
        o.assertNoUnknown();
        const seed = seedRaw === undefined ? undefined : Number(seedRaw);
        const task = cliTaskContext(ctx.log);
        try {
          const t0 = Date.now();
          const r = await runDemo(api().engine, { out, ...(seed !== undefined ? { seed } : {}), fast, task, log: ctx.log });
          ctx.log(`results: ${r.resultsPath}`);
          ctx.log(`signed report: ${r.reportPath} (statement: ${r.statementPath}; attestation: ${r.attestationPath}; tables: ${r.exportsDir})`);
          ctx.log(`demo finished in ${Math.round((Date.now() - t0) / 1000)} s`);
          return {
            project: r.project,
            auditId: r.auditId,
            resumed: r.resumed,
            results: r.resultsPath,
            report: r.reportPath,
            statement: r.statementPath,
            attestation: r.attestationPath,
            exports: r.exportsDir,
            sections: r.results.audit.sections,
            errors: r.results.errors,
            warnings: r.results.warnings.length,
          };
        } finally {
          task.dispose();
        }
      },
    },
  ];
}
