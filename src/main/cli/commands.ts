import type { Api } from '../api';
import type { CliCommand } from './args';
import { projectCommands } from './projects';
import { demoCommands } from './demo';
import { datasetCommands } from './datasets';
import { statsCommands } from './stats';
import { auditCommands } from './audit';
import { modelCommands } from './models';
import { reportCommands } from './report';

/**
 * Every CLI command. Commands that need the engine get `api()`, which creates it on
 * first use, so pure commands (stats) start without opening any database.
 * Add one line per domain.
 */
export function allCommands(api: () => Api): CliCommand[] {
  return [
    ...projectCommands(api),
    ...demoCommands(api),
    ...datasetCommands(api),
    ...modelCommands(api),
    ...statsCommands,
    ...auditCommands(api),
    ...reportCommands(api),
  ];
}
