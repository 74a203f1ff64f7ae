import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// Runs the real CLI as a user would (a new process per command).
function cli(home: string, args: string[]) {
  const r = spawnSync('npx', ['tsx', 'src/main/cli.ts', ...args], { env: { ...process.env, EQUIVOX_HOME: home }, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('equivox CLI: projects', () => {
  it('creates a project, and a new process lists it from SQLite', () => {
    const home = mkdtempSync(join(tmpdir(), 'equivox-cli-'));
    const dir = join(mkdtempSync(join(tmpdir(), 'equivox-cli-p-')), 'p1');
    const created = cli(home, ['projects', 'create', '--name', 'Pilot audit', '--dir', dir]);
    expect(created.code).toBe(0);
    const project = JSON.parse(created.stdout) as { id: string; name: string; path: string };
    expect(project).toMatchObject({ name: 'Pilot audit', path: dir });
    expect(project.id).toMatch(/^[0-9a-f-]{36}$/);
    const listed = cli(home, ['projects', 'list']);
    expect(listed.code).toBe(0);
    expect((JSON.parse(listed.stdout) as { id: string }[]).map((p) => p.id)).toContain(project.id);
    const renamed = cli(home, ['projects', 'rename', '--id', project.id, '--name', 'Renamed']);
    expect(JSON.parse(renamed.stdout).name).toBe('Renamed');
    const deleted = cli(home, ['projects', 'delete', '--id', project.id]);
    expect(deleted.code).toBe(0);
    expect(JSON.parse(cli(home, ['projects', 'list']).stdout)).toEqual([]);
  });

  it('exits 2 on bad usage and malformed input, naming the field, and writes nothing', () => {
    const home = mkdtempSync(join(tmpdir(), 'equivox-cli-'));
    const unknownOption = cli(home, ['projects', 'create', '--nmae', 'x']);
    expect(unknownOption.code).toBe(2);
    expect(unknownOption.stderr).toMatch(/unknown option --nmae/);
    const missing = cli(home, ['projects', 'create']);
    expect(missing.code).toBe(2);
    expect(JSON.parse(missing.stdout).error.field).toBe('name');
    const wrongType = cli(home, ['call', 'projects.create', '--input', '{"name": 5}']);
    expect(wrongType.code).toBe(2);
    expect(JSON.parse(wrongType.stdout).error).toMatchObject({ code: 'validation', field: 'name' });
    const unknownOp = cli(home, ['call', 'projects.explode']);
    expect(unknownOp.code).toBe(2);
    expect(JSON.parse(cli(home, ['projects', 'list']).stdout)).toEqual([]);
  });

  it('exits 1 with a one-line reason on a user error', () => {
    const home = mkdtempSync(join(tmpdir(), 'equivox-cli-'));
    const r = cli(home, ['projects', 'open', '--dir', tmpdir()]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n').filter((l) => l.startsWith('error:'))).toHaveLength(1);
    expect(r.stderr).toMatch(/holds no Equivox project/);
  });

  it('prints usage and exits 2 for an unknown command', () => {
    const r = spawnSync('npx', ['tsx', 'src/main/cli.ts', 'frobnicate'], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/unknown command/);
    expect(() => execFileSync('npx', ['tsx', 'src/main/cli.ts', '--help'], { stdio: 'pipe' })).not.toThrow();
  });
});
