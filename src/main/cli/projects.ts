import type { Api } from '../api';
import type { CliCommand } from './args';

/** CLI commands that map one-to-one onto API operations. */
export function projectCommands(api: () => Api): CliCommand[] {
  return [
    {
      path: ['projects', 'create'],
      usage: 'projects create --name NAME [--dir DIR]',
      run: async (o) => {
        const input = { name: o.string('name'), dir: o.string('dir') };
        o.assertNoUnknown();
        return api().invoke('projects.create', input);
      },
    },
    {
      path: ['projects', 'list'],
      usage: 'projects list',
      run: async (o) => {
        o.assertNoUnknown();
        return api().invoke('projects.list', {});
      },
    },
    {
      path: ['projects', 'open'],
      usage: 'projects open (--id ID | --dir DIR [--as-copy])   (--as-copy: the folder is a copy of a project kept elsewhere; give it its own id)',
      run: async (o) => {
        const asCopy = o.flag('as-copy');
        const input = { id: o.string('id'), path: o.string('dir'), ...(asCopy ? { asCopy } : {}) };
        o.assertNoUnknown();
        return api().invoke('projects.open', input);
      },
    },
    {
      path: ['projects', 'rename'],
      usage: 'projects rename --id ID --name NAME',
      run: async (o) => {
        const input = { id: o.string('id'), name: o.string('name') };
        o.assertNoUnknown();
        return api().invoke('projects.rename', input);
      },
    },
    {
      path: ['projects', 'delete'],
      usage: 'projects delete --id ID [--delete-files]',
      run: async (o) => {
        const input = { id: o.string('id'), deleteFiles: o.flag('delete-files') };
        o.assertNoUnknown();
        return api().invoke('projects.delete', input);
      },
    },
    {
      path: ['call'],
      usage: 'call OPERATION [--input JSON]   (any API operation, e.g. call projects.list)',
      run: async (o, positionals) => {
        const raw = o.string('input');
        o.assertNoUnknown();
        let input: unknown = {};
        if (raw !== undefined) {
          try {
            input = JSON.parse(raw);
          } catch {
            throw new (await import('./args')).UsageError('--input must be JSON');
          }
        }
        return api().invoke(positionals[0] ?? '', input);
      },
    },
  ];
}
