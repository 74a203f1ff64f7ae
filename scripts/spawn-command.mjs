// Starting npm, npx and other command shims from the developer scripts on every OS.
//
// On Windows npm and npx are batch files (npm.cmd, npx.cmd): spawning `npm` without a shell
// fails with ENOENT (there is no npm.exe), and since Node 18.20.2 / 20.12.2 (the fix for
// CVE-2024-27980) spawning a .cmd or .bat file without `shell: true` fails with EINVAL. So
// there they run through cmd.exe, with each argument quoted for it; elsewhere they are
// spawned directly, as before. Plain Node with no dependencies (it runs before anything is
// built).
import { spawnSync } from 'node:child_process';

/** Commands that are batch-file shims on Windows. */
const SHIMS = new Set(['npm', 'npx', 'pnpm', 'yarn', 'corepack']);

/**
 * One argument as cmd.exe hands it on unchanged: bare when it holds nothing cmd.exe reads,
 * else in double quotes. `%` (variable expansion, even inside quotes), `"` and line breaks
 * cannot be passed safely through cmd.exe, so they are refused rather than mangled.
 * @param {string} arg
 */
export function quoteForCmd(arg) {
  if (/[%"\r\n]/.test(arg)) throw new Error(`cannot pass ${JSON.stringify(arg)} through cmd.exe safely (it holds %, " or a line break)`);
  return /^[\w\-.,:/\\=@+]+$/.test(arg) ? arg : `"${arg}"`;
}

/**
 * How to start `command args` on `platform`: the file, its arguments and whether a shell is
 * needed. Programs given by path (process.execPath) and other executables are unchanged.
 * @param {string} command
 * @param {string[]} args
 * @param {NodeJS.Platform} [platform]
 * @returns {{ file: string, args: string[], shell: boolean }}
 */
export function commandLine(command, args, platform = process.platform) {
  if (platform !== 'win32') return { file: command, args, shell: false };
  const isShim = SHIMS.has(command) || /\.(cmd|bat)$/i.test(command);
  if (!isShim) return { file: command, args, shell: false };
  const file = SHIMS.has(command) ? `${command}.cmd` : command;
  // With shell: true Node joins the file and the arguments with spaces for cmd.exe /d /s /c.
  return { file: quoteForCmd(file), args: args.map(quoteForCmd), shell: true };
}

/**
 * spawnSync for a command that may be a shim (npm, npx): the same options and result.
 * @param {string} command
 * @param {string[]} args
 * @param {import('node:child_process').SpawnSyncOptions} [options]
 */
export function spawnCommand(command, args, options = {}) {
  const line = commandLine(command, args);
  return spawnSync(line.file, line.args, { ...options, shell: line.shell });
}

/**
 * Like execFileSync: runs the command and throws when it cannot start or exits non-zero.
 * @param {string} command
 * @param {string[]} args
 * @param {import('node:child_process').SpawnSyncOptions} [options]
 */
export function runCommand(command, args, options = {}) {
  const r = spawnCommand(command, args, options);
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (exit ${r.status ?? r.signal})`);
  return r;
}
