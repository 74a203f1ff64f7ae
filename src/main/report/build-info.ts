/**
 * Which source the running Equivox was built from, for the report's cover (issue 34.4):
 * the git commit written to build-info.json beside package.json when a build recorded it
 * (scripts/write-build-info.mjs), else the commit checked out when Equivox runs from a git
 * checkout, else null, and the report says the build did not record it.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface BuildCommit {
  commit: string;
  /** 'build': recorded when the build was made; 'checkout': read from the git checkout Equivox runs from (uncommitted changes are not seen). */
  from: 'build' | 'checkout';
}

const HEX40 = /^[0-9a-f]{40}$/;

function packageRoot(): string | null {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i += 1) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      try {
        if ((JSON.parse(readFileSync(file, 'utf8')) as { name?: string }).name === 'equivox') return dir;
      } catch {
        // Not ours: keep walking up.
      }
    }
    dir = dirname(dir);
  }
  return null;
}

const read = (file: string): string | null => {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return null;
  }
};

/** The commit HEAD names in a checkout at root (a worktree's .git file and packed refs included); null when none can be read. */
export function checkoutCommit(root: string): string | null {
  const dotGit = join(root, '.git');
  if (!existsSync(dotGit)) return null;
  let gitDir = dotGit;
  if (statSync(dotGit).isFile()) {
    const m = /^gitdir:\s*(.+)$/m.exec(read(dotGit) ?? '');
    if (!m) return null;
    gitDir = isAbsolute(m[1]!) ? m[1]! : join(root, m[1]!);
  }
  const common = read(join(gitDir, 'commondir'));
  const commonDir = common ? (isAbsolute(common) ? common : join(gitDir, common)) : gitDir;
  const head = read(join(gitDir, 'HEAD'));
  if (!head) return null;
  if (HEX40.test(head)) return head;
  const ref = /^ref:\s*(\S+)$/.exec(head)?.[1];
  if (!ref) return null;
  for (const dir of [gitDir, commonDir]) {
    const loose = read(join(dir, ref));
    if (loose && HEX40.test(loose)) return loose;
  }
  const packed = read(join(commonDir, 'packed-refs')) ?? '';
  for (const line of packed.split('\n')) {
    const [hash, name] = line.split(' ');
    if (name === ref && hash && HEX40.test(hash)) return hash;
  }
  return null;
}

export function buildCommit(): BuildCommit | null {
  const root = packageRoot();
  if (!root) return null;
  const info = read(join(root, 'build-info.json'));
  if (info) {
    try {
      const commit = (JSON.parse(info) as { commit?: unknown }).commit;
      if (typeof commit === 'string' && HEX40.test(commit)) return { commit, from: 'build' };
    } catch {
      // A damaged file says nothing: fall through to the checkout.
    }
  }
  const commit = checkoutCommit(root);
  return commit ? { commit, from: 'checkout' } : null;
}

/** The cover's line: "0.1.0, commit 0123abc… (recorded at build)" or that the build recorded none. */
export function buildText(version: string, commit: BuildCommit | null): string {
  if (!commit) return `${version}; git commit not recorded in this build`;
  return `${version}, git commit ${commit.commit}${commit.from === 'checkout' ? ' (read from the source checkout it ran from; uncommitted changes are not shown)' : ''}`;
}
