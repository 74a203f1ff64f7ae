/**
 * Acceptance of issue 35 item 4: a project created in the app appears in `equivox projects
 * list` with no environment set. The app here is the real web host (the desktop app's
 * engine and renderer over HTTP; Electron cannot run on these machines), started with HOME
 * pointed at an empty folder and no EQUIVOX_HOME or XDG variables; the CLI is then run as
 * a new process with the same HOME and nothing else pointing anywhere.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHost, type RunningHost } from '../../e2e/web-host';

let host: RunningHost;
beforeAll(async () => {
  host = await startHost(undefined, { defaultHome: true });
});
afterAll(async () => {
  await host?.stop();
});

function cliWithHome(home: string, args: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home };
  for (const k of ['EQUIVOX_HOME', 'XDG_DATA_HOME', 'XDG_CONFIG_HOME', 'XDG_CACHE_HOME']) delete env[k];
  const r = spawnSync('npx', ['tsx', 'src/main/cli.ts', ...args], { env, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('one data folder for the app and the CLI', () => {
  it('a project created through the web host is in `equivox projects list`, no EQUIVOX_HOME set', async () => {
    const res = await fetch(`${host.base}/api/invoke/projects.create`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Equivox-Token': host.token },
      body: JSON.stringify({ name: 'Made in the app' }),
    });
    const body = (await res.json()) as { ok: boolean; result: { id: string; name: string; path: string } };
    expect(body.ok).toBe(true);
    const made = body.result;
    // Its default place: the app's user-data folder under HOME (~/.config/Equivox/data on Linux).
    expect(host.home).toBe(join(host.homeDir!, '.config', 'Equivox', 'data'));
    expect(existsSync(join(host.home, 'equivox.sqlite'))).toBe(true);
    expect(made.path.startsWith(join(host.home, 'projects'))).toBe(true);

    const listed = cliWithHome(host.homeDir!, ['projects', 'list']);
    expect(listed.code).toBe(0);
    expect((JSON.parse(listed.stdout) as { id: string; name: string; path: string }[]).filter((p) => p.id === made.id)).toEqual([{ id: made.id, name: 'Made in the app', path: made.path, createdAt: expect.any(String), openedAt: expect.any(String), missing: false }]);
  });
});
