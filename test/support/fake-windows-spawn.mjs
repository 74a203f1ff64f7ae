// Loaded with `node --import` by test/unit/ci/spawn-windows.test.ts: this process looks like
// Windows to the developer scripts, and every program they start is recorded (one JSON line
// in FAKE_SPAWN_LOG) and answered as Windows with Node ≥ 20.12.2 would answer, without
// starting anything:
//   - a .cmd or .bat file without a shell: EINVAL (CVE-2024-27980's fix);
//   - `npm` or `npx` without a shell: ENOENT (they are npm.cmd and npx.cmd, not .exe files);
//   - anything else: exit status 0.
import childProcess from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

Object.defineProperty(process, 'platform', { value: 'win32' });

const log = process.env.FAKE_SPAWN_LOG;

function outcome(file, options) {
  const shell = Boolean(options?.shell);
  const base = String(file).replace(/^"|"$/g, '');
  if (!shell && /\.(cmd|bat)$/i.test(base)) return Object.assign(new Error(`spawnSync ${base} EINVAL`), { code: 'EINVAL', errno: -4071, syscall: `spawnSync ${base}` });
  if (!shell && /^(npm|npx)$/.test(base)) return Object.assign(new Error(`spawnSync ${base} ENOENT`), { code: 'ENOENT', errno: -4058, syscall: `spawnSync ${base}` });
  return null;
}

function record(kind, file, args, options) {
  if (log) appendFileSync(log, JSON.stringify({ kind, file, args: args ?? [], shell: Boolean(options?.shell), cwd: options?.cwd ?? null }) + '\n');
}

childProcess.spawnSync = (file, args, options) => {
  record('spawnSync', file, args, options);
  const error = outcome(file, options);
  return error ? { pid: 0, status: null, signal: null, output: null, stdout: null, stderr: null, error } : { pid: 0, status: 0, signal: null, output: [null, '', ''], stdout: '', stderr: '' };
};
childProcess.execFileSync = (file, args, options) => {
  record('execFileSync', file, args, options);
  const error = outcome(file, options);
  if (error) throw error;
  return '';
};
syncBuiltinESMExports();
