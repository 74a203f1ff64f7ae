#!/usr/bin/env node
// Records the git commit a build is made from in build-info.json beside package.json, for
// the report's cover (src/main/report/build-info.ts reads it). Outside a git checkout it writes
// nothing and removes a stale file, so the cover says the build did not record a commit.
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// The folder to write into (default: here); scripts/inspect-package.mjs writes its staged copy's.
const out = join(process.argv[2] ?? '.', 'build-info.json');

let commit = null;
try {
  commit = execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
} catch {
  commit = null;
}
if (commit && /^[0-9a-f]{40}$/.test(commit)) writeFileSync(out, `${JSON.stringify({ commit }, null, 2)}\n`);
else rmSync(out, { force: true });
