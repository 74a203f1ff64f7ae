/**
 * Issue 20.6: a command line that follows the conventions, for every command (one table
 * each, src/main/cli/usage.ts). The usage line of every command is read as a reader would
 * read it (its options, which take a value, which repeat, its positionals) and compared
 * with the table the parser uses; then every boolean flag and every valued option of every
 * command is parsed in every position around the positionals and the other options, and
 * must mean the same. A few commands' real `run` then show the flag reaching the API.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Api } from '../../../src/main/api';
import { runCli } from '../../../src/main/cli';
import { Options, UsageError, type CliContext, type OptionKind } from '../../../src/main/cli/args';
import { loadCommands } from '../../../src/main/cli/commands';
import { COMMAND_SPECS, parseCommandLine, USAGE } from '../../../src/main/cli/usage';

interface ReadUsage {
  options: Record<string, OptionKind>;
  positionals: string[];
}

/** What a usage line promises: its `--options` (a value when a placeholder follows, repeatable with ` …`) and the positionals after the command's words. */
function readUsageLine(line: string, command: string): ReadUsage {
  // Text after three spaces and a parenthesis explains the command; it may mention options.
  const syntax = line.split('   (')[0]!.slice(command.length).trim();
  const tokens = syntax === '' ? [] : syntax.split(/\s+/);
  const options: Record<string, OptionKind> = {};
  const positionals: string[] = [];
  let seenOption = false;
  tokens.forEach((token, i) => {
    const m = /--([a-z0-9][a-z0-9-]*)/.exec(token);
    if (!m) {
      if (!seenOption && /^[A-Z][A-Za-z0-9_.]*$/.test(token)) positionals.push(token);
      return;
    }
    seenOption = true;
    const name = m[1]!;
    const rest = token.slice(m.index + m[0].length);
    const next = tokens[i + 1];
    const takesValue = rest === '' && next !== undefined && !/^[[(|\])]|^--/.test(next);
    const repeats = takesValue && /^…/.test(tokens[i + 2] ?? '');
    const kind: OptionKind = !takesValue ? 'boolean' : repeats ? 'string[]' : 'string';
    // `--dataset ID [--dataset ID …]` names an option twice: the repeatable reading wins.
    if (options[name] !== 'string[]') options[name] = kind;
  });
  return { options, positionals };
}

function usageLine(command: string): string {
  const lines = USAGE[command.split(' ')[0]!]!.filter((l) => l === command || l.startsWith(`${command} `));
  expect(lines, command).toHaveLength(1);
  return lines[0]!;
}

const noApi = (): Api => {
  throw new Error('parsing needs no API');
};

/** Everything parsed, in a comparable form. */
function parsed(argv: string[]) {
  const p = parseCommandLine(argv);
  return { command: p.command, positionals: p.positionals, values: Object.fromEntries(p.values) };
}

const commands = Object.entries(COMMAND_SPECS);

describe('every command’s usage line against its parser', () => {
  it('the tables cover exactly the commands there are', async () => {
    const all = await loadCommands(undefined, noApi);
    expect(Object.keys(COMMAND_SPECS).sort()).toEqual(all.map((c) => c.path.join(' ')).sort());
  }, 120_000);

  it.each(commands)('%s: the usage line names the same options, values, repeats and positionals as the table', (command, spec) => {
    const read = readUsageLine(usageLine(command), command);
    expect(read.options).toEqual(spec.options);
    expect(read.positionals).toEqual(spec.positionals ?? []);
  });
});

/** Positionals for a command, and one valued option to mix in (when it has one). */
function fixtureArgs(spec: (typeof COMMAND_SPECS)[string]) {
  const pos = (spec.positionals ?? []).map((_, i) => `word${i}`);
  const valued = Object.entries(spec.options).find(([, k]) => k !== 'boolean')?.[0];
  const other = valued !== undefined ? [`--${valued}`, 'v'] : [];
  return { pos, other };
}

