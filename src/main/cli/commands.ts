import type { Api } from '../api';
import type { CliCommand } from './args';

type Group = (api: () => Api) => CliCommand[];

/** `stats speat` alone: the SpEAT module without the other statistics (see speat-command.ts). */
const speatOnly = async (): Promise<Group> => {
  const { speatCommand } = await import('./speat-command');
  return () => [speatCommand];
};

/**
 * Command groups by their first word, each loaded only when used: `stats` must start
 * in a fraction of a second, so it never loads the engine, onnxruntime or the PDF stack.
 * Add one entry per domain, and its usage lines to usage.ts.
 */
const groups: Record<string, () => Promise<Group>> = {
  projects: async () => (await import('./projects')).projectCommands,
  call: async () => (await import('./projects')).projectCommands,
  demo: async () => (await import('./demo')).demoCommands,
  datasets: async () => (await import('./datasets')).datasetCommands,
  mappings: async () => (await import('./datasets')).datasetCommands,
  models: async () => (await import('./models')).modelCommands,
  embed: async () => (await import('./models')).modelCommands,
  stats: async () => {
    const { statsCommands } = await import('./stats');
    return () => statsCommands;
  },
  audit: async () => (await import('./audit')).auditCommands,
  report: async () => (await import('./report')).reportCommands,
  identity: async () => (await import('./report')).reportCommands,
  cluster: async () => (await import('./cluster')).clusterCommands,
};

/**
 * Commands whose first word needs no engine: pure computations on files (stats), and
 * embed, which works on the project database directly and loads the engine (with the PDF
 * stack behind it, about a second of start-up) only to resolve a project given by id.
 */
export const ENGINE_FREE_GROUPS = new Set(['stats', 'embed']);

/** Whether `first` is the first word of some command. */
export function isGroup(first: string): boolean {
  return Object.hasOwn(groups, first);
}

/**
 * The commands of one group, or of every group when `first` is undefined or unknown.
 * `second` narrows what is loaded where a command has its own module (`stats speat`).
 */
export async function loadCommands(first: string | undefined, api: () => Api, second?: string): Promise<CliCommand[]> {
  if (first === 'stats' && second === 'speat') return (await speatOnly())(api);
  const names = first !== undefined && isGroup(first) ? [first] : Object.keys(groups);
  const seen = new Set<Group>();
  const out: CliCommand[] = [];
  for (const name of names) {
    const group = await groups[name]!();
    if (seen.has(group)) continue;
    seen.add(group);
    out.push(...group(api));
  }
  return out;
}
