import type { Api } from '../api';
import { ApiError } from '../../shared/errors';

/** Bad command-line usage: exit code 2. */
export class UsageError extends ApiError {
  constructor(message: string) {
    super('validation', message);
    this.name = 'UsageError';
  }
}

export interface ParsedArgs {
  positionals: string[];
  options: Map<string, string | true>;
  /** Every value of an option given more than once (`--dataset A --dataset B`), in order. */
  repeated?: Map<string, (string | true)[]>;
}

/** `--key value`, `--key=value` and boolean `--flag`; everything else is positional. */
export function parseArgs(argv: string[], booleanFlags: ReadonlySet<string> = new Set()): ParsedArgs {
  const positionals: string[] = [];
  const options = new Map<string, string | true>();
  const repeated = new Map<string, (string | true)[]>();
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const key = eq >= 0 ? arg.slice(2, eq) : arg.slice(2);
      if (key === '') throw new UsageError(`bad option "${arg}"`);
      let value: string | true;
      if (eq >= 0) value = arg.slice(eq + 1);
      else if (booleanFlags.has(key) || i + 1 >= argv.length || argv[i + 1]!.startsWith('--')) value = true;
      else value = argv[++i]!;
      options.set(key, value);
      repeated.set(key, [...(repeated.get(key) ?? []), value]);
    } else positionals.push(arg);
  }
  return { positionals, options, repeated };
}

/** Typed access to options with messages that name the option. */
export class Options {
  private readonly used = new Set<string>();
  constructor(private readonly args: ParsedArgs) {}

  string(key: string): string | undefined {
    this.used.add(key);
    const v = this.args.options.get(key);
    if (v === true) throw new UsageError(`--${key} needs a value`);
    return v;
  }
  /** Every value of a repeatable option (`--dataset A --dataset B`); empty when absent. */
  strings(key: string): string[] {
    this.used.add(key);
    const all = this.args.repeated?.get(key) ?? (this.args.options.has(key) ? [this.args.options.get(key)!] : []);
    if (all.some((v) => v === true)) throw new UsageError(`--${key} needs a value`);
    return all as string[];
  }
  requireString(key: string): string {
    const v = this.string(key);
    if (v === undefined) throw new UsageError(`missing --${key}`);
    return v;
  }
  flag(key: string): boolean {
    this.used.add(key);
    const v = this.args.options.get(key);
    if (v === undefined) return false;
    if (v === true || v === 'true') return true;
    if (v === 'false') return false;
    throw new UsageError(`--${key} takes no value`);
  }
  int(key: string, fallback: number, min = -Infinity, max = Infinity): number {
    const v = this.string(key);
    if (v === undefined) return fallback;
    const n = Number(v);
    if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`--${key} must be an integer between ${min} and ${max}, got "${v}"`);
    return n;
  }
  number(key: string, fallback: number): number {
    const v = this.string(key);
    if (v === undefined) return fallback;
    const n = Number(v);
    if (!Number.isFinite(n)) throw new UsageError(`--${key} must be a number, got "${v}"`);
    return n;
  }
  intList(key: string): number[] | undefined {
    const v = this.string(key);
    if (v === undefined) return undefined;
    const list = v.split(',').map((s) => Number(s.trim()));
    if (list.some((n) => !Number.isInteger(n) || n < 1)) throw new UsageError(`--${key} must be a comma-separated list of positive integers, got "${v}"`);
    return list;
  }
  /** Fail on options the command does not know, so typos never pass silently. */
  assertNoUnknown(): void {
    for (const key of this.args.options.keys()) {
      if (!this.used.has(key)) throw new UsageError(`unknown option --${key}`);
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
}

/** A command result with its own exit code (e.g. `report verify`: 1 when invalid). */
export class CliResult {
  constructor(
    readonly output: unknown,
    readonly exitCode: number,
  ) {}
}

export interface CliCommand {
  /** e.g. ['stats', 'speat'] */
  path: string[];
  usage: string;
  run(options: Options, positionals: string[], ctx: CliContext): Promise<unknown>;
}
