/**
 * Full disks, busy databases, two runs at once and a killed report build (issue 23.6,
 * 23.7, 23.8), through the real CLI in separate processes:
 * - disk full on a small tmpfs during `audit run`: a user error naming the folder, its
 *   free space and the estimated need; after space is freed, `audit run --plan` resumes
 *   the same run and keeps every embedding stored before the failure; then the same for
 *   `report build`;
 * - a second writer holding the write lock 150 ms per transaction (a slow disk) while six
 *   `datasets exclude` run at once: every one succeeds;
 * - two `audit run` of one plan at once: the second is refused with the first's run id,
 *   the first finishes once; a run killed with SIGKILL leaves its lock, which the next
 *   run takes over, resuming the same run;
 * - `report build` killed while the PDF waits to be renamed into place (a slow disk,
 *   planted with strace's syscall delay): nothing is reported, and the rerun removes the
 *   hidden copy and completes the PDF, statement, data files and the reports row.
 * No case may yield an `internal` error. About 5 minutes here (two imports of the demo's
 * 120 recordings and four audit runs embedding them).
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIdentity } from '../../../src/main/identity';
import { importDataset } from '../../../src/main/data/import';
import { PROJECT_FILE, ProjectStore } from '../../../src/main/store/projects';
import { demoSubset } from '../../fixtures/data/demo-subset';
import { straceAvailability } from '../../support/strace-available';
import { speatProject, type AuditProject } from './audit-project';
import { reopen, runCli, type RunOutcome } from './crash-helpers';

const tempDir = (p: string) => mkdtempSync(join(tmpdir(), `equivox-storage-${p}-`));
const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
const count = (db: Database.Database, sql: string, ...params: unknown[]) => (db.prepare(sql).get(...params) as { n: number }).n;
const errorOf = (r: RunOutcome) => (JSON.parse(r.stdout) as { error: { code: string; message: string } }).error;

/** A tmpfs of `size` at a new folder, or why there cannot be one here (not root, mount refused). */
function mountTmpfs(size: string): { dir: string | null; reason: string } {
  if (process.getuid?.() !== 0) return { dir: null, reason: 'mounting a small tmpfs needs root' };
  const dir = tempDir('tmpfs');
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir], { encoding: 'utf8' });
  if (r.status !== 0) return { dir: null, reason: `mount -t tmpfs is not permitted here: ${(r.stderr || String(r.error)).trim().split('\n')[0]}` };
  return { dir, reason: '' };
}
const tmpfs = mountTmpfs('8m');
const strace = straceAvailability();

/** Fill the disk holding `dir` with a file until `leave` bytes are free; returns the file. */
function fill(dir: string, leave: number): string {
  const s = statfsSync(dir);
  const free = Number(s.bavail) * Number(s.bsize);
  const file = join(dir, 'filler.bin');
  writeFileSync(file, Buffer.alloc(Math.max(0, free - leave)));
  return file;
}

/** Run the CLI and SIGKILL its process group once `condition` (polled every 50 ms) holds. */
function killWhen(args: string[], home: string, condition: () => boolean): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main/cli.ts', ...args], { env: { ...process.env, EQUIVOX_HOME: home }, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const poll = setInterval(() => {
      try {
        if (condition()) {
          clearInterval(poll);
          process.kill(-child.pid!, 'SIGKILL');
        }
      } catch {
        // The database may not be readable for a moment; poll again.
      }
    }, 50);
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(poll);
      resolve({ code, stderr });
    });
  });
}

/**
 * Run the CLI; `onLine` sees each stderr line and may pause the whole process group
 * (SIGSTOP), getting back the function that lets it go on (SIGCONT).
 */
function runCliPausable(args: string[], home: string, onLine: (line: string, pause: () => () => void) => void): Promise<RunOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main/cli.ts', ...args], { env: { ...process.env, EQUIVOX_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const out = { stdout: '', stderr: '' };
    let partial = '';
    const pause = () => {
      process.kill(-child.pid!, 'SIGSTOP');
      return () => process.kill(-child.pid!, 'SIGCONT');
    };
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out.stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      out.stderr += c;
      partial += c;
      const lines = partial.split('\n');
      partial = lines.pop()!;
      for (const line of lines) onLine(line, pause);
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, killedAt: null, ...out }));
  });
}

/** The prepared project, copied (with its own data folder) for one test. */
let pristine: AuditProject;
function copyProject(where: string): AuditProject {
  const project = join(where, 'project');
  cpSync(pristine.project, project, { recursive: true });
  const home = tempDir('home');
  return { ...pristine, home, project };
}

beforeAll(async () => {
  const root = tempDir('pristine');
  pristine = await speatProject(join(root, 'home'), join(root, 'project'), root);
}, 240_000);

