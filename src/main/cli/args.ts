/**
 * Command-line options, the conventional way (issue 20.6): Node's own `util.parseArgs`
 * tokenises, each command declares its options in one table (cli/usage.ts, beside its
 * usage line), and this module turns the tokens into values with messages that name
 * the option. Options may come before, between or after positionals; `--opt value` and
 * `--opt=value` are the same; a boolean `--flag` takes no value; `--` ends the options;
 * an unknown option is named with the closest known one.
 */
import { parseArgs as tokenise } from 'node:util';
import type { Api } from '../api';
import { ApiError } from '../../shared/errors';

/** Bad command-line usage: exit code 2. */
export class UsageError extends ApiError {
  constructor(message: string) {
    super('validation', message);
    this.name = 'UsageError';
  }
}

/** `string`: takes a value; `string[]`: takes a value and may be given more than once; `boolean`: a flag, no value. */
export type OptionKind = 'string' | 'string[]' | 'boolean';
export type OptionTable = Readonly<Record<string, OptionKind>>;

/** What a command accepts after its words: its options and, in order, its positional arguments (all required). */
export interface CommandSpec {
  options: OptionTable;
  /** Names as the usage line writes them, e.g. `FILE.pdf`. */
  positionals?: readonly string[];
}

export interface ParsedArgs {
  /** The command's words, e.g. `report verify` (for messages). */
  command: string;
  positionals: string[];
  /** A string option's last value, `true` for a flag, every value of a `string[]` option. */
  values: Map<string, string | true | string[]>;
  table: OptionTable;
}

/** Edit distance with transpositions (optimal string alignment): a typo is one or two edits. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/** The known option closest to `name`: within a third of its length in edits, or the only one it begins. */
export function closestOption(name: string, known: readonly string[]): string | undefined {
  let best: { option: string; distance: number } | undefined;
  for (const option of known) {
    const distance = editDistance(name, option);
    if (distance <= Math.max(1, Math.floor(option.length / 3)) && (!best || distance < best.distance)) best = { option, distance };
  }
  if (best) return best.option;
  const prefixed = name.length >= 2 ? known.filter((o) => o.startsWith(name)) : [];
  return prefixed.length === 1 ? prefixed[0] : undefined;
}

function unknownOption(raw: string, name: string, command: string, table: OptionTable): UsageError {
  const known = Object.keys(table);
  const guess = raw.startsWith('--') ? closestOption(name, known) : undefined;
  if (guess !== undefined) return new UsageError(`unknown option ${raw}; did you mean --${guess}?`);
  const list = known.length === 0 ? `${command} takes no options` : `${command} takes ${known.map((k) => `--${k}`).join(', ')}`;
  return new UsageError(`unknown option ${raw} (${list})`);
}

/**
 * The arguments after a command's words, checked against its table. `--help` is not
 * handled here: the CLI answers it before parsing.
 */
export function parseCommandArgs(argv: readonly string[], spec: CommandSpec, command: string): ParsedArgs {
  const table = spec.options;
  const config: Record<string, { type: 'string' | 'boolean'; multiple?: boolean }> = {};
  for (const [name, kind] of Object.entries(table)) config[name] = kind === 'boolean' ? { type: 'boolean' } : { type: 'string', multiple: kind === 'string[]' };
  // Not strict: unknown options, flags given a value and missing values come back as
  // tokens, so the messages below can name them (and suggest) instead of Node's own.
  const { tokens } = tokenise({ args: [...argv], options: config, strict: false, allowPositionals: true, tokens: true });
  const positionals: string[] = [];
  const values = new Map<string, string | true | string[]>();
  for (const t of tokens) {
    if (t.kind === 'positional') positionals.push(t.value);
    else if (t.kind === 'option') {
      const kind = Object.hasOwn(table, t.name) && t.rawName.startsWith('--') ? table[t.name] : undefined;
      if (kind === undefined) throw unknownOption(t.rawName, t.name, command, table);
      if (kind === 'boolean') {
        if (t.value !== undefined) throw new UsageError(`${t.rawName} takes no value (got "${t.value}"); give ${t.rawName} alone`);
        values.set(t.name, true);
        continue;
      }
      // `--project --name X`: the next word is an option, not the missing value.
      // `--project=--odd` is still a value, for a folder that really starts with dashes.
      if (t.value === undefined || (!t.inlineValue && t.value.startsWith('--'))) throw new UsageError(`${t.rawName} needs a value`);
      if (kind === 'string[]') {
        const previous = values.get(t.name);
        values.set(t.name, [...(Array.isArray(previous) ? previous : []), t.value]);
      } else values.set(t.name, t.value);
    }
  }
  const names = spec.positionals ?? [];
  if (positionals.length > names.length) {
    const extra = positionals[names.length]!;
    const takes = names.length === 0 ? 'takes no arguments besides its options' : `takes ${names.join(' ')} only`;
    throw new UsageError(`unexpected argument "${extra}": ${command} ${takes}${extra.startsWith('-') ? '' : ' (options start with --)'}`);
  }
  if (positionals.length < names.length) throw new UsageError(`${command} needs ${names.slice(positionals.length).join(' ')}`);
  return { command, positionals, values, table };
}

