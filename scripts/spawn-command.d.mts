// Types for spawn-command.mjs (plain JavaScript: it runs before anything is built), for the tests that use it.
import type { SpawnSyncOptions, SpawnSyncReturns } from 'node:child_process';

export function quoteForCmd(arg: string): string;
export function commandLine(command: string, args: string[], platform?: NodeJS.Platform): { file: string; args: string[]; shell: boolean };
export function spawnCommand(command: string, args: string[], options?: SpawnSyncOptions): SpawnSyncReturns<string | Buffer>;
export function runCommand(command: string, args: string[], options?: SpawnSyncOptions): SpawnSyncReturns<string | Buffer>;
