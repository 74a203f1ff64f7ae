/**
 * The `equivox` command line over api.ts: one JSON document on stdout, messages on
 * stderr; exit 0 on success, 1 on a user error, 2 on bad usage.
 */
// First, before anything can load onnxruntime-node: its native telemetry off.
import './security/telemetry-off';
import { pathToFileURL } from 'node:url';
import type { Api, createApi } from './api';
import type { createEngine, Engine } from './engine';
import { toErrorShape } from './error-shape';
import { CliResult, Options, UsageError, type CliContext } from './cli/args';
import { ENGINE_FREE_GROUPS, isGroup, loadCommands } from './cli/commands';
import { leadingWords, matchCommand, parseCommandLine, usageText } from './cli/usage';
import { ProgressThrottle } from './cli/progress-lines';

/** Where the CLI writes, and (only at a terminal) how it asks the person there a question. */
export interface CliIo {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  ask?: (question: string) => Promise<string | null>;
}

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  let engine: Engine | undefined;
  let api: Api | undefined;
  // The engine's modules load only for commands that need them (see cli/commands.ts).
  let engineModules: { createApi: typeof createApi; createEngine: typeof createEngine } | undefined;
  const getApi = (): Api => {
    if (!api) {
      if (!engineModules) throw new Error('the engine was not loaded for this command');
      const { createApi, createEngine } = engineModules;
      engine = createEngine({ host: 'cli' });
      const throttle = new ProgressThrottle();
      engine.events.subscribe((e) => {
        if (e.type === 'job.progress') {
          const p = e.progress;
          if (!throttle.shouldPrint(p)) return;
          io.stderr(`${p.stage}: ${p.done}/${p.total}${p.label ? ` — ${p.label}` : ''}${p.etaSeconds !== null ? ` (about ${Math.ceil(p.etaSeconds)} s left)` : ''}\n`);
        }
      });
      api = createApi(engine);
    }
    return api;
  };
  const loadEngine = async () => {
    if (engineModules) return;
    const [apiModule, engineModule] = await Promise.all([import('./api'), import('./engine')]);
    engineModules = { createApi: apiModule.createApi, createEngine: engineModule.createEngine };
  };
  const ctx: CliContext = {
    log: (m) => io.stderr(`${m}\n`),
    progress: (stage, done, total) => io.stderr(`${stage}: ${done}/${total}\n`),
    async loadApi() {
      await loadEngine();
      return getApi();
    },
    ask: async (question) => (io.ask ? io.ask(question) : null),
  };
  try {
    // The command is its leading words (`report verify`); options and positionals follow
    // in any order, parsed against the command's table (cli/usage.ts), before any
    // command module loads: a typo costs no engine start-up.
    const end = argv.indexOf('--');
    const helpAsked = (end < 0 ? argv : argv.slice(0, end)).some((a) => a === '--help' || a === '-h');
    const words = leadingWords(argv);
    const first = words[0];
    // Usage text is static (cli/usage.ts): printing it loads no command module.
    if (first === undefined) {
      io.stderr(`${usageText()}\n`);
      return helpAsked ? 0 : 2;
    }
    if (!isGroup(first)) throw new UsageError(`unknown command "${words.join(' ')}"\n${usageText()}`);
    const command = matchCommand(words);
    if (helpAsked) {
      io.stderr(`${usageText(first, command)}\n`);
      return 0;
    }
    if (command === undefined) throw new UsageError(`unknown command "${words.join(' ')}"\n${usageText(first)}`);
    let parsed: ReturnType<typeof parseCommandLine>;
    try {
      parsed = parseCommandLine(argv);
    } catch (err) {
      // The command's own usage line under the one-line reason.
      if (err instanceof UsageError) throw new UsageError(`${err.message}\n${usageText(first, command)}`);
      throw err;
    }
    const path = command.split(' ');
    if (!ENGINE_FREE_GROUPS.has(first)) await loadEngine();
    const commands = await loadCommands(first, getApi, path[1]);
    const match = commands.find((c) => c.path.join(' ') === command);
    if (!match) throw new Error(`${command} has an options table but no command module`);
    const result = await match.run(new Options(parsed), parsed.positionals, ctx);
    if (result instanceof CliResult) {
      io.stdout(`${JSON.stringify(result.output, null, 2)}\n`);
      return result.exitCode;
    }
    io.stdout(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } catch (err) {
    const shape = toErrorShape(err);
    const isUsage = err instanceof UsageError || shape.code === 'validation' || shape.code === 'unknown_operation';
    io.stderr(`error: ${shape.message.split('\n')[0]}\n`);
    // Usage text, or a user error's reasons (e.g. why a plan cannot be locked), one per line.
    if ((err instanceof UsageError || shape.code === 'user') && shape.message.includes('\n')) io.stderr(`${shape.message.split('\n').slice(1).join('\n')}\n`);
    io.stdout(`${JSON.stringify({ error: shape })}\n`);
    if (shape.code === 'internal' && process.env.EQUIVOX_DEBUG) io.stderr(`${(err as Error).stack ?? ''}\n`);
    return isUsage ? 2 : 1;
  } finally {
    await engine?.close();
  }
}

/** One line from the terminal, the question on stderr (stdout carries only JSON); null when stdin is not a terminal. */
async function askTerminal(question: string): Promise<string | null> {
  if (!process.stdin.isTTY) return null;
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return await rl.question(question);
  } finally {
    rl.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  void runCli(process.argv.slice(2), {
    stdout: (s) => process.stdout.write(s),
    stderr: (s) => process.stderr.write(s),
    ask: askTerminal,
  }).then((code) => {
    process.exitCode = code;
  });
}
