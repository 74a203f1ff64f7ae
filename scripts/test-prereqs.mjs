#!/usr/bin/env node
// The first step of `npm test`: are the system packages the tests need installed
// (test/system-packages.json)? When some are missing, as root on Debian/Ubuntu it installs
// them with apt-get (saying what and why first); anywhere else it stops before any test
// runs and prints the one command that installs them. Optional packages (PyTorch, Slurm)
// are only named: the tests that need them report themselves as skipped. With
// EQUIVOX_REQUIRE_ALL=1 (CI) every package is required.
//
//   node scripts/test-prereqs.mjs            check, install if allowed, or stop (exit 1)
//   node scripts/test-prereqs.mjs --list     print the list (what .ci/run logs)
//   node scripts/test-prereqs.mjs --dry-run  say what it would install, install nothing
// EQUIVOX_PREREQS_INSTALL=0: never install, only say what is missing.
import { spawnSync } from 'node:child_process';
import { canProvision, installCommand, isDebianLike, LIST_FILE, loadPackages, missingPackages } from './system-packages.mjs';

const env = process.env;
const args = new Set(process.argv.slice(2));
const requireAll = env.EQUIVOX_REQUIRE_ALL === '1';
const packages = loadPackages();
const width = Math.max(...packages.map((p) => p.name.length));
const row = (p, extra = '') => `  ${p.name.padEnd(width)}  ${p.neededBy}${extra}`;

if (args.has('--list')) {
  console.log(`System packages the tests need (${LIST_FILE})${requireAll ? ', all required (EQUIVOX_REQUIRE_ALL=1)' : ''}:`);
  for (const p of packages) console.log(row(p, p.optional ? ' [optional: its tests skip without it]' : ''));
  process.exit(0);
}

/** Required here: everything under EQUIVOX_REQUIRE_ALL=1, else the non-optional ones. */
const required = (m) => requireAll || !m.pkg.optional;
let missing = missingPackages(packages, env);
let needed = missing.filter(required);

if (needed.length > 0 && canProvision(env) && env.EQUIVOX_PREREQS_INSTALL !== '0') {
  const names = needed.map((m) => m.pkg.name);
  console.log(`npm test: installing the system packages the tests need (${LIST_FILE}):`);
  for (const m of needed) console.log(row(m.pkg));
  const update = ['apt-get', ['update', '-qq']];
  const install = ['apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...names]];
  for (const [cmd, argv] of [update, install]) {
    console.log(`$ ${cmd} ${argv.join(' ')}`);
    if (args.has('--dry-run')) continue;
    const r = spawnSync(cmd, argv, { stdio: 'inherit', env: { ...env, DEBIAN_FRONTEND: 'noninteractive' } });
    if (r.status !== 0) {
      console.error(`npm test stopped before running anything: ${cmd} ${argv[0]} failed (exit ${r.status ?? r.signal}).`);
      process.exit(1);
    }
  }
  if (args.has('--dry-run')) process.exit(0);
  missing = missingPackages(packages, env);
  needed = missing.filter(required);
}

if (needed.length > 0) {
  const installed = canProvision(env) && env.EQUIVOX_PREREQS_INSTALL !== '0';
  console.error(`npm test stopped before running anything: ${installed ? 'these system packages are still not found after installing them' : 'the tests need system packages that are not installed here'} (${LIST_FILE}):`);
  for (const m of needed) console.error(row(m.pkg, `\n  ${''.padEnd(width)}  (not found: ${m.lacking.join(', ')})`));
  console.error('Install them with:');
  console.error(`  ${installCommand(needed.map((m) => m.pkg.name))}`);
  console.error(isDebianLike() ? 'then run npm test again.' : 'then run npm test again. This is not Debian or Ubuntu: install the programs named above with your package manager.');
  process.exit(1);
}

const optional = missing.filter((m) => !required(m));
const present = packages.length - missing.length;
console.log(`System packages for the tests (${LIST_FILE}): ${present} of ${packages.length} installed${optional.length ? '' : ', nothing missing'}.`);
if (optional.length > 0) {
  console.log('Not installed, optional: the tests that need them will say they were skipped, and why:');
  for (const m of optional) console.log(row(m.pkg));
  console.log(`  To run them too: ${installCommand(optional.map((m) => m.pkg.name))}`);
}