afterAll(() => {
  if (tmpfs.dir) spawnSync('umount', ['-l', tmpfs.dir]);
});

describe.skipIf(!tmpfs.dir)(`a full disk during audit run and report build${tmpfs.dir ? '' : ` (skipped: ${tmpfs.reason})`}`, () => {
  it('says which folder is full and what the run needs, then resumes the same run keeping what was stored', { timeout: 300_000 }, async () => {
    const p = copyProject(tmpfs.dir!);
    const run = ['audit', 'run', '--project', p.project, '--plan', p.planFile];
    // A quarter of a megabyte: the run's write-ahead log outgrows it part way through embedding.
    const filler = fill(tmpfs.dir!, 256 * 1024);
    const full = await runCli(run, p.home);
    expect(full.code, full.stderr.slice(-2000)).toBe(1);
    const e = errorOf(full);
    expect(e.code).toBe('user');
    expect(e.message).toContain(`The disk holding ${p.project} is full`);
    expect(e.message).toMatch(/ is full \(\d+ (bytes|kB) free\): run .* needs about 4\.\d MB more \(an estimate: \d+ kB of embeddings still to store and 4\.2 MB for the database's write-ahead log\)/);
    expect(e.message).toMatch(/Free some space on that disk/);
    expect(full.stdout + full.stderr).not.toMatch(/internal/);

    const { db, integrity } = reopen(join(p.project, PROJECT_FILE));
    expect(integrity).toBe('ok');
    const stored = db.prepare('SELECT audio_sha256, created_at FROM embeddings ORDER BY audio_sha256').all() as { audio_sha256: string; created_at: string }[];
    const audits = db.prepare('SELECT id, status FROM audits').all() as { id: string; status: string }[];
    db.close();
    expect(stored.length).toBeGreaterThan(0);
    expect(stored.length).toBeLessThan(120);
    expect(audits).toHaveLength(1);
    expect(['failed', 'running']).toContain(audits[0]!.status);

    rmSync(filler);
    const resumed = await runCli(run, p.home);
    expect(resumed.code, resumed.stderr.slice(-2000)).toBe(0);
    expect(resumed.stderr).toContain(`resuming audit run ${audits[0]!.id}`);
    expect((JSON.parse(resumed.stdout) as { runId: string }).runId).toBe(audits[0]!.id);
    const { db: after, integrity: integrity2 } = reopen(join(p.project, PROJECT_FILE));
    expect(integrity2).toBe('ok');
    expect(count(after, 'SELECT COUNT(*) AS n FROM embeddings')).toBe(120);
    expect(count(after, 'SELECT COUNT(*) AS n FROM audits')).toBe(1);
    // Every embedding stored before the disk filled was kept, not computed again.
    const byKey = after.prepare('SELECT created_at FROM embeddings WHERE audio_sha256 = ?').pluck();
    for (const s of stored) expect(byKey.get(s.audio_sha256), s.audio_sha256).toBe(s.created_at);
    after.close();

    // The report onto a full disk: the same words, no hidden copy left, nothing recorded.
    const identity = (await createIdentity(p.home, { name: 'Dana Disk', organisation: 'Storage Lab' })).id;
    const out = join(tmpfs.dir!, 'report', 'report.pdf');
    mkdirSync(join(tmpfs.dir!, 'report'));
    const build = ['report', 'build', '--project', p.project, '--run', audits[0]!.id, '--out', out, '--identity', identity];
    // Room to open the project (its 32 kB shared-memory file), not to write the report.
    const filler2 = fill(tmpfs.dir!, 48 * 1024);
    const refused = await runCli(build, p.home);
    expect(refused.code, refused.stderr.slice(-2000)).toBe(1);
    const re = errorOf(refused);
    expect(re.code).toBe('user');
    expect(re.message).toMatch(new RegExp(`^The disk holding ${join(tmpfs.dir!, 'report').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is full .*: writing the report needs about \\d+ kB more \\(an estimate: the signed PDF, its statement, and the data files`));
    expect(readdirSync(join(tmpfs.dir!, 'report'))).toEqual([]);
    rmSync(filler2);
    const built = await runCli(build, p.home);
    expect(built.code, built.stderr.slice(-2000)).toBe(0);
    expect(readdirSync(join(tmpfs.dir!, 'report')).sort()).toEqual(['report-data', 'report.intoto.jsonl', 'report.pdf', 'report.statement.json']);
  });
});

describe('a busy database', () => {
  it('six datasets exclude while another writer holds the lock 150 ms per transaction: all succeed, none internal', { timeout: 240_000 }, async () => {
    const home = tempDir('busy-home');
    const project = join(tempDir('busy'), 'p');
    const store = new ProjectStore(home);
    const p = store.create('Busy', project);
    const manifest = demoSubset(tempDir('busy-own'), 'asr', (_r, i) => i < 12).file;
    const ds = await importDataset(store.db(p.id), { source: { kind: 'manifest', manifest }, role: 'asr', mapping: { path: 'path', speaker: 'speaker', groups: ['accent'], transcript: 'transcript', hypothesis: 'hypothesis', ignore: [] } });
    store.close();

    const writer = spawn(process.execPath, ['--import', 'tsx', 'test/unit/hardening/db-writer.ts', join(project, PROJECT_FILE), '150', '10'], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let commits = 0;
    let writerErr = '';
    writer.stderr.on('data', (d: Buffer) => (writerErr += d.toString()));
    await new Promise<void>((resolve, reject) => {
      writer.stdout.on('data', (d: Buffer) => {
        commits = Math.max(commits, ...d.toString().split('\n').map((l) => Number(/^committed (\d+)$/.exec(l)?.[1] ?? 0)));
        if (commits >= 2) resolve();
      });
      writer.on('exit', (code) => reject(new Error(`the writer stopped (${code}): ${writerErr}`)));
    });
    try {
      const runs = await Promise.all([1, 2, 3, 4, 5, 6].map((row) => runCli(['datasets', 'exclude', '--project', project, '--id', ds.datasetId, '--rows', String(row)], home)));
      for (const [k, r] of runs.entries()) {
        expect(r.stdout + r.stderr, `exclude ${k + 1}`).not.toMatch(/internal|database is locked/);
        expect(r.code, `exclude ${k + 1}: ${r.stderr.slice(-1000)}`).toBe(0);
        expect(JSON.parse(r.stdout)).toEqual({ updated: 1 });
      }
      expect(writer.exitCode, writerErr).toBeNull(); // the writer was writing all along
    } finally {
      process.kill(-writer.pid!, 'SIGKILL');
    }
    const { db, integrity } = reopen(join(project, PROJECT_FILE));
    expect(integrity).toBe('ok');
    expect(db.prepare('SELECT row_index FROM clips WHERE dataset_id = ? AND excluded_by_user = 1 ORDER BY row_index').pluck().all(ds.datasetId)).toEqual([1, 2, 3, 4, 5, 6]);
    db.close();
  });
});

describe('one run of a plan at a time, and a report built as one unit', () => {
  let p: AuditProject;
  let runId: string;

  it('refuses a second audit run of the plan while the first runs, naming its run; the first finishes once', { timeout: 300_000 }, async () => {
    p = copyProject(tempDir('lock'));
    const run = ['audit', 'run', '--project', p.project, '--plan', p.planFile];
    let second: Promise<RunOutcome> | null = null;
    // Once the first is embedding (it holds the lock), it is paused (SIGSTOP) until the
    // second has been answered and then let go on (SIGCONT): without the pause a fast
    // machine could finish the first run before the second reaches the lock, and the
    // second would rightly run.
    const first = await runCliPausable(run, p.home, (line, pause) => {
      if (second === null && line.startsWith('Embedding (1/2')) {
        const resume = pause();
        second = runCli(run, p.home).finally(resume);
      }
    });
    expect(first.code, first.stderr.slice(-2000)).toBe(0);
    runId = (JSON.parse(first.stdout) as { runId: string }).runId;
    expect(second).not.toBeNull();
    const refused = await second!;
    expect(refused.code, refused.stderr.slice(-2000)).toBe(1);
    expect(errorOf(refused)).toMatchObject({ code: 'user', message: expect.stringContaining(`run ${runId} of this plan is already running`) });
    const db = new Database(join(p.project, PROJECT_FILE), { readonly: true });
    expect(count(db, 'SELECT COUNT(*) AS n FROM audits')).toBe(1);
    expect(count(db, "SELECT COUNT(*) AS n FROM events WHERE kind = 'audit.finished'")).toBe(1);
    expect(count(db, 'SELECT COUNT(*) AS n FROM run_locks')).toBe(0);
    db.close();
  });

  it('takes over the lock of a run killed with SIGKILL and resumes that run', { timeout: 240_000 }, async () => {
    // A changed plan (more permutations) is a new plan: a new run, whose SpEAT units take a while.
    const plan = { ...p.plan, speat: { ...p.plan.speat!, permutations: 200_000, bootstrap: 2000 } };
    const planFile = join(tempDir('lock-plan'), 'plan.json');
    writeFileSync(planFile, JSON.stringify(plan));
    const run = ['audit', 'run', '--project', p.project, '--plan', planFile];
    // Killed once the new run has stored its first SpEAT unit (the embeddings are cached by now).
    const units = () => {
      const db = new Database(join(p.project, PROJECT_FILE), { readonly: true });
      try {
        return count(db, "SELECT COUNT(*) AS n FROM results WHERE audit_id != ? AND unit_key LIKE 'speat/%'", runId);
      } finally {
        db.close();
      }
    };
    const killed = await killWhen(run, p.home, () => units() >= 1);
    expect(killed.code, 'the run finished before it could be killed').toBeNull();
    const db = new Database(join(p.project, PROJECT_FILE), { readonly: true });
    const lock = db.prepare('SELECT audit_id AS auditId, pid FROM run_locks').get() as { auditId: string; pid: number };
    const unit = db.prepare("SELECT unit_key, result_json FROM results WHERE audit_id = ? AND unit_key LIKE 'speat/%'").get(lock.auditId) as { unit_key: string; result_json: string };
    db.close();
    expect(lock.auditId).not.toBe(runId);
    expect(unit).toBeDefined();
    const resumed = await runCli(run, p.home);
    expect(resumed.code, resumed.stderr.slice(-2000)).toBe(0);
    expect(resumed.stderr).toContain(`run ${lock.auditId} of this plan was left by process ${lock.pid}, which is no longer running; continuing in its place`);
    expect((JSON.parse(resumed.stdout) as { runId: string }).runId).toBe(lock.auditId);
    const after = new Database(join(p.project, PROJECT_FILE), { readonly: true });
    expect(after.prepare('SELECT result_json FROM results WHERE audit_id = ? AND unit_key = ?').pluck().get(lock.auditId, unit.unit_key)).toBe(unit.result_json);
    expect(count(after, "SELECT COUNT(*) AS n FROM events WHERE kind = 'audit.finished'")).toBe(2);
    after.close();
  });

  it.skipIf(!strace.ok)(`report build killed before its PDF is in place reports nothing; the rerun completes it${strace.ok ? '' : ` (skipped: ${strace.reason})`}`, { timeout: 240_000 }, async () => {
    const identity = (await createIdentity(p.home, { name: 'Kim Kill', organisation: 'Crash Lab' })).id;
    const dir = tempDir('report');
    const out = join(dir, 'report.pdf');
    const args = ['src/main/cli.ts', 'report', 'build', '--project', p.project, '--run', runId, '--out', out, '--identity', identity];
    // Every rename waits 0.3 s (a slow disk): the PDF's hidden copy then sits complete beside its target.
    const slow = spawn(
      'strace',
      ['-f', '-qq', '-o', '/dev/null', '-e', 'trace=rename,renameat,renameat2', '-e', 'inject=rename,renameat,renameat2:delay_enter=300000', process.execPath, '--import', 'tsx', ...args],
      { env: { ...process.env, EQUIVOX_HOME: p.home }, stdio: 'ignore', detached: true },
    );
    const hidden = /^\.report\.pdf\.tmp-\d+-[0-9a-f]{8}$/;
    const exited = new Promise<void>((resolve) => slow.on('exit', () => resolve()));
    let seen: string | undefined;
    for (let t = 0; t < 2000 && slow.exitCode === null && !seen; t += 1) {
      seen = readdirSync(dir).find((n) => hidden.test(n));
      if (!seen) await new Promise((r) => setTimeout(r, 50));
    }
    process.kill(-slow.pid!, 'SIGKILL');
    await exited;
    expect(seen, 'the build never reached the PDF').toBeDefined();
    expect(existsSync(join(dir, seen!))).toBe(true);
    expect(existsSync(out)).toBe(false);
    const db = new Database(join(p.project, PROJECT_FILE), { readonly: true });
    expect(count(db, 'SELECT COUNT(*) AS n FROM reports')).toBe(0);
    db.close();

    const rerun = await runCli(args.slice(1), p.home);
    expect(rerun.code, rerun.stderr.slice(-2000)).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['report-data', 'report.intoto.jsonl', 'report.pdf', 'report.statement.json']);
    expect(readdirSync(join(dir, 'report-data')).filter((n) => n.startsWith('.'))).toEqual([]);
    const statement = JSON.parse(readFileSync(join(dir, 'report.statement.json'), 'utf8')) as { report: { sha256: string }; results: { sha256: string } };
    expect(statement.report.sha256).toBe(sha256(out));
    expect(statement.results.sha256).toBe(sha256(join(dir, 'report-data', 'results.json')));
    const after = new Database(join(p.project, PROJECT_FILE), { readonly: true });
    expect(after.prepare('SELECT path, sha256 FROM reports').all()).toEqual([{ path: out, sha256: sha256(out) }]);
    after.close();
    expect(spawnSync('pdfsig', [out], { encoding: 'utf8' }).stdout).toMatch(/Signature is Valid/);
  });
});
