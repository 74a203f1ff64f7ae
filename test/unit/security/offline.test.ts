/**
 * The offline guarantee, checked in two layers on one run of the demo:
 * - the kernel's view: `strace -f` over the whole process tree (native code such as
 *   onnxruntime's telemetry client included) with HOME pointed at an empty folder: no
 *   non-loopback connection, no DNS or name-service lookup, no file written outside the
 *   output, the Equivox data folder (which defaults into HOME) and the harness's own
 *   folders, nothing new in HOME but the data folder;
 * - the JavaScript view: test/support/no-network.cjs records and refuses every socket,
 *   DNS, fetch and WebSocket call in the main thread and every worker; a positive control
 *   first proves that it sees attempts made inside a worker thread.
 * The demo runs exactly as an auditor starts it, `npm run demo -- --fast` (npm, then the
 * bundled command line), and without ORT_DISABLE_TELEMETRY in its environment: the product
 * must turn the telemetry off by itself. npm's own update check and log files are off in
 * the project's .npmrc; npm still makes an empty cache folder (~/.npm), which is npm's,
 * not Equivox's, and is allowed only while it stays empty. Also: the renderer's Content-Security-Policy allows
 * no remote origin.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebHost, type WebHost } from '../../../src/main/web';
import { PRIVACY_ENV } from '../../../src/main/security/telemetry';
import { defaultDataDir } from '../../../src/main/paths/data-folders';
import { audioMagicIn } from '../../support/audio-magic';
import { entriesOutside, listTree, networkViolations, parseStraceLog, STRACE_ARGS, writesOutside, type StraceLog } from '../../support/strace-log';
import { skipUnless } from '../../support/skips';
import { straceAvailability } from '../../support/strace-available';

const repo = resolve(import.meta.dirname, '..', '..', '..');
// --require, not --import: Node runs --require preloads in `eval: true` workers too.
const guard = join(repo, 'test', 'support', 'no-network.cjs');

/**
 * tsx's loader, which runs the TypeScript sources in this test (not in the product),
 * tries to reach its parent `tsx` command over a local Unix socket named
 * <tmp>/tsx-<uid>/<ppid>.pipe. That is no network and the guard refuses it anyway; it
 * is the only line allowed in the log.
 */
const TSX_IPC = /^\d+ \d+ net\.createConnection \S*\/tsx-\d+\/\d+\.pipe$/;

interface GuardedRun {
  status: number | null;
  stdout: string;
  stderr: string;
  attempts: string[];
  /** "<pid> <threadId>" of every thread the guard loaded in. */
  threads: string[];
  /** The kernel's view of the run, when strace could trace it. */
  strace: StraceLog | null;
  /** Folders the harness itself writes to (the guard's logs). */
  harnessDir: string;
}

/**
 * node --require <guard> --import tsx <script> ...args, with the guard in NODE_OPTIONS for
 * child Node processes too; under `strace -f` when `traced`. Variables named in `unset`
 * are removed from the child's environment.
 */
function runGuarded(args: string[], env: Record<string, string>, timeoutMs: number, options: { traced?: boolean; unset?: string[]; viaNpm?: boolean } = {}): GuardedRun {
  const dir = mkdtempSync(join(tmpdir(), 'equivox-netlog-'));
  const netlog = join(dir, 'net.log');
  const loaded = join(dir, 'loaded.log');
  const straceLog = join(dir, 'strace.log');
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env, EQUIVOX_NETLOG: netlog, EQUIVOX_NETLOG_LOADED: loaded, NODE_OPTIONS: `--require ${guard}` };
  for (const k of options.unset ?? []) delete childEnv[k];
  // As from the auditor's shell: without the npm_* settings this test inherits when npm started it.
  if (options.viaNpm) for (const k of Object.keys(childEnv)) if (/^npm_/i.test(k)) delete childEnv[k];
  // Through npm the guard reaches every Node process by NODE_OPTIONS (npm, the launcher, the bundle).
  const node = options.viaNpm ? ['npm', 'run', '--silent', ...args] : [process.execPath, '--require', guard, '--import', 'tsx', ...args];
  const [cmd, ...cmdArgs] = options.traced ? ['strace', ...STRACE_ARGS, '-o', straceLog, '--', ...node] : node;
  const r = spawnSync(cmd!, cmdArgs, { cwd: repo, encoding: 'utf8', timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, env: childEnv });
  const lines = (f: string): string[] => (existsSync(f) ? readFileSync(f, 'utf8').split('\n').filter(Boolean) : []);
  return {
    status: r.status,
    stdout: r.stdout,
    stderr: r.stderr,
    attempts: lines(netlog).filter((l) => !TSX_IPC.test(l)),
    threads: lines(loaded),
    strace: options.traced && existsSync(straceLog) ? parseStraceLog(readFileSync(straceLog, 'utf8'), repo) : null,
    harnessDir: dir,
  };
}