describe('every boolean flag of every command means the same before and after the positionals and other options', () => {
  const cases = commands.flatMap(([command, spec]) =>
    Object.entries(spec.options)
      .filter(([, kind]) => kind === 'boolean')
      .map(([flag]) => [command, flag] as const),
  );
  it('there are flags to check (require-trusted among them)', () => {
    expect(cases).toContainEqual(['report verify', 'require-trusted']);
    expect(cases.length).toBeGreaterThanOrEqual(7);
  });

  it.each(cases)('%s --%s', (command, flag) => {
    const spec = COMMAND_SPECS[command]!;
    const words = command.split(' ');
    const { pos, other } = fixtureArgs(spec);
    const f = `--${flag}`;
    const orders = [
      [...words, f, ...pos, ...other],
      [...words, ...pos, f, ...other],
      [...words, ...pos, ...other, f],
      [...words, ...other, f, ...pos],
      [...words, ...other, ...pos, f],
    ];
    const want = parsed(orders[0]!);
    expect(want.values[flag]).toBe(true);
    expect(want.positionals).toEqual(pos);
    for (const argv of orders) {
      expect(parsed(argv), argv.join(' ')).toEqual(want);
      expect(new Options(parseCommandLine(argv)).flag(flag)).toBe(true);
    }
    // Without it the flag is off; with a value it is refused, naming it.
    expect(new Options(parseCommandLine([...words, ...pos, ...other])).flag(flag)).toBe(false);
    expect(() => parseCommandLine([...words, ...pos, `${f}=yes`])).toThrow(new UsageError(`${f} takes no value (got "yes"); give ${f} alone`));
  });
});

describe('every valued option of every command: --opt value, --opt=value, anywhere', () => {
  const cases = commands.flatMap(([command, spec]) =>
    Object.entries(spec.options)
      .filter(([, kind]) => kind !== 'boolean')
      .map(([option]) => [command, option] as const),
  );
  it.each(cases)('%s --%s', (command, option) => {
    const spec = COMMAND_SPECS[command]!;
    const words = command.split(' ');
    const pos = (spec.positionals ?? []).map((_, i) => `word${i}`);
    const o = `--${option}`;
    const want = parsed([...words, ...pos, o, 'some value']);
    expect(want.values[option]).toEqual(spec.options[option] === 'string[]' ? ['some value'] : 'some value');
    for (const argv of [
      [...words, o, 'some value', ...pos],
      [...words, `${o}=some value`, ...pos],
      [...words, ...pos, `${o}=some value`],
    ]) {
      expect(parsed(argv), argv.join(' ')).toEqual(want);
    }
    // A value that is itself an option is a missing value; with `=` it is taken as written.
    expect(() => parseCommandLine([...words, ...pos, o])).toThrow(new UsageError(`${o} needs a value`));
    expect(() => parseCommandLine([...words, o, '--help-me', ...pos])).toThrow(new UsageError(`${o} needs a value`));
    expect(parsed([...words, ...pos, `${o}=--odd`]).values[option]).toEqual(spec.options[option] === 'string[]' ? ['--odd'] : '--odd');
  });
});

