// The layering of src/ as one table, and the lint rule that keeps it (issue 22 item 5; the
// model is VS Code's local `code-layering` rule).
//
// A room is a folder directly under src/ (renderer, preload, shared, types) or under
// src/main (audits, store, ...); the files directly in src/main are placed in rooms by name
// below. A room may import itself and every room that its `may` list reaches, directly or
// through those rooms' own lists: the table names only the next rooms down, the order of
// the issue:
//
//   renderer → shared;  preload → shared;
//   hosts → cli → composition (api.ts, engine.ts) → handlers → audits
//     → inference / data / report / cluster → services → store / audio / jobs / identity
//     → security → base → shared;   store / audio / jobs also → stats (pure, imports nothing)
//
// Only relative imports are checked (packages have their own rules in eslint.config.mjs).
// `import type` counts like any import: a type taken from an upper room still ties the
// lower room to it, and the narrow types the lower rooms need (engine-services.ts) now sit
// low enough that no exception is needed.
import { existsSync, statSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Every room, what it holds, and the rooms directly below it that it may import.
 * `folders`: paths under src/ whose files (at any depth) are the room's; `files`: files
 * directly in src/main, by name without extension.
 * @type {Record<string, { folders?: string[]; files?: string[]; may: string[]; why: string }>}
 */
export const ROOMS = {
  renderer: { folders: ['renderer'], may: ['shared'], why: 'the UI talks to the engine only through window.equivox' },
  preload: { folders: ['preload'], may: ['shared'], why: 'forwards the typed API, nothing else' },
  shared: { folders: ['shared'], may: [], why: 'the wire contract: depends on nothing but itself and zod' },
  types: { folders: ['types'], may: [], why: 'ambient declarations of untyped packages' },

  hosts: {
    files: ['index', 'ipc', 'web', 'cli', 'engine-process', 'engine-fork', 'engine-transport', 'job-worker', 'job-process', 'single-instance'],
    may: ['cli', 'composition'],
    why: 'the processes and threads that start the engine or a part of it (Electron main, web server, CLI, engine process, a job worker thread, a job process); *.electron.ts files anywhere in src/main are hosts too',
  },
  cli: { folders: ['main/cli'], may: ['composition'], why: "the CLI's commands, run by cli.ts" },
  composition: { files: ['api', 'engine', 'job-registry'], may: ['handlers'], why: 'builds the engine, the API and the job registry (every task kind a worker runs) from the rooms below' },
  handlers: { folders: ['main/handlers'], may: ['audits'], why: 'one handler per API operation' },
  audits: { folders: ['main/audits'], may: ['inference', 'data', 'report', 'cluster'], why: 'the audit pipelines' },
  // Sideways arrows inside this layer, each one way: cluster runs inference on its nodes, report writes CSV with data/csv.ts.
  inference: { folders: ['main/inference'], may: ['services', 'audio', 'identity'], why: 'models and embeddings' },
  data: { folders: ['main/data'], may: ['services', 'audio', 'identity'], why: 'dataset import and validation' },
  report: { folders: ['main/report'], may: ['services', 'audio', 'identity', 'data'], why: 'PDF reports, signatures, attestations' },
  cluster: { folders: ['main/cluster'], may: ['services', 'audio', 'identity', 'inference'], why: 'Slurm export, shard runs and import' },
  services: { files: ['engine-services'], may: ['store', 'jobs'], why: 'the narrow views of the engine that the rooms above receive' },
  store: { folders: ['main/store'], may: ['security', 'stats'], why: 'the only room that speaks SQL' },
  audio: { folders: ['main/audio'], may: ['security', 'stats'], why: 'decoding and acoustic analysis' },
  jobs: { folders: ['main/jobs'], may: ['security', 'stats'], why: 'the job runner and its worker threads' },
  identity: { folders: ['main/identity'], may: ['security'], why: 'signing identities and trusted certificates' },
  security: { folders: ['main/security'], may: ['base'], why: 'path policy, input files, telemetry off' },
  base: {
    folders: ['main/paths'],
    files: ['atomic-write', 'error-shape', 'file-locks', 'ffmpeg', 'packaged-path', 'version', 'events', 'web-security'],
    may: ['shared'],
    why: 'small utilities with no engine state (paths/: the one path comparison)',
  },
  stats: { folders: ['main/stats'], may: [], why: 'pure numeric functions, no I/O' },
};

/**
 * Up-arrows allowed for now, each with its reason: empty since the job registry and the
 * worker entry moved above the rooms they name (src/main/job-registry.ts, job-worker.ts).
 * Each entry would allow exactly one import (file → module, without extension); add one
 * only with an issue that removes it.
 * @type {{ file: string; imports: string; why: string }[]}
 */
export const PENDING = [];

/** The room of a path relative to the repository (posix separators), or undefined when the table places it nowhere. */
export function roomOf(path) {
  const parts = path.split('/');
  if (parts[0] !== 'src' || parts.length < 2) return undefined;
  if (/\.electron\.[cm]?[jt]sx?$/.test(path) && parts[1] === 'main') return 'hosts';
  const folder = parts[1] === 'main' && parts.length > 3 ? `main/${parts[2]}` : parts[1] === 'main' ? undefined : parts[1];
  if (folder !== undefined) return Object.keys(ROOMS).find((r) => ROOMS[r].folders?.includes(folder));
  const name = (parts[2] ?? '').replace(/\.[cm]?[jt]sx?$/, '');
  return Object.keys(ROOMS).find((r) => ROOMS[r].files?.includes(name));
}

/** Every room a room may import: itself and the closure of its `may` list. */
export function allowedFrom(room) {
  const seen = new Set([room]);
  const todo = [...ROOMS[room].may];
  while (todo.length > 0) {
    const next = todo.pop();
    if (seen.has(next)) continue;
    seen.add(next);
    todo.push(...(ROOMS[next]?.may ?? []));
  }
  return seen;
}

const EXT = /\.(?:[cm]?[jt]sx?|json)$/;

/** The module a relative specifier names, relative to the repository, without extension; a folder's import names the folder. */
function target(fromAbs, spec) {
  const abs = resolve(dirname(fromAbs), spec);
  return relative(REPO, abs).split(sep).join('/').replace(EXT, '');
}

/** The room of an imported module: a folder under src/main names its room even when it is imported as `../audio` (its index). */
function roomOfModule(mod) {
  const parts = mod.split('/');
  if (parts[0] === 'src' && parts[1] === 'main' && parts.length === 3) {
    const abs = resolve(REPO, mod);
    if (existsSync(abs) && statSync(abs).isDirectory()) return roomOf(`${mod}/index.ts`);
    return roomOf(`${mod}.ts`);
  }
  return roomOf(parts.length === 2 ? `${mod}/index.ts` : `${mod}.ts`);
}

/** @type {import('eslint').Rule.RuleModule} */
const layering = {
  meta: {
    type: 'problem',
    docs: { description: 'imports follow the room table of eslint-rules/layering.mjs' },
    schema: [],
    messages: {
      upward: "{{room}} ({{file}}) may not import {{target}} (room {{targetRoom}}): {{room}} may import only {{allowed}} (table in eslint-rules/layering.mjs)",
      unplaced: '{{file}} is in no room of the layering table: place its folder or file in ROOMS (eslint-rules/layering.mjs)',
      unplacedTarget: '{{file}} imports {{target}}, which is in no room of the layering table: place it in ROOMS (eslint-rules/layering.mjs)',
    },
  },
  create(context) {
    const abs = resolve(context.cwd ?? process.cwd(), context.filename);
    const file = relative(REPO, abs).split(sep).join('/');
    if (!file.startsWith('src/')) return {};
    const room = roomOf(file);
    const allowed = room ? allowedFrom(room) : new Set();
    const pending = new Set(PENDING.filter((p) => p.file === file).map((p) => p.imports));
    let reportedUnplaced = false;

    function check(node, source) {
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      if (!room) {
        if (!reportedUnplaced) context.report({ node, messageId: 'unplaced', data: { file } });
        reportedUnplaced = true;
        return;
      }
      const mod = target(abs, source);
      if (!mod.startsWith('src/')) return;
      const targetRoom = roomOfModule(mod);
      if (!targetRoom) {
        context.report({ node, messageId: 'unplacedTarget', data: { file, target: mod } });
        return;
      }
      if (allowed.has(targetRoom) || pending.has(mod)) return;
      const list = [...allowed].filter((r) => r !== room).sort();
      context.report({ node, messageId: 'upward', data: { room, file, target: mod, targetRoom, allowed: list.length > 0 ? `itself and ${list.join(', ')}` : 'itself' } });
    }
    /** @param {{ source?: { value?: unknown } | null }} node */
    const fromSource = (node) => {
      if (node.source) check(node.source, node.source.value);
    };
    return {
      ImportDeclaration: fromSource,
      ExportNamedDeclaration: fromSource,
      ExportAllDeclaration: fromSource,
      ImportExpression(node) {
        if (node.source.type === 'Literal') check(node.source, node.source.value);
      },
      // `import('../x').T` in a type position.
      TSImportType(node) {
        // typescript-eslint 8 names the specifier `source` (older versions: `argument`, a literal type).
        const lit = node.source ?? (node.argument?.type === 'TSLiteralType' ? node.argument.literal : undefined);
        if (lit && lit.type === 'Literal') check(lit, lit.value);
      },
    };
  },
};

export default { meta: { name: 'equivox-local' }, rules: { layering } };