describe('the no-network guard (positive control)', () => {
  it('records http.get and fetch made inside worker threads (module and eval workers), run the same way as the demo', () => {
    const run = runGuarded(['test/support/network-probe.mjs'], {}, 60_000);
    expect(run.status, run.stderr).toBe(0);
    const inWorker = run.attempts.filter((l) => l.split(' ')[1] !== '0');
    expect(inWorker.some((l) => / http\.get http:\/\/127\.0\.0\.1:9\//.test(l))).toBe(true);
    expect(inWorker.some((l) => / fetch http:\/\/127\.0\.0\.1:9\//.test(l))).toBe(true);
    expect(run.attempts.some((l) => l.split(' ')[1] === '0' && / http\.get /.test(l))).toBe(true);
    // The attempts were refused as well as recorded.
    expect(inWorker.some((l) => / http\.get http:\/\/127\.0\.0\.1:9\/eval-worker/.test(l))).toBe(true);
    expect(JSON.parse(run.stdout)).toEqual({
      main: ['http.get refused: ENETUNREACH', 'fetch refused: ENETUNREACH'],
      worker: ['http.get refused: ENETUNREACH', 'fetch refused: ENETUNREACH'],
      evalWorker: 'http.get refused: ENETUNREACH',
    });
  });
});

const strace = straceAvailability();

describe('the whole demo, offline', () => {
  // HOME is an empty folder and nothing points the data folder elsewhere, so the app
  // uses its default place inside HOME (~/.config/Equivox/data on Linux).
  const home = mkdtempSync(join(tmpdir(), 'equivox-offline-home-'));
  const dataDir = defaultDataDir({ HOME: home }, 'linux');
  const out = mkdtempSync(join(tmpdir(), 'equivox-offline-out-'));
  let run: GuardedRun;

  beforeAll(() => {
    // The harness's own preparation happens outside the trace, as npm test does it first: the
    // native-module check (it writes a marker in node_modules on its first run) and the bundled
    // command line (npm run demo rebuilds it only when a source changed).
    const native = spawnSync(process.execPath, [join(repo, 'scripts', 'ensure-native.mjs'), 'node'], { cwd: repo, encoding: 'utf8' });
    if (native.status !== 0) throw new Error(`preparing the native modules failed: ${native.stderr}`);
    const build = spawnSync(process.execPath, [join(repo, 'scripts', 'build-cli.mjs')], { cwd: repo, encoding: 'utf8' });
    if (build.status !== 0) throw new Error(`bundling the CLI failed: ${build.stderr}`);
    run = runGuarded(['demo', '--', '--fast', '--out', out], { HOME: home }, 540_000, {
      viaNpm: true,
      traced: strace.ok,
      unset: ['EQUIVOX_HOME', 'XDG_DATA_HOME', 'XDG_CACHE_HOME', 'XDG_CONFIG_HOME', ...Object.keys(PRIVACY_ENV)],
    });
  }, 600_000);

  it('finishes', () => {
    expect(run.status, run.stderr.slice(-2000)).toBe(0);
    expect(existsSync(join(out, 'report.pdf'))).toBe(true);
    expect(existsSync(join(dataDir, 'equivox.sqlite'))).toBe(true);
  });

  it('opens no network connection and resolves no name, in any thread (JavaScript guard)', () => {
    expect(run.attempts).toEqual([]);
    // The guard was watching the demo's worker thread too (key generation, an eval worker).
    expect(run.threads.some((t) => t.split(' ')[1] !== '0')).toBe(true);
  });

  it('makes no non-loopback connection and no DNS or name-service lookup, native code included (strace -f)', (ctx) => {
    skipUnless(strace.ok ? null : strace.reason, (r) => ctx.skip(r));
    const log = run.strace!;
    // The trace saw the work itself: the project database and the report being written.
    expect(log.calls).toBeGreaterThan(1000);
    expect(log.writes.some((w) => w.path === join(out, 'project', 'project.sqlite'))).toBe(true);
    expect(log.writes.some((w) => w.path === join(out, 'report.pdf'))).toBe(true);
    expect(networkViolations(log.network).map((v) => `${v.reason} (pid ${v.pid}, ${v.syscall})`)).toEqual([]);
  });

  it("writes files only in the output, the Equivox data folder and the harness's folders (strace -f)", (ctx) => {
    skipUnless(strace.ok ? null : strace.reason, (r) => ctx.skip(r));
    const outside = writesOutside(run.strace!.writes, [out, dataDir, run.harnessDir]).filter((w) => !isEmptyNpmCache(w.path));
    expect(outside.map((w) => `${w.syscall} ${w.path}`)).toEqual([]);
  });

  /** npm's own cache folder, made by npm at start: allowed only as an empty folder. */
  const isEmptyNpmCache = (path: string): boolean => {
    const npmDir = join(home, '.npm');
    return (path === npmDir || path === '.npm') && existsSync(npmDir) && readdirSync(npmDir).length === 0;
  };

  it('leaves nothing new in HOME but the Equivox data folder (no ~/.cache device id)', () => {
    const entries = listTree(home);
    expect(entries.some((e) => e.endsWith('equivox.sqlite'))).toBe(true);
    expect(entriesOutside(home, entries, [dataDir]).filter((e) => !isEmptyNpmCache(e))).toEqual([]);
  });

  it('leaves no audio in the report, its statement or its exports', () => {
    const files = [join(out, 'report.pdf'), join(out, 'report.statement.json'), ...readdirSync(join(out, 'report-data')).map((f) => join(out, 'report-data', f))];
    expect(files.length).toBeGreaterThan(3);
    for (const f of files) expect(audioMagicIn(readFileSync(f)), f).toEqual([]);
  });

  it('writes no transcript to stderr or to the event log', () => {
    const transcripts = demoTranscripts();
    expect(transcripts.length).toBeGreaterThan(10);
    const db = new Database(join(out, 'project', 'project.sqlite'), { readonly: true });
    const events = (db.prepare('SELECT kind, detail_json FROM events').all() as { kind: string; detail_json: string }[]).map((e) => `${e.kind} ${e.detail_json}`).join('\n');
    db.close();
    expect(events.length).toBeGreaterThan(0);
    for (const t of transcripts) {
      expect(run.stderr.includes(t), `stderr contains "${t}"`).toBe(false);
      expect(events.includes(t), `event log contains "${t}"`).toBe(false);
    }
  });
});

describe("the renderer's Content-Security-Policy", () => {
  let host: WebHost;
  beforeAll(async () => {
    const staticDir = mkdtempSync(join(tmpdir(), 'equivox-csp-'));
    mkdirSync(staticDir, { recursive: true });
    writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>Equivox</title>');
    host = await startWebHost({ dataDir: mkdtempSync(join(tmpdir(), 'equivox-csp-home-')), staticDir });
  });
  afterAll(() => host.close());

  it("is default-src 'self' with no remote source", async () => {
    const res = await fetch(`http://127.0.0.1:${host.port}/index.html`);
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    const directives = new Map(csp.split(';').map((d) => d.trim().split(/\s+/)).filter((d) => d[0]).map((d) => [d[0]!, d.slice(1)]));
    expect(directives.get('default-src')).toEqual(["'self'"]);
    for (const [name, sources] of directives) {
      for (const s of sources) {
        expect(s, `${name} ${s}`).not.toMatch(/^(https?:|wss?:|\*|\/\/)|^[\w-]+(\.[\w-]+)+/i);
      }
    }
    expect(directives.get('connect-src')).toEqual(["'self'"]);
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(directives.get('object-src')).toEqual(["'none'"]);
  });
});

function demoTranscripts(): string[] {
  const dir = join(repo, 'resources', 'demo');
  const out = new Set<string>();
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.csv'))) {
    const [header, ...rows] = readFileSync(join(dir, f), 'utf8').split(/\r?\n/).filter(Boolean);
    const col = header!.split(',').indexOf('transcript');
    if (col < 0) continue;
    for (const r of rows) {
      const t = r.split(',')[col];
      if (t && t.length >= 12) out.add(t);
    }
  }
  return [...out];
}
