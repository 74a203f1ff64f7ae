// The system packages the tests need (test/system-packages.json): which are missing here,
// and how to install them. Used by scripts/test-prereqs.mjs (the first step of `npm test`)
// and .ci/run. Plain Node with no dependencies: it runs before anything is built.
import { accessSync, constants, existsSync, readFileSync, statSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const LIST_FILE = 'test/system-packages.json';
const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * @typedef {{ name: string, neededBy: string, optional?: boolean, commands?: string[], files?: string[], python?: string[] }} SystemPackage
 * @typedef {{ pkg: SystemPackage, lacking: string[] }} Missing
 */

/** @returns {SystemPackage[]} */
export function loadPackages(file = join(root, LIST_FILE)) {
  const list = JSON.parse(readFileSync(file, 'utf8'));
  if (!Array.isArray(list.packages)) throw new Error(`${file}: "packages" must be a list`);
  for (const [i, p] of list.packages.entries()) {
    if (typeof p.name !== 'string' || typeof p.neededBy !== 'string') throw new Error(`${file}: package ${i + 1} needs a "name" and a "neededBy"`);
    if (!p.commands && !p.files && !p.python) throw new Error(`${file}: ${p.name} names no "commands", "files" or "python" modules to look for`);
  }
  return list.packages;
}

/** `${VAR:-default}` and `${VAR}` from env. */
export function expand(text, env) {
  return text.replace(/\$\{(\w+)(?::-([^}]*))?\}/g, (_, name, fallback) => env[name] || fallback || '');
}

function runnable(path) {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first runnable `name` on env.PATH, or null. */
export function onPath(name, env) {
  for (const dir of (env.PATH ?? '').split(delimiter)) if (dir && runnable(join(dir, name))) return join(dir, name);
  return null;
}

/** What the tests would look for and not find, per package (empty when it is all there). */
export function lacking(pkg, env) {
  const out = [];
  for (const c of pkg.commands ?? []) if (!onPath(c, env)) out.push(`${c} on PATH`);
  for (const f of pkg.files ?? []) if (!existsSync(expand(f, env))) out.push(expand(f, env));
  if (pkg.python) {
    const python = env.EQUIVOX_TORCH_PYTHON || '/usr/bin/python3';
    for (const m of pkg.python) {
      // find_spec locates the package without importing it (importing torch takes seconds).
      const probe = `import importlib.util, sys; sys.exit(0 if importlib.util.find_spec(${JSON.stringify(m)}) else 1)`;
      const r = existsSync(python) ? spawnSync(python, ['-c', probe], { stdio: 'ignore', env }) : { status: 1 };
      if (r.status !== 0) out.push(`python module ${m} (${python})`);
    }
  }
  return out;
}

/** @returns {Missing[]} */
export function missingPackages(packages, env) {
  return packages.map((pkg) => ({ pkg, lacking: lacking(pkg, env) })).filter((m) => m.lacking.length > 0);
}

export function isDebianLike() {
  try {
    return /^(ID|ID_LIKE)=.*\b(debian|ubuntu)\b/m.test(readFileSync('/etc/os-release', 'utf8'));
  } catch {
    return false;
  }
}

/** Root on Debian or Ubuntu with apt-get: `npm test` may install what is missing. */
export function canProvision(env, uid = process.getuid?.()) {
  return uid === 0 && onPath('apt-get', env) !== null && isDebianLike();
}

/** The one command that installs `names` (sudo unless root). */
export function installCommand(names, uid = process.getuid?.()) {
  return `${uid === 0 ? '' : 'sudo '}apt-get install --no-install-recommends ${names.join(' ')}`;
}
