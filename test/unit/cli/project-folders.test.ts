/**
 * Projects that survive a user's file habits, through the real CLI (a new process per
 * command, as a user runs it): create again where a project folder was deleted, list
 * with a missing folder, open a moved project, a copied folder (`cp -a`) refused with
 * both paths until `--as-copy`, and the demo run again after its output folder was
 * deleted. No command may answer `internal` (issues 20.3 and 23.4).
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { craftFolder } from '../../support/crafted-projects';

const temp = (p: string) => mkdtempSync(join(tmpdir(), `equivox-folders-${p}-`));

/** node --import tsx: one process per command (npx would add seconds to each). */
function cli(home: string, args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/main/cli.ts', ...args], { env: { ...process.env, EQUIVOX_HOME: home }, encoding: 'utf8' });
  expect(r.stdout + r.stderr, args.join(' ')).not.toMatch(/"internal"|UNIQUE constraint/);
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, json: () => JSON.parse(r.stdout) as Record<string, unknown> & { error?: { code: string; message: string; field?: string } } };
}

interface Listed {
  id: string;
  name: string;
  path: string;
  missing: boolean;
  problem?: string;
}

function onDisk(folder: string): { id: string; name: string } {
  const db = new Database(join(folder, 'project.sqlite'), { readonly: true });
  try {
    return db.prepare('SELECT id, name FROM project').get() as { id: string; name: string };
  } finally {
    db.close();
  }
}

