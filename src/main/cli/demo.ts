import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Api } from '../api';
import type { CliCommand } from './args';

/** `npm run demo`: the headless main job. Grows as the audit pipelines land. */
export function demoCommands(api: () => Api): CliCommand[] {
  return [
    {
      path: ['demo'],
      usage: 'demo [--out DIR]',
      run: async (o, _positionals, ctx) => {
        const out = resolve(o.string('out') ?? 'demo-output');
        o.assertNoUnknown();
        mkdirSync(out, { recursive: true });
        const project = await api().invoke('projects.create', { name: `Demo ${new Date().toISOString()}`, dir: join(out, `project-${Date.now()}`) });
        ctx.log(`created demo project at ${project.path}`);
        const summary = { project, notYetBuilt: ['import of the demo corpus', 'inference', 'the four audits', 'the signed report'] };
        writeFileSync(join(out, 'results.json'), JSON.stringify(summary, null, 2));
        ctx.log(`wrote ${join(out, 'results.json')}`);
        return summary;
      },
    },
  ];
}