/** Typed access to options with messages that name the option. */
export class Options {
  private readonly used = new Set<string>();
  constructor(private readonly args: ParsedArgs) {}

  /** A programming error, not the user's: the command reads an option its table does not declare. */
  private declared(key: string, kinds: readonly OptionKind[]): void {
    const kind = Object.hasOwn(this.args.table, key) ? this.args.table[key] : undefined;
    if (kind === undefined || !kinds.includes(kind)) {
      throw new Error(`${this.args.command} reads --${key} as ${kinds.join(' or ')}, but its options table (src/main/cli/usage.ts) says ${kind ?? 'nothing'}`);
    }
    this.used.add(key);
  }

  string(key: string): string | undefined {
    this.declared(key, ['string', 'string[]']);
    const v = this.args.values.get(key);
    return Array.isArray(v) ? v[v.length - 1] : (v as string | undefined);
  }
  /** Every value of a repeatable option (`--dataset A --dataset B`), in order; empty when absent. */
  strings(key: string): string[] {
    this.declared(key, ['string', 'string[]']);
    const v = this.args.values.get(key);
    return v === undefined ? [] : Array.isArray(v) ? [...v] : [v as string];
  }
  requireString(key: string): string {
    const v = this.string(key);
    if (v === undefined) throw new UsageError(`missing --${key}`);
    return v;
  }
  flag(key: string): boolean {
    this.declared(key, ['boolean']);
    return this.args.values.get(key) === true;
  }
  int(key: string, fallback: number, min = -Infinity, max = Infinity): number {
    const v = this.string(key);
    if (v === undefined) return fallback;
    const n = Number(v);
    if (v.trim() === '' || !Number.isInteger(n) || n < min || n > max) throw new UsageError(`--${key} must be an integer between ${min} and ${max}, got "${v}"`);
    return n;
  }
  number(key: string, fallback: number): number {
    const v = this.string(key);
    if (v === undefined) return fallback;
    const n = Number(v);
    if (v.trim() === '' || !Number.isFinite(n)) throw new UsageError(`--${key} must be a number, got "${v}"`);
    return n;
  }
  intList(key: string): number[] | undefined {
    const v = this.string(key);
    if (v === undefined) return undefined;
    const list = v.split(',').map((s) => Number(s.trim()));
    if (list.some((n) => !Number.isInteger(n) || n < 1)) throw new UsageError(`--${key} must be a comma-separated list of positive integers, got "${v}"`);
    return list;
  }
  /**
   * Every option given was read. The parser already refuses options outside the table;
   * this catches a table entry the command forgot to read, so no option is ever ignored.
   */
  assertNoUnknown(): void {
    for (const key of this.args.values.keys()) {
      if (!this.used.has(key)) throw new UsageError(`--${key} is not used by ${this.args.command}`);
    }
  }
}

export interface CliContext {
  /** Messages for the user (stderr); stdout carries only the JSON result. */
  log(message: string): void;
  /** Progress lines on stderr, already throttled by the caller of this function. */
  progress(stage: string, done: number, total: number): void;
  /** The API, loading the engine first: for engine-free commands that need it only sometimes. */
  loadApi?(): Promise<Api>;
  /**
   * Ask the person at the terminal and return the line they typed; null when nobody can
   * answer (stdin is not a terminal: a script, a pipe), so the command asks for an option instead.
   */
  ask?(question: string): Promise<string | null>;
}

/** A command result with its own exit code (e.g. `report verify`: 1 when invalid). */
export class CliResult {
  constructor(
    readonly output: unknown,
    readonly exitCode: number,
  ) {}
}

export interface CliCommand {
  /** e.g. ['stats', 'speat']; its options and positionals are COMMAND_SPECS['stats speat'] (cli/usage.ts). */
  path: string[];
  usage: string;
  run(options: Options, positionals: string[], ctx: CliContext): Promise<unknown>;
}