describe('equivox CLI: project folders', () => {
  it('creates again at a deleted project folder, lists a missing folder, and follows a moved project', { timeout: 240_000 }, () => {
    const home = temp('home');
    const dir = join(temp('p'), 'pilot');
    const first = cli(home, ['projects', 'create', '--name', 'Pilot', '--dir', dir]);
    expect(first.code, first.stderr).toBe(0);
    rmSync(dir, { recursive: true });
    const missing = cli(home, ['projects', 'list']);
    expect(missing.code).toBe(0);
    expect(JSON.parse(missing.stdout) as Listed[]).toEqual([expect.objectContaining({ id: first.json().id, path: dir, missing: true })]);
    const again = cli(home, ['projects', 'create', '--name', 'Pilot again', '--dir', dir]);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(cli(home, ['projects', 'list']).stdout) as Listed[]).toEqual([expect.objectContaining({ id: again.json().id, name: 'Pilot again', path: dir, missing: false })]);

    const moved = join(temp('moved'), 'pilot');
    renameSync(dir, moved);
    const stale = cli(home, ['projects', 'rename', '--id', String(again.json().id), '--name', 'x']);
    expect(stale.code).toBe(1);
    expect(stale.json().error).toMatchObject({ code: 'user', message: expect.stringContaining('moved or deleted') });
    const opened = cli(home, ['projects', 'open', '--dir', moved]);
    expect(opened.code, opened.stderr).toBe(0);
    expect(opened.json()).toMatchObject({ id: again.json().id, path: moved });
    expect(JSON.parse(cli(home, ['projects', 'list']).stdout) as Listed[]).toEqual([expect.objectContaining({ id: again.json().id, path: moved, missing: false })]);
  });

  it('refuses a copied folder naming both folders and --as-copy; as a copy it gets a new id and the original stays unchanged', { timeout: 240_000 }, () => {
    const home = temp('home');
    const original = join(temp('o'), 'original');
    const copy = join(temp('c'), 'copy');
    const p = cli(home, ['projects', 'create', '--name', 'Pilot audit', '--dir', original]).json();
    execFileSync('cp', ['-a', original, copy]);

    for (const args of [['projects', 'open', '--dir', copy], ['datasets', 'list', '--project', copy]]) {
      const refused = cli(home, args);
      expect(refused.code, args.join(' ')).toBe(1);
      const e = refused.json().error!;
      expect(e).toMatchObject({ code: 'user', field: 'asCopy' });
      expect(e.message).toContain(copy);
      expect(e.message).toContain(original);
      expect(e.message).toContain(`projects open --dir "${copy}" --as-copy`);
      expect(refused.stderr).toMatch(/^error: .* is a copy of the project “Pilot audit” in /m);
    }
    const asCopy = cli(home, ['projects', 'open', '--dir', copy, '--as-copy']);
    expect(asCopy.code, asCopy.stderr).toBe(0);
    const copyId = String(asCopy.json().id);
    expect(copyId).not.toBe(p.id);
    expect(cli(home, ['projects', 'rename', '--id', copyId, '--name', 'Pilot audit (copy)']).code).toBe(0);
    expect(onDisk(copy)).toEqual({ id: copyId, name: 'Pilot audit (copy)' });
    expect(onDisk(original)).toEqual({ id: p.id, name: 'Pilot audit' });
    // Afterwards both folders are projects of their own.
    expect(cli(home, ['datasets', 'list', '--project', copy]).code).toBe(0);
    expect(cli(home, ['datasets', 'list', '--project', original]).code).toBe(0);
  });

  it('runs the demo again after its output folder was deleted', { timeout: 300_000 }, async () => {
    const home = temp('home');
    const out = join(temp('demo'), 'demo-output');
    // Each run is stopped once its project exists and the import has begun: the part that
    // used to fail (UNIQUE constraint failed: recent_projects.path) is behind it by then.
    const demoUntilImporting = () =>
      new Promise<{ killed: boolean; stderr: string }>((resolve, reject) => {
        const child = spawn(process.execPath, ['--import', 'tsx', 'src/main/cli.ts', 'demo', '--fast', '--out', out], { env: { ...process.env, EQUIVOX_HOME: home }, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
        let stderr = '';
        let killed = false;
        child.stderr.on('data', (d: Buffer) => {
          stderr += d.toString();
          if (!killed && /^Importing .*: \d+\/\d+/m.test(stderr)) {
            killed = true;
            process.kill(-child.pid!, 'SIGKILL');
          }
        });
        child.on('error', reject);
        child.on('close', () => resolve({ killed, stderr }));
      });
    const first = await demoUntilImporting();
    expect(first.killed, first.stderr.slice(-2000)).toBe(true);
    const firstId = (JSON.parse(cli(home, ['projects', 'list']).stdout) as Listed[])[0]!.id;
    rmSync(out, { recursive: true });
    const second = await demoUntilImporting();
    expect(second.stderr).not.toMatch(/error:/);
    expect(second.killed, second.stderr.slice(-2000)).toBe(true);
    const listed = JSON.parse(cli(home, ['projects', 'list']).stdout) as Listed[];
    expect(listed).toEqual([expect.objectContaining({ name: 'Equivox demo', path: join(out, 'project'), missing: false })]);
    expect(listed[0]!.id).not.toBe(firstId);
  });

  it('refuses a received folder holding the sender’s SQL (exit 1, user error naming it and the file); lists a crafted folder with its problem and removes it', { timeout: 240_000 }, () => {
    const home = temp('home');
    const received = craftFolder('clips-trigger', join(temp('in'), 'received'));
    for (const args of [['projects', 'open', '--dir', received.dir], ['datasets', 'list', '--project', received.dir], ['embed', '--project', received.dir, '--dataset', 'd', '--model', 'acoustic-baseline']]) {
      const r = cli(home, args);
      expect(r.code, args.join(' ')).toBe(1);
      const e = r.json().error!;
      expect(e).toMatchObject({ code: 'user', field: 'path' });
      expect(e.message).toContain(received.file);
      expect(e.message).toContain('contains database code Equivox did not write (trigger clips_after_insert)');
    }
    expect(readdirSync(received.dir)).toEqual(['project.sqlite']);
    expect(JSON.parse(cli(home, ['projects', 'list']).stdout)).toEqual([]);

    // A listed project whose file was then replaced by one with a view that never ends.
    const p = cli(home, ['projects', 'create', '--name', 'Pilot', '--dir', join(temp('p'), 'pilot')]).json() as unknown as Listed;
    rmSync(join(p.path, 'project.sqlite'));
    cpSync(craftFolder('endless-view', join(temp('c'), 'crafted')).file, join(p.path, 'project.sqlite'));
    const listed = cli(home, ['projects', 'list']);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout) as Listed[]).toEqual([expect.objectContaining({ id: p.id, missing: true, problem: expect.stringContaining('(view project)') })]);
    expect(cli(home, ['projects', 'open', '--id', p.id]).json().error).toMatchObject({ code: 'user', message: expect.stringContaining('(view project)') });
    const removed = cli(home, ['projects', 'delete', '--id', p.id, '--delete-files']);
    expect(removed.code).toBe(0);
    expect(removed.json()).toEqual({ id: p.id, deletedFiles: false });
    expect(JSON.parse(cli(home, ['projects', 'list']).stdout)).toEqual([]);
  });
});
