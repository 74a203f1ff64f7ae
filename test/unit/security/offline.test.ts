/**
 * The offline guarantee: with hub downloads off (the default) the whole demo opens no
 * network connection and resolves no name, in the main thread or in any worker. The
 * demo runs under test/support/no-network.mjs, which records every attempt; a positive
 * control first proves that the guard sees attempts made inside a worker thread.
 * Also: the renderer's Content-Security-Policy allows no remote origin.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebHost, type WebHost } from '../../../src/main/web';
import { audioMagicIn } from '../../support/audio-magic';

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
}

/** node --require <guard> --import tsx <script> ...args, with the guard in NODE_OPTIONS for child Node processes too. */
function runGuarded(args: string[], env: Record<string, string>, timeoutMs: number): GuardedRun {
  const dir = mkdtempSync(join(tmpdir(), 'equivox-netlog-'));
  const netlog = join(dir, 'net.log');
  const loaded = join(dir, 'loaded.log');
  const r = spawnSync(process.execPath, ['--require', guard, '--import', 'tsx', ...args], {
    cwd: repo,
    encoding: 'utf8',
    timeout: timeoutMs,
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, ...env, EQUIVOX_NETLOG: netlog, EQUIVOX_NETLOG_LOADED: loaded, NODE_OPTIONS: `--require ${guard}` },
  });
  const lines = (f: string): string[] => (existsSync(f) ? readFileSync(f, 'utf8').split('\n').filter(Boolean) : []);
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, attempts: lines(netlog).filter((l) => !TSX_IPC.test(l)), threads: lines(loaded) };
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

describe('the whole demo, offline', () => {
  const home = mkdtempSync(join(tmpdir(), 'equivox-offline-home-'));
  const out = mkdtempSync(join(tmpdir(), 'equivox-offline-out-'));
  let run: GuardedRun;

  beforeAll(() => {
    run = runGuarded(['src/main/cli.ts', 'demo', '--fast', '--out', out], { EQUIVOX_HOME: home }, 540_000);
  }, 600_000);

  it('finishes', () => {
    expect(run.status, run.stderr.slice(-2000)).toBe(0);
    expect(existsSync(join(out, 'report.pdf'))).toBe(true);
  });

  it('opens no network connection and resolves no name, in any thread', () => {
    expect(run.attempts).toEqual([]);
    // The guard was watching the demo's worker thread too (key generation, an eval worker).
    expect(run.threads.some((t) => t.split(' ')[1] !== '0')).toBe(true);
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