describe('unknown options are named with the closest known one', () => {
  /** Two neighbouring letters swapped, past the first three: a typing slip. */
  const slip = (s: string) => (s.length < 5 ? `${s}x` : `${s.slice(0, 3)}${s[4]}${s[3]}${s.slice(5)}`);
  const cases = commands.flatMap(([command, spec]) => Object.keys(spec.options).map((option) => [command, option] as const));
  it.each(cases)('%s: a slip in --%s', (command, option) => {
    const typo = slip(option);
    if (Object.hasOwn(COMMAND_SPECS[command]!.options, typo)) return;
    const words = command.split(' ');
    expect(() => parseCommandLine([...words, `--${typo}`])).toThrow(`unknown option --${typo}; did you mean --${option}?`);
  });

  it('the issue’s example, and an option with no close match lists what the command takes', () => {
    expect(() => parseCommandLine(['report', 'verify', '--requre-trusted', 'report.pdf'])).toThrow(new UsageError('unknown option --requre-trusted; did you mean --require-trusted?'));
    expect(() => parseCommandLine(['report', 'verify', '--zebra', 'report.pdf'])).toThrow(new UsageError('unknown option --zebra (report verify takes --require-trusted)'));
    expect(() => parseCommandLine(['projects', 'list', '--all'])).toThrow(new UsageError('unknown option --all (projects list takes no options)'));
    expect(() => parseCommandLine(['stats', 'wer', '-i', 'x.csv'])).toThrow(/^unknown option -i \(stats wer takes --input, /);
  });
});

describe('positionals and --', () => {
  it('-- ends the options: what follows is a positional even when it starts with dashes', () => {
    expect(parsed(['report', 'verify', '--require-trusted', '--', '--odd name.pdf'])).toEqual({ command: 'report verify', positionals: ['--odd name.pdf'], values: { 'require-trusted': true } });
    expect(parsed(['report', 'verify', '--', '--require-trusted'])).toEqual({ command: 'report verify', positionals: ['--require-trusted'], values: {} });
  });

  it('a missing or extra positional is a usage error naming it', () => {
    expect(() => parseCommandLine(['report', 'verify', '--require-trusted'])).toThrow(new UsageError('report verify needs FILE.pdf'));
    expect(() => parseCommandLine(['report', 'verify', 'a.pdf', 'b.pdf'])).toThrow(new UsageError('unexpected argument "b.pdf": report verify takes FILE.pdf only (options start with --)'));
    expect(() => parseCommandLine(['projects', 'list', 'everything'])).toThrow(/^unexpected argument "everything": projects list takes no arguments besides its options/);
  });
});

describe('through the real runCli: exit codes and messages', () => {
  async function run(argv: string[]) {
    let out = '';
    let err = '';
    const code = await runCli(argv, { stdout: (s) => (out += s), stderr: (s) => (err += s) });
    return { code, out, err };
  }

  it('a usage error exits 2 with one line of reason, then the command’s usage line; no engine is needed to say so', async () => {
    const r = await run(['report', 'verify', '--requre-trusted', 'report.pdf']);
    expect(r.code).toBe(2);
    const lines = r.err.trim().split('\n');
    expect(lines[0]).toBe('error: unknown option --requre-trusted; did you mean --require-trusted?');
    expect(lines.at(-1)).toBe(`  ${usageLine('report verify')}`);
    expect(JSON.parse(r.out)).toEqual({ error: { code: 'validation', message: expect.stringMatching(/^unknown option --requre-trusted; did you mean --require-trusted\?\n/) } });
  });

  it('--help after a command prints that command’s usage line and exits 0', async () => {
    const r = await run(['report', 'verify', 'x.pdf', '--help']);
    expect(r.code).toBe(0);
    expect(r.err.trim().split('\n').slice(2)).toEqual([`  ${usageLine('report verify')}`]);
    const h = await run(['identity', 'trust', '-h']);
    expect(h.err).toContain(usageLine('identity trust'));
    expect(h.err).not.toContain('identity trusted');
  });

  it('stats speat with its flag after the input file and the input given as --input=FILE', async () => {
    const file = new URL('../../fixtures/stats/speat_mid.json', import.meta.url).pathname;
    const a = await run(['stats', 'speat', `--input=${file}`, '--bootstrap', '50', '--sample-sizes', '2,4', '--paired', '--threads', '1']);
    const b = await run(['stats', 'speat', '--paired', '--sample-sizes=2,4', '--input', file, '--threads=1', '--bootstrap=50']);
    expect(a.code, a.err).toBe(0);
    expect(b.code, b.err).toBe(0);
    expect(JSON.parse(a.out)).toMatchObject({ bootstrap: { design: 'paired', resamples: 50 } });
    expect(JSON.parse(b.out)).toEqual(JSON.parse(a.out));
  });
});

describe('flags reach the API from their commands’ real run, wherever they are written', () => {
  const calls: { op: string; input: Record<string, unknown> }[] = [];
  const fakeApi = {
    invoke: async (op: string, input: Record<string, unknown>) => {
      calls.push({ op, input });
      if (op === 'projects.open') return { id: 'p-1', path: '/nowhere' };
      if (op === 'reports.build') return { path: 'r.pdf', signer: 's', statementPath: 'r.statement.json', exports: [], exportsDir: 'd' };
      return {};
    },
  } as unknown as Api;
  const ctx: CliContext = { log: () => {}, progress: () => {} };

  async function runWith(argv: string[]) {
    const p = parseCommandLine(argv);
    const group = await loadCommands(argv[0], () => fakeApi, argv[1]);
    const cmd = group.find((c) => c.path.join(' ') === p.command)!;
    calls.length = 0;
    await cmd.run(new Options(p), p.positionals, ctx);
    return calls.map((c) => ({ ...c }));
  }

  it.each([
    [['projects', 'delete', '--delete-files', '--id', 'p-1'], ['projects', 'delete', '--id', 'p-1', '--delete-files'], 'projects.delete', 'deleteFiles', true],
    [['datasets', 'exclude', '--include', '--project', 'p-1', '--id', 'd', '--rows', '3'], ['datasets', 'exclude', '--project=p-1', '--id', 'd', '--rows=3', '--include'], 'datasets.setExcluded', 'excluded', false],
    [['models', 'download', '--allow-downloads', '--id', 'x'], ['models', 'download', '--id', 'x', '--allow-downloads'], 'models.download', 'allowDownloads', true],
    [['report', 'build', '--allow-incomplete', '--results', 'r.json', '--out', 'o.pdf'], ['report', 'build', '--results=r.json', '--out', 'o.pdf', '--allow-incomplete'], 'reports.build', 'allowIncomplete', true],
  ] as const)('%j and its mirror image', async (before, after, op, field, value) => {
    const a = await runWith([...before]);
    const b = await runWith([...after]);
    expect(a).toEqual(b);
    expect(a.find((c) => c.op === op)?.input[field]).toBe(value);
    // And without the flag, the other value.
    const flag = before.find((w) => w.startsWith('--') && COMMAND_SPECS[`${before[0]} ${before[1]}`]!.options[w.slice(2)] === 'boolean')!;
    const without = await runWith(before.filter((w) => w !== flag));
    expect(without.find((c) => c.op === op)?.input[field]).toBe(!value);
  }, 120_000);
});

describe('--labels FILE.json reaches the label check and the import from wherever it is written', () => {
  const calls: { op: string; input: Record<string, unknown> }[] = [];
  const fakeApi = {
    invoke: async (op: string, input: Record<string, unknown>) => {
      calls.push({ op, input });
      if (op === 'projects.open') return { id: 'p-1', path: '/nowhere' };
      if (op === 'datasets.checkLabels') return { sets: [], setsTotal: 0, undecided: 0, unified: [], unifiedTotal: 0, unusedChoices: [] };
      if (op === 'datasets.preview') return { file: 'x.csv', delimiter: ',', encoding: { name: 'utf-8', bom: false, label: 'UTF-8' }, header: ['path'], rows: [], totalRows: 0, suggestedMapping: { path: 'path', groups: [], ignore: [] }, suggestions: [] };
      if (op === 'datasets.import') return { jobId: 'no-such-job', datasetId: 'd-1' };
      return {};
    },
  } as unknown as Api;
  const ctx: CliContext = { log: () => {}, progress: () => {} };
  const choices = [{ column: 'gender', spellings: ['Female', 'female'], into: 'Female' }];

  async function runWith(argv: string[]) {
    const p = parseCommandLine(argv);
    const group = await loadCommands(argv[0], () => fakeApi, argv[1]);
    const cmd = group.find((c) => c.path.join(' ') === p.command)!;
    calls.length = 0;
    // The fake starts no job, so the import's wait fails after the calls this test reads.
    await cmd.run(new Options(p), p.positionals, ctx).catch((err: Error) => expect(err.message).toMatch(/no import job no-such-job/));
    return calls.map((c) => ({ ...c }));
  }

  it.each([
    [['datasets', 'import', '--labels', 'LABELS', '--project', 'p-1', '--manifest', 'x.csv'], ['datasets', 'import', '--project=p-1', '--manifest', 'x.csv', '--labels=LABELS'], ['datasets.checkLabels', 'datasets.import']],
    [['datasets', 'preview', '--labels', 'LABELS', '--manifest', 'x.csv'], ['datasets', 'preview', '--manifest=x.csv', '--labels=LABELS'], ['datasets.checkLabels']],
  ] as const)('%j and its mirror image', async (before, after, ops) => {
    const file = join(mkdtempSync(join(tmpdir(), 'equivox-labels-arg-')), 'labels.json');
    writeFileSync(file, JSON.stringify(choices));
    const fill = (argv: readonly string[]) => argv.map((w) => w.replace('LABELS', file));
    const a = await runWith(fill(before));
    const b = await runWith(fill(after));
    expect(a).toEqual(b);
    for (const op of ops) expect(a.find((c) => c.op === op)?.input.labelChoices, op).toEqual(choices);
    // Without it, no choices are passed.
    const without = await runWith(fill(before).filter((w, i, all) => w !== '--labels' && all[i - 1] !== '--labels'));
    for (const op of ops) expect(without.find((c) => c.op === op)?.input.labelChoices, op).toBeUndefined();
  }, 120_000);
});
