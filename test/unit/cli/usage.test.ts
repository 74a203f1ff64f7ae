/**
 * Usage text is static (src/main/cli/usage.ts) so that `--help` loads no command module;
 * these tests keep it equal to the commands' own usage lines.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../src/main/cli';
import { isGroup, loadCommands } from '../../../src/main/cli/commands';
import { USAGE, usageText } from '../../../src/main/cli/usage';
import type { Api } from '../../../src/main/api';

const noApi = (): Api => {
  throw new Error('usage needs no API');
};

async function run(argv: string[]) {
  let out = '';
  let err = '';
  const code = await runCli(argv, { stdout: (s) => (out += s), stderr: (s) => (err += s) });
  return { code, out, err };
}

describe('CLI usage text', () => {
  it('lists exactly the usage of every command, group by group, in the order of the groups', async () => {
    const all = await loadCommands(undefined, noApi);
    const byWord = new Map<string, string[]>();
    for (const c of all) byWord.set(c.path[0]!, [...(byWord.get(c.path[0]!) ?? []), c.usage]);
    expect([...byWord.keys()]).toEqual(Object.keys(USAGE));
    for (const [word, lines] of byWord) {
      expect(isGroup(word)).toBe(true);
      expect(USAGE[word], word).toEqual(lines);
    }
    // `stats speat` loaded alone is the same command as in the stats group.
    expect((await loadCommands('stats', noApi, 'speat')).map((c) => c.usage)).toEqual([USAGE.stats![0]]);
  }, 120_000);

  it('prints a group’s lines for `<group> --help`, everything for --help or no command', async () => {
    const group = await run(['stats', '--help']);
    expect(group.code).toBe(0);
    expect(group.err.trim()).toBe(usageText('stats'));
    expect(group.err).toMatch(/stats speat \(--input FILE\.json \| --associations FILE\.json\)/);
    expect(group.err).not.toMatch(/projects create/);
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.err.trim().split('\n')).toHaveLength(2 + Object.values(USAGE).flat().length);
    expect((await run([])).code).toBe(2);
    const unknown = await run(['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toMatch(/unknown command "frobnicate"/);
    expect(unknown.err).toMatch(/cluster import/);
  });
});
